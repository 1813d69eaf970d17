package run

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
)

// A path with a line break is bad usage (exit 2) for run, prepare and the
// dry run: post-load.sh names the target, the work directory and $DLC,
// and a break in a comment there made the rest of the path a command
// (safety trial 7).
func TestPathsWithALineBreakAreUsageErrors(t *testing.T) {
	good := Config{Source: "/db/prod", Target: "/new/prod", Work: "/dl/work", PlanDir: "/dl/plan", DLC: "/usr/dlc", Plan: &plan.Plan{}}
	assert.NoError(t, good.validate())
	for name, bad := range map[string]func(c *Config){
		"--target": func(c *Config) { c.Target = "/new/x\ntouch /tmp/p\n/prod" },
		"--source": func(c *Config) { c.Source = "/db/\rprod" },
		"--work":   func(c *Config) { c.Work = "/dl/work\nrm" },
		"--plan":   func(c *Config) { c.PlanDir = "/dl/plan\n" },
		"--dlc":    func(c *Config) { c.DLC = "/usr/dlc\nx" },
		// A database named as on Windows (nu-trial8): on Unix the run
		// would create "D:\db\prod" under the current directory.
		`--target "D:\db\prod" is a Windows path`: func(c *Config) { c.Target = `D:\db\prod` },
		`--source ".\prod" is a Windows path`:     func(c *Config) { c.Source = `.\prod` },
		`is a Windows path`:                       func(c *Config) { c.Target = "/home/dba/D:/db/prod" }, // "D:/db/prod" made absolute
	} {
		c := good
		bad(&c)
		err := c.validate()
		var ue *UsageError
		assert.True(t, errors.As(err, &ue), "%s: %v", name, err)
		assert.ErrorContains(t, err, name, name)
		_, err = Check(t.Context(), c)
		assert.True(t, errors.As(err, &ue), "dry run %s: %v", name, err)
	}
}
