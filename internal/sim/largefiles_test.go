package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProstrctCreateLargeFiles: on an installation whose databases cannot
// have large files (OESIM_LARGE_FILES=no: 11.x before enablelargefiles,
// 12.0-12.5 under a Workgroup license) prostrct create refuses every
// extent over 2 GiB less 16 blocks (KB P4211: 2,097,024 KB at 8 KB),
// fixed or a variable extent's maximum, naming its line, and creates
// nothing, and prostrct add refuses them as well; the largest size it
// takes is created. oesim's default (12.8) takes them all.
func TestProstrctCreateLargeFiles(t *testing.T) {
	env := newDLC(t)
	w := env.work
	head := "b " + w + "\nd \"Schema Area\":6,64;1 " + w + "\n"
	noLarge := []string{"OESIM_LARGE_FILES=no"}
	for _, tc := range []struct {
		name  string
		env   []string
		st    string
		lines []int // refused lines; nil: created
	}{
		{"the largest extent without large files", noLarge, head + "d \"Data\":7,64;8 " + w + " f 2097024\nd \"Data\":7,64;8 " + w + "\n", nil},
		{"2 GiB exactly", noLarge, head + "d \"Data\":7,64;8 " + w + " f 2097152\nd \"Data\":7,64;8 " + w + "\n", []int{3}},
		{"rounded up to 16 blocks past the limit", noLarge, head + "d \"Data\":7,64;8 " + w + " f 2097025\nd \"Data\":7,64;8 " + w + "\n", []int{3}},
		{"a variable extent's maximum and a BI extent", noLarge,
			"b " + w + " f 3145728\nb " + w + "\nd \"Schema Area\":6,64;1 " + w + "\nd \"Data\":7,64;8 " + w + " v 4194304\n", []int{1, 4}},
		{"12.8 has large files", nil, head + "d \"Data\":7,64;8 " + w + " f 3145728\nd \"Data\":7,64;8 " + w + "\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "new")
			stPath := filepath.Join(dir, "new.st")
			require.NoError(t, os.WriteFile(stPath, []byte(tc.st), 0o644))
			r := env.run(t, tc.env, "", "prostrct", "create", db, stPath, "-blocksize", "8192", "-validate")
			if tc.lines == nil {
				assert.Equal(t, exitOK, r.code, r.out)
				return
			}
			assert.Equal(t, exitFail, r.code, r.out)
			for _, l := range tc.lines {
				assert.Contains(t, r.out, stPath+":"+itoa(l)+": an extent of")
			}
			r = env.run(t, tc.env, "", "prostrct", "create", db, stPath, "-blocksize", "8192")
			assert.Equal(t, exitFail, r.code, r.out)
			assert.NoFileExists(t, db+".db", "nothing created")
		})
	}
	// The largest size is really created (a sparse file: fixed extents are
	// created at full size).
	db := filepath.Join(w, "big")
	stPath := filepath.Join(w, "big.st")
	require.NoError(t, os.WriteFile(stPath, []byte(head+"d \"Data\":7,64;8 "+w+" f 2097024\nd \"Data\":7,64;8 "+w+"\n"), 0o644))
	r := env.run(t, noLarge, "", "prostrct", "create", db, stPath, "-blocksize", "8192")
	require.Equal(t, exitOK, r.code, r.out)
	fi, err := os.Stat(filepath.Join(w, "big_7.d1"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, fi.Size(), int64(2097024)*1024)

	// prostrct add refuses them too, and leaves the database as it was.
	addSt := filepath.Join(w, "add.st")
	require.NoError(t, os.WriteFile(addSt, []byte("d \"More\":8,64;8 "+w+" f 2097152\nd \"More\":8,64;8 "+w+"\n"), 0o644))
	r = env.run(t, noLarge, "", "prostrct", "add", db, addSt)
	assert.Equal(t, exitFail, r.code, r.out)
	assert.Contains(t, r.out, addSt+":1: an extent of 2097152 KB needs large files")
	assert.Contains(t, r.out, "(12867)")
	assert.NoFileExists(t, filepath.Join(w, "big_8.d1"))

	r = env.run(t, []string{"OESIM_LARGE_FILES=maybe"}, "", "prostrct", "create", filepath.Join(w, "x"), stPath, "-validate")
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.out, "OESIM_LARGE_FILES")
}
