package estimate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckScratch: calibrate clears WORK/calibrate only when all it holds
// is an earlier calibration's, and none of the paths it is given lies in
// it (safety trial 6: a calibrate.log there was proof enough, and the
// source kept beside it was removed).
func TestCheckScratch(t *testing.T) {
	earlier := []string{"calibrate.log", "batch.lst", "dump/PUB.a/a.bd", "dump2/", "load3/1/", "scratch0/scratch.db", "sort/", "extentvar/", "batch5/"}
	cases := []struct {
		name  string
		files []string // under WORK/calibrate; a trailing / is a directory
		keep  []string // under WORK
		want  string   // "" for allowed
	}{
		{"none yet", nil, nil, ""},
		{"an earlier calibration's", earlier, []string{"src/prod.db", "plan"}, ""},
		{"no calibrate.log", []string{"notes.txt"}, nil, "no calibrate.log"},
		{"a DBA's notes beside it", append([]string{"notes.txt"}, earlier...), nil, "(notes.txt)"},
		{"a database copied beside it", append([]string{"mydb/prod.db", "prod.d1"}, earlier...), nil, "(mydb, prod.d1)"},
		{"a link beside it", []string{"calibrate.log", "dump@"}, nil, "(dump)"},
		{"the source in it", earlier, []string{"calibrate/dump/prod.db"}, "calibrate/dump/prod.db is inside"},
		{"the plan in it", earlier, []string{"calibrate/scratch0"}, "calibrate/scratch0 is inside"},
		{"the source beside, a name alike", earlier, []string{"calibrate2/prod.db"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(work, ScratchDir, f)
				switch {
				case f[len(f)-1] == '/':
					require.NoError(t, os.MkdirAll(p, 0o755))
				case f[len(f)-1] == '@':
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.Symlink(work, p[:len(p)-1]))
				default:
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
				}
			}
			var keep []string
			for _, k := range tc.keep {
				keep = append(keep, filepath.Join(work, k))
			}
			err := CheckScratch(work, keep...)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A path given through a link that leads into the scratch is inside it:
// the check compares physical paths, as the removal would reach them.
func TestCheckScratchFollowsLinks(t *testing.T) {
	work := t.TempDir()
	scratch := filepath.Join(work, ScratchDir)
	require.NoError(t, os.MkdirAll(filepath.Join(scratch, "dump"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(scratch, "calibrate.log"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(scratch, "dump"), filepath.Join(work, "prod")))

	err := CheckScratch(work, filepath.Join(work, "prod", "prod.db"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is inside")

	// ".." after a link goes up from the link's target, as the kernel goes.
	err = CheckScratch(work, work+"/prod/../prod.db") // not filepath.Join: it would clean the ".." away
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is inside")
}
