package openedge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
)

// realWorld is the top-level testdata/: files of our own that reproduce
// layouts seen in public material (where each was seen: its README.md).
const realWorld = "../../testdata"

// realWorldKinds maps a directory of the corpus to what its files are read
// with. Each reader returns what the file means to oedl (or the error that
// names its line), marshalled to testdata/golden/<dir>/<file>.json.
var realWorldKinds = map[string]func(t *testing.T, name string, data []byte) any{
	"tabanalys": realWorldAnalysis,
	"csoutput":  realWorldCSOutput,
}

// TestRealWorldLayouts reads every file of the corpus with its parser and
// compares the result with its golden file (go test -update rewrites
// them). A file that should be refused has its error, with the line it
// names, as golden.
func TestRealWorldLayouts(t *testing.T) {
	seen := 0
	for kind, read := range realWorldKinds {
		root := filepath.Join(realWorld, kind)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(realWorld, path)
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				got, err := json.MarshalIndent(read(t, filepath.ToSlash(rel), data), "", "  ")
				require.NoError(t, err)
				golden.Assert(t, filepath.Join(realWorld, "golden", rel+".json"), append(got, '\n'))
			})
			seen++
			return nil
		})
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, seen, 20, "the corpus holds at least 20 layouts")
	requireNoStaleGoldens(t)
}

// requireNoStaleGoldens fails on a golden file whose fixture is gone.
func requireNoStaleGoldens(t *testing.T) {
	root := filepath.Join(realWorld, "golden")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fixture := filepath.Join(realWorld, strings.TrimSuffix(rel, ".json"))
		if _, err := os.Stat(fixture); err != nil {
			t.Errorf("golden %s has no fixture %s", path, fixture)
		}
		return nil
	})
	require.NoError(t, err)
}

// failure is the golden form of a refused file.
type failure struct {
	Error string `json:"error"`
}

func realWorldAnalysis(t *testing.T, name string, data []byte) any {
	a, err := ParseAnalysis(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	checkWriteParseFixedPoint(t, name, a)
	return a
}

// checkWriteParseFixedPoint: what oesim would print of the report reads
// back to the same tables, in any layout the report came in.
func checkWriteParseFixedPoint(t *testing.T, name string, a *Analysis) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteAnalysis(&buf, a))
	b, err := ParseAnalysis(&buf, name+" (written)")
	require.NoError(t, err)
	require.Equal(t, tableCounts(a), tableCounts(b))
}

func tableCounts(a *Analysis) []string {
	var out []string
	for _, tb := range a.Tables {
		out = append(out, tb.QualifiedName()+"."+tb.Partition+"/"+tb.Tenancy+"="+strconv.FormatInt(tb.Records, 10))
	}
	slices.Sort(out)
	return out
}

func realWorldCSOutput(t *testing.T, name string, data []byte) any {
	a, err := ParseCSTab(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	require.True(t, IsCSTab(data), "%s is recognised as a -csoutput table file by its content", name)
	return a
}
