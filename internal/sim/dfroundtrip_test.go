package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// Every real .df layout under testdata/df that load_df.p accepts comes
// back from dump_df.p with the same statements and the same properties,
// byte for byte in the file's codepage (DECIMALS 10 stays 10, a LABEL in
// ibm850 keeps its bytes, triggers and VALEXP stay): oedl plans the target
// from that dump. The dump is golden per fixture; what load_df.p refuses
// is golden too, as its DB.e.
func TestDFRoundTrip(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "df", "*.df"))
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for i, fx := range fixtures { // the utilities run in another directory
		fixtures[i], err = filepath.Abs(fx)
		require.NoError(t, err)
	}
	env := newDLC(t)
	for _, fx := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fx), ".df")
		t.Run(name, func(t *testing.T) {
			src := parseDFFile(t, fx)
			dir := t.TempDir()
			db := filepath.Join(dir, "rt")
			st := fmt.Sprintf("b %s\nd \"Schema Area\":6,64;1 %s\n", dir, dir)
			for i, a := range src.AreaNames() {
				st += fmt.Sprintf("d %q:%d,64;8 %s\n", a, i+7, dir)
			}
			require.NoError(t, os.WriteFile(db+".st", []byte(st), 0o644))
			env.ok(t, "prostrct", "create", db, db+".st", "-blocksize", "8192")
			env.ok(t, "procopy", filepath.Join(env.dlc, "empty8"), db)
			r := env.run(t, nil, "", "_progres", "-b", "-db", db, "-1", "-p", "prodict/load_df.p", "-param", fx)
			if r.code != exitOK {
				e, err := os.ReadFile(db + ".e")
				require.NoError(t, err, r.out)
				assertGolden(t, filepath.Join("df-roundtrip", name+".refused"), e)
				return
			}
			out := filepath.Join(t.TempDir(), "dump.df")
			env.ok(t, "_progres", "-b", "-db", db, "-p", "prodict/dump_df.p", "-param", "ALL,"+out+",")
			dumped, err := os.ReadFile(out)
			require.NoError(t, err)
			assertGolden(t, filepath.Join("df-roundtrip", name+".df"), dumped)
			assert.Equal(t, statements(src), statements(parseDFFile(t, out)))
		})
	}
}

func parseDFFile(t *testing.T, path string) *openedge.DF {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d, err := openedge.ParseDF(f, path)
	require.NoError(t, err)
	return d
}

// statements is what a .df defines, one line per statement with its
// properties: the options oesim models as typed (areas, index flags and
// components), then every other option line as written, with the UPDATE
// statements of the file merged into what they update, as load_df.p does
// (a dump writes ENCRYPTION, CIPHER-NAME and BUFFER-POOL so).
func statements(d *openedge.DF) map[string]string {
	opts := map[string][]string{}
	key := map[any]string{}
	for _, s := range d.Sequences() {
		key[s] = "SEQUENCE " + s.Name
		opts[key[s]] = d.OptionLines(s)
	}
	out := map[string]string{}
	for _, t := range d.Tables() {
		key[t] = "TABLE " + t.Name
		opts[key[t]] = d.OptionLines(t)
		for _, f := range t.Fields {
			opts["FIELD "+f.Name+" OF "+t.Name+" AS "+strings.ToLower(f.Type)] = d.OptionLines(f)
		}
		for _, ix := range t.Indexes {
			k := fmt.Sprintf("INDEX %s ON %s unique=%v primary=%v word=%v inactive=%v fields=%v", ix.Name, t.Name,
				ix.Unique, ix.Primary, ix.Word, ix.Inactive, ix.Fields)
			opts[k] = d.OptionLines(ix)
		}
	}
	for _, c := range d.Changes() {
		for k := range opts {
			if c.Verb == "UPDATE" && updates(k, c) {
				opts[k] = append(opts[k], d.OptionLines(c)...)
			}
		}
	}
	for k, lines := range opts {
		var kept []string
		for _, l := range lines {
			w := strings.Fields(l)
			// Areas are compared by the typed views' AreaNames below: a
			// table of a v8 .df without AREA is dumped in "Schema Area".
			if len(w) > 0 && !strings.HasPrefix(k, "SEQUENCE") && (w[0] == "AREA" || w[0] == "LOB-AREA" ||
				strings.HasPrefix(k, "INDEX") && isIndexFlag(w[0])) {
				continue
			}
			kept = append(kept, l)
		}
		out[k] = strings.Join(kept, "\n")
	}
	return out
}

func isIndexFlag(w string) bool {
	switch w {
	case "UNIQUE", "PRIMARY", "WORD", "INACTIVE", "INDEX-FIELD":
		return true
	}
	return false
}

// updates reports whether the UPDATE statement c changes the object of
// statements key k.
func updates(k string, c *openedge.DFChange) bool {
	switch c.Object {
	case "TABLE", "SEQUENCE":
		return k == c.Object+" "+c.Name
	case "FIELD":
		return strings.HasPrefix(k, "FIELD "+c.Name+" OF "+c.Table+" AS ")
	case "INDEX":
		return strings.HasPrefix(k, "INDEX "+c.Name+" ON "+c.Table+" ")
	}
	return false
}
