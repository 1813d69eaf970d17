package plan

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oedl/oedl/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden renders every profile's plan directory and compares each file
// with testdata/golden/<profile>/. Run with -update after a deliberate
// change and review the diff: it is the plan a DBA would read.
func TestGolden(t *testing.T) {
	tiny := tinyTables(10_000)
	tiny.name, tiny.goldenFiles = "tiny10k", []string{FileStructure, FilePF}
	for _, p := range append(profiles(), tiny) {
		t.Run(p.name, func(t *testing.T) {
			in, df := p.input(t)
			pl, err := Make(in, p.options())
			require.NoError(t, err)
			files, err := Render(pl, df)
			require.NoError(t, err)
			dir := filepath.Join("testdata", "golden", p.name)
			if golden.Update() {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			for _, f := range files {
				if p.goldenFiles != nil && !slices.Contains(p.goldenFiles, f.Name) {
					continue
				}
				path := filepath.Join(dir, f.Name)
				if golden.Update() {
					require.NoError(t, os.WriteFile(path, f.Data, 0o644))
					continue
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "golden file missing: run go test ./internal/plan -run TestGolden -update")
				assert.Equal(t, string(want), string(f.Data), "%s differs from %s", f.Name, path)
			}
		})
	}
}
