package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sysproc"
)

// language is a message file of the fixture's DLC and lines its utilities
// print from it: the proof that they spoke it.
type language struct {
	name    string
	promsgs string // relative to $DLC
	dumped  string // in a dump's log
	loaded  string // in a load's log
	rebuilt string // in idxbuild's log
	closing string // idxbuild's closing line, which has no number
}

// languages are the translations oesim installs, as a real install in
// Brazil or Germany prints them.
var languages = []language{
	{"Portuguese", "prolang/brz/promsgs.brz", "Dump binario completo. (6254)", "Load binario completo. (6256)",
		"índices foram reconstruídos. (11465)", "Recompilação de índice concluída.  0 erro(s) encontrado(s)"},
	{"German", "prolang/ger/promsgs.ger", "Binärer Dump abgeschlossen. (6254)", "Binäres Laden abgeschlossen. (6256)",
		"Indizes wurden neu aufgebaut. (11465)", "Indexneuaufbau abgeschlossen.  0 Fehler aufgetreten."},
}

// speak makes every utility of e's runs print from l's message file.
func (l language) speak(e *env) {
	e.extra = append(e.extra, "PROMSGS="+filepath.Join(e.fx.dlc, filepath.FromSlash(l.promsgs)))
}

// logOf is the first log of work whose name matches pattern.
func logOf(t *testing.T, work, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(work, "logs", pattern))
	require.NoError(t, err)
	require.NotEmpty(t, files, pattern)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	return string(data)
}

// The whole run in another language (PROMSGS): every utility's success,
// counts and failures are read by number and structure, so the run, its
// verify and its report end exactly as in English. --build-indexes makes
// the loads of whole tables print their index build too, and the section
// loads of the threaded dumps leave idxbuild its part.
func TestFullRunInOtherLanguages(t *testing.T) {
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			l.speak(e)
			r := e.oedl(nil, e.runArgs("--build-indexes", "--threaded-dump-min", "64KB", "--dump-jobs", "2")...)
			require.Equal(t, 0, r.code, r.stderr)
			v := e.verified()
			assert.Contains(t, r.stderr, v.After.ShortSum())
			assert.Equal(t, "4 users, 5 grants, 1 view", v.Security.After, "the demo's users and grants, before and after equal")

			// The utilities did speak the language: the logs hold its words.
			assert.Contains(t, logOf(t, e.work, "dump_PUB*"), l.dumped)
			assert.Contains(t, logOf(t, e.work, "load_PUB*"), l.loaded)
			idx := logOf(t, e.work, "idxbuild*")
			assert.Contains(t, idx, l.rebuilt)
			assert.True(t, strings.Contains(idx, l.closing), "the closing line, read by position:\n%s", idx)

			st := e.oedl(nil, "status", "--work", e.work)
			require.Equal(t, 0, st.code, st.stderr)
			rep := e.oedl(nil, "report", "--work", e.work)
			require.Equal(t, 0, rep.code, rep.stderr)
			vr := e.oedl(nil, "verify", "--before", e.work+"/source.tba", "--after", e.work+"/target.tba")
			assert.Equal(t, 0, vr.code, vr.stderr)
			assert.Contains(t, vr.stdout, "MATCH")
		})
	}
}

// kill -9 of oedl while a load runs, then --resume, in another language:
// the resume finds what the killed run left (its journal, the load's
// orphan, the area it was writing) by the journal and message numbers,
// repairs it, loads every table once and ends verified, the target
// counting what the source does.
func TestKillThenResumeInOtherLanguages(t *testing.T) {
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			e := newEnv(t, "sports")
			l.speak(e)
			largest := largestTable(t, e)
			slow := startSlowRun(t, e, largest)
			_, orphan := slow.waitLoadRunning(largest)
			require.NoError(t, slow.cmd.Process.Kill(), "kill -9 of oedl alone")
			<-slow.exited
			st := e.oedl(nil, "status", "--work", e.work)
			assert.Equal(t, 1, st.code, st.stdout)
			assert.Contains(t, st.stdout, "needs a repair", "the killed load's area")
			r := e.oedl(nil, e.runArgs("--resume")...)
			require.Equal(t, 0, r.code, r.stderr)
			sysproc.WaitGone([]sysproc.ID{orphan}, 2*time.Minute)
			e.verified()
			assert.Equal(t, tabanalysCounts(t, e, e.source), tabanalysCounts(t, e, e.target))
			assert.Contains(t, logOf(t, e.work, "load_PUB*"), l.loaded)
		})
	}
}
