package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An earlier demo's directory is cleared only of what a demo makes
// (safety trial 11: a database copied into DIR/db/mine and notes in
// DIR/plan were removed by the next oedl demo).
func TestDemoClearsOnlyWhatADemoMakes(t *testing.T) {
	tests := []struct {
		name  string
		extra string // a file someone put there since; "" for none
		want  string
	}{
		{name: "an earlier demo alone is cleared"},
		{name: "a database copied into db/", extra: "db/mine/prod.db", want: "db/mine"},
		{name: "someone's file beside the generated source", extra: "db/source/notes.txt", want: "db/source/notes.txt"},
		{name: "notes in plan/", extra: "plan/NOTES.md", want: "NOTES.md, which no plan writes"},
		{name: "a file in work/", extra: "work/mine.txt", want: "work/mine.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := []string{demoMarker, "db/source/sports.db", "db/source/sports_8.d1", "db/target/sports.oedl.json",
				"plan/plan.json", "plan/target.st", "work/journal.jsonl", "work/logs/run.log", "dlc/bin/oesim"}
			if tt.extra != "" {
				files = append(files, tt.extra)
			}
			for _, f := range files {
				p := filepath.Join(dir, f)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
			}
			err := prepareDemoDir(dir)
			if tt.want == "" {
				require.NoError(t, err)
				for _, sub := range []string{"db", "plan", "work"} {
					assert.NoDirExists(t, filepath.Join(dir, sub))
				}
				assert.FileExists(t, filepath.Join(dir, "dlc/bin/oesim"), "installed over, not cleared")
				return
			}
			require.Error(t, err)
			assert.Equal(t, 2, exitCode(err), err)
			assert.Contains(t, err.Error(), tt.want)
			for _, f := range files {
				assert.FileExists(t, filepath.Join(dir, f), "nothing removed")
			}
		})
	}
}
