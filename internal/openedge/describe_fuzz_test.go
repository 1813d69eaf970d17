package openedge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseDescribe: no panic; a description read has positive figures
// (a zero would be compared as if it were the database's); reading is
// deterministic.
func FuzzParseDescribe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(realWorld, "describe", "*.out"))
	files = append(files, filepath.Join("testdata", "messages", "describe_11.7.out"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, out string) {
		d, err := ParseDescribe(out)
		if err != nil {
			return
		}
		require.Positive(t, d.BlockSize)
		require.Positive(t, d.BIBlockSize)
		require.Positive(t, d.BIClusterKB)
		require.GreaterOrEqual(t, d.AIBlockSize, 0)
		again, err := ParseDescribe(out)
		require.NoError(t, err)
		require.Equal(t, d, again)
	})
}
