package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestSeqvalsExportLayout: dump_seqvals.p (oedl's, internal/run/abl)
// EXPORTs each sequence's name and value, `"name" value`; oesim wrote
// `name<TAB>value`, a layout no ABL program writes. load_seqvals.p
// IMPORTs that layout back (and still the tab layout an older run's work
// directory holds); the Data Administration's _seqvals.d, whose lines
// start with the sequence number, it refuses as its IMPORT would, naming
// the line.
func TestSeqvalsExportLayout(t *testing.T) {
	env, db := smallDB(t)
	seqs := mustOpenControl(t, db).Sequences
	require.NotEmpty(t, seqs, "the sports database has sequences")
	name := seqs[0].Name
	file := filepath.Join(env.work, "seq.d")
	dump := func() string {
		env.ok(t, "_progres", "-b", "-db", db, "-p", "dump_seqvals.p", "-param", file)
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		return string(b)
	}
	out := dump()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.Regexp(t, regexp.MustCompile(`^"[^"]+" -?\d+$`), l, "EXPORT: the name quoted, a space, the value")
	}
	vals, err := openedge.ParseSeqvals(strings.NewReader(out), file)
	require.NoError(t, err)
	assert.Len(t, vals, len(seqs))

	for _, tc := range []struct{ layout, text string }{
		{"EXPORT", `"` + name + `" 4242` + "\n"},
		{"oesim's older tab layout", name + "\t4343\n"},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			require.NoError(t, os.WriteFile(file, []byte(tc.text), 0o644))
			env.ok(t, "_progres", "-b", "-db", db, "-p", "load_seqvals.p", "-param", file)
			want := strings.Fields(tc.text)[1]
			assert.Contains(t, dump(), `"`+name+`" `+want+"\n")
		})
	}
	t.Run("_seqvals.d refused", func(t *testing.T) {
		require.NoError(t, os.WriteFile(file, []byte(`0 "`+name+`" 1`+"\n.\nPSC\ncpstream=UTF-8\n.\n0000000000\n"), 0o644))
		r := env.run(t, nil, "", "_progres", "-b", "-db", db, "-p", "load_seqvals.p", "-param", file)
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.out, file+":1:")
	})
}
