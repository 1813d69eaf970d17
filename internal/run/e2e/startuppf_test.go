package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// Safety trial 7: every ABL session reads $PROSTARTUP (else
// $DLC/startup.pf) before its command line, and a -db there is connected
// first: `_progres -b -db TARGET -p prodict/load_df.p` would load the
// target's .df into that database, load_seqvals.p and load_security.p its
// sequences and users (they act on LDBNAME(1)). oesim's _progres reads no
// startup file, so what is tested is oedl's refusal before anything runs:
// exit 3 naming the file, the line and the database; no target file made,
// no job journalled; a relative -pf in it too. A startup file without -db
// (the site's codepages) runs as before.
func TestStartupPFConnectingADatabaseIsRefused(t *testing.T) {
	e := newEnv(t, "sports")
	site := filepath.Join(e.dir, "site.pf")
	require.NoError(t, os.WriteFile(site, []byte("-db "+e.source+" -1 # the DBA's everyday session\n"), 0o644))
	startup := filepath.Join(e.dir, "startup.pf")
	require.NoError(t, os.WriteFile(startup, []byte("-cpinternal ISO8859-1\n-pf "+site+"\n"), 0o644))
	env := []string{"PROSTARTUP=" + startup}
	counts, before := e.counts(e.source), files(t, filepath.Dir(e.source))

	for _, c := range []struct {
		name string
		args []string
	}{
		{"run", e.runArgs()},
		{"dry run", e.runArgs("--dry-run")},
		// its own work directory: a refused prepare leaves its log there,
		// which a first run does not take for its own
		{"prepare", append(e.prepareArgs(), "--work", filepath.Join(e.dir, "work-prepare"))},
	} {
		name := c.name
		r := e.oedl(env, c.args...)
		assert.Equal(t, 3, r.code, "%s: %s", name, r.stderr)
		assert.Contains(t, r.stderr, "($PROSTARTUP, "+startup+") connects a database ("+site+":1: -db "+e.source+")", name)
		assert.NoFileExists(t, e.target+".db", name)
		recs, _ := journal.Read(filepath.Join(e.work, journal.FileName)) // none yet, or empty
		assert.Empty(t, recs, name)
	}
	e.untouched(e.source, counts, before)

	// A relative -pf is read from each session's own directory (oedl's
	// run in the work directory, scratch directories, the target's): what
	// it connects cannot be told once, so it is refused whatever it holds.
	require.NoError(t, os.WriteFile(filepath.Join(e.dir, "harmless.pf"), []byte("-d dmy\n"), 0o644))
	require.NoError(t, os.WriteFile(startup, []byte("-cpinternal ISO8859-1\n-pf harmless.pf\n"), 0o644))
	r := e.oedl(env, e.runArgs()...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, startup+":2: -pf harmless.pf is a relative name")
	assert.NoFileExists(t, e.target+".db")

	require.NoError(t, os.WriteFile(startup, []byte("-cpinternal ISO8859-1\n-pf "+site+"\n"), 0o644))
	require.NoError(t, os.WriteFile(site, []byte("-d dmy -numsep 46\n"), 0o644))
	r = e.oedl(env, e.runArgs()...)
	require.Equal(t, 0, r.code, r.stderr)
	e.verified()
}
