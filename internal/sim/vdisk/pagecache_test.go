package vdisk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A block read through the page cache costs the device one waited request
// the first time any process of the device reads it, nothing after; a
// private device, which remembers nothing across processes, reads it
// every time; a device that is off touches no file.
func TestCachedRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "db.db")
	require.NoError(t, os.WriteFile(file, make([]byte, 8192), 0o644))
	same := filepath.Join(filepath.Dir(file), "again.db")
	require.NoError(t, os.Link(file, same)) // one inode, two names

	t.Run("shared", func(t *testing.T) {
		dir := t.TempDir()
		proc := func() (*Disk, *fakeClock) { // one utility call
			clock := &fakeClock{now: t0}
			return New(Config{IOPS: 1000, StateDir: dir, Clock: clock, Quantum: -1, LatencyMs: 5}), clock
		}
		first, c1 := proc()
		require.NoError(t, first.CachedRead(file, 0, 8192))
		require.NoError(t, first.CachedRead(file, 0, 8192))
		require.NoError(t, first.Close())
		assert.Equal(t, []time.Duration{5 * time.Millisecond}, c1.sleeps, "one device request, waited for")

		second, c2 := proc()
		require.NoError(t, second.CachedRead(same, 0, 8192))
		require.NoError(t, second.Close())
		assert.Empty(t, c2.sleeps, "another process finds the block in the cache, under any of the file's names")

		third, c3 := proc()
		require.NoError(t, third.CachedRead(file, 8192, 8192))
		require.NoError(t, third.Close())
		assert.Len(t, c3.sleeps, 1, "another block of the file is not cached")

		raw, err := os.ReadFile(filepath.Join(dir, DiskstatsFile))
		require.NoError(t, err)
		f := strings.Fields(string(raw))
		require.Len(t, f, 14)
		assert.Equal(t, []string{DiskstatsName, "2", "0", "32"}, f[2:6], "two reads of 16 sectors reached the device")
	})
	t.Run("private", func(t *testing.T) {
		d, clock := exact(t, Config{IOPS: 1000})
		require.NoError(t, d.CachedRead(file, 0, 8192))
		require.NoError(t, d.CachedRead(file, 0, 8192))
		assert.Equal(t, []time.Duration{time.Millisecond, 2 * time.Millisecond}, clock.sleeps)
	})
	t.Run("off", func(t *testing.T) {
		dir := t.TempDir()
		d := New(Config{StateDir: dir})
		require.NoError(t, d.CachedRead(file, 0, 8192))
		require.NoError(t, d.Close())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries)
	})
	t.Run("missing file", func(t *testing.T) {
		d := New(Config{IOPS: 1000, StateDir: t.TempDir(), Clock: &fakeClock{now: t0}})
		assert.Error(t, d.CachedRead(filepath.Join(t.TempDir(), "gone.db"), 0, 8192))
	})
}
