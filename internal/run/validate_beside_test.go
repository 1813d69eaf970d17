package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target the run creates is validated beside the source's checks: the
// source's describe, the last of them, goes on only once prostrct create
// -validate has started (after them, it was one start-up more before the
// first job). The validate's output still reaches run.log, after the
// source's calls.
func TestValidateBesideTheSourceChecks(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	cfg.Runner = oe
	argv := cfg.createSteps()[0].argv
	validate := filepath.Base(argv[0]) + " " + strings.Join(append(argv[1:], "-validate"), " ")
	describe := "proutil " + cfg.Source + " -C describe"
	oe.waitFor = map[string]string{describe: validate}
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 1, oe.count(validate), "validated once")
	assert.Equal(t, 1, oe.count(describe), "the source described once")
	require.NotNil(t, res)

	b, err := os.ReadFile(cfg.logPath("run"))
	require.NoError(t, err)
	log := string(b)
	at := strings.Index(log, "-validate")
	require.NotEqual(t, -1, at, "the validate's call is in run.log")
	assert.Less(t, strings.Index(log, cfg.Source+" -C describe"), at, "logged after the source's describe, whose call it ran beside")
}
