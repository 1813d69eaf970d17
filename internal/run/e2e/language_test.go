package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole run with Brazilian Portuguese messages (PROMSGS), as a real
// install in Brazil prints them: every utility's success, counts and
// failures are read by number and structure, so the run, its verify and
// its report end exactly as in English. --build-indexes makes the loads
// of whole tables print their index build too, and the section loads of
// the threaded dumps leave idxbuild its part.
func TestFullRunPortuguese(t *testing.T) {
	e := newEnv(t, "sports")
	e.extra = append(e.extra, "PROMSGS="+filepath.Join(e.fx.dlc, "prolang", "brz", "promsgs.brz"))
	r := e.oedl(nil, e.runArgs("--build-indexes", "--threaded-dump-min", "64KB", "--dump-jobs", "2")...)
	require.Equal(t, 0, r.code, r.stderr)
	v := e.verified()
	assert.Contains(t, r.stderr, v.After.ShortSum())
	assert.Equal(t, "4 users, 5 grants, 1 view", v.Security.After, "the demo's users and grants, before and after equal")

	// The utilities did speak Portuguese: the logs hold their words.
	logs := map[string]string{}
	for _, pattern := range []string{"dump_PUB*", "load_PUB*", "idxbuild*"} {
		files, err := filepath.Glob(filepath.Join(e.work, "logs", pattern))
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		data, err := os.ReadFile(files[0])
		require.NoError(t, err)
		logs[pattern] = string(data)
	}
	assert.Contains(t, logs["dump_PUB*"], "Dump binario completo. (6254)")
	assert.Contains(t, logs["load_PUB*"], "Load binario completo. (6256)")
	idx := logs["idxbuild*"]
	assert.Contains(t, idx, "índices foram reconstruídos. (11465)")
	assert.True(t, strings.Contains(idx, "Recompilação de índice concluída.  0 erro(s) encontrado(s)"), "the closing line, read by position:\n%s", idx)

	st := e.oedl(nil, "status", "--work", e.work)
	require.Equal(t, 0, st.code, st.stderr)
	rep := e.oedl(nil, "report", "--work", e.work)
	require.Equal(t, 0, rep.code, rep.stderr)
	vr := e.oedl(nil, "verify", "--before", e.work+"/source.tba", "--after", e.work+"/target.tba")
	assert.Equal(t, 0, vr.code, vr.stderr)
	assert.Contains(t, vr.stdout, "MATCH")
}
