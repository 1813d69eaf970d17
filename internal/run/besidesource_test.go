package run

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// The dumps wait for the target's formatting only where both are on one
// filesystem (one device's bandwidth); a target elsewhere is formatted
// beside the dumps, as before. The estimate the run makes of itself is
// told the same.
func TestTargetBesideSource(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		target string
		beside bool
	}{
		{"a new directory beside the source's", filepath.Join(dir, "new", "deeper", "tgt"), true},
		{"another filesystem (/proc)", "/proc/oedl-no-such-dir/tgt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Source: filepath.Join(dir, "src"), Target: tt.target}
			assert.Equal(t, tt.beside, c.targetBesideSource())
			c.dumpsAfterCreate = !c.prepared && c.targetBesideSource()
			b, err := schedule.Build(&plan.Plan{Tables: []plan.Placement{{Table: "PUB.a", Bytes: 1 << 30, Records: 1 << 20, DataArea: "d"}}}, c.buildOptions())
			if !assert.NoError(t, err) {
				return
			}
			assert.Equal(t, tt.beside, slices.Contains(b.Job(schedule.DumpID("PUB.a")).Deps, string(schedule.KindCreateTarget)))
			assert.Equal(t, !tt.beside, c.Strategy().DumpsBesideCreate)
		})
	}
}
