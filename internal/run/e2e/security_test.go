package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run carries the source's users, SQL grants and views to the target,
// and verify compares what the target holds afterwards with the source.
func TestRunCarriesUsersGrantsViews(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl(nil, e.runArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	v := e.verified()
	assert.Equal(t, "4 users, 5 grants, 1 view", v.Security.Before)
	assert.Equal(t, v.Security.Before, v.Security.After)

	src, err := openedge.ReadSecurity(filepath.Join(e.work, run.SecurityDir))
	require.NoError(t, err)
	// The target itself, read again now the run is over: not the files
	// the run wrote, the database.
	again := filepath.Join(t.TempDir(), "again")
	require.NoError(t, os.MkdirAll(again, 0o755))
	out := oesimProgres(t, e, e.target, "dump_security.p", again)
	tgt, err := openedge.ReadSecurity(again)
	require.NoError(t, err, out)
	assert.Equal(t, src, tgt)
	assert.Len(t, tgt.Views, 1)
}

// A target that silently lost users on the load (oesim's truncate fault
// on load_security.p) fails the run at verify, naming the users lost.
func TestVerifyNamesLostUsers(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl([]string{"OESIM_FAULTS=_progres:_User:truncate-after=2"}, e.runArgs("--retries", "0")...)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "user joao missing after")
	assert.Contains(t, r.stderr, "user report missing after")

	data, err := os.ReadFile(filepath.Join(e.work, verify.JSONFile))
	require.NoError(t, err)
	var v verify.Result
	require.NoError(t, json.Unmarshal(data, &v))
	assert.False(t, v.OK)
	assert.Empty(t, v.Bad, "every table matched: only the users differ")
	require.NotNil(t, v.Security)
	assert.Equal(t, []verify.SecurityItem{
		{Kind: "user", Name: "joao", Before: v.Security.Bad[0].Before, Status: verify.Missing},
		{Kind: "user", Name: "report", Before: v.Security.Bad[1].Before, Status: verify.Missing},
	}, v.Security.Bad)
}

// oesimProgres runs an ABL procedure on db single-user and returns its
// output.
func oesimProgres(t *testing.T, e *env, db, proc, param string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(e.fx.dlc, "bin", "_progres"), "-b", "-db", db, "-1", "-p", proc, "-param", param)
	cmd.Env = append(os.Environ(), e.extra...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s: %s", proc, out)
	return string(out)
}

// load-security killed before it loaded anything stops the run; the
// resume runs it again (the dump is proven and kept) and verifies.
func TestLoadSecurityCrashThenResume(t *testing.T) {
	e := newEnv(t, "sports")
	r := e.oedl([]string{"OESIM_FAULTS=_progres:_User:crash,once"}, e.runArgs("--retries", "0")...)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "load-security")
	r = e.oedl(nil, e.runArgs("--resume")...)
	require.Equal(t, 0, r.code, r.stderr)
	v := e.verified()
	assert.Equal(t, "4 users, 5 grants, 1 view", v.Security.After)
	var dumps, loads int
	for _, rec := range e.journal() {
		if rec.State != journal.Done {
			continue
		}
		switch rec.Job {
		case "dump-security":
			dumps++
		case "load-security":
			loads++
		}
	}
	assert.Equal(t, 1, dumps, "the resume kept the proven dump")
	assert.Equal(t, 1, loads)
}
