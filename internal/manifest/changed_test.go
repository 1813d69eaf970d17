package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record proves a kept target only file by file: each entry named,
// stamped, present, and the same device and inode.
func TestRecordChanged(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		extra  string // an entry the record does not name
		want   []string
	}{
		{name: "untouched", change: func(*testing.T, string) {}},
		{name: "written in place is the same file", change: func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new_7.d1"), []byte("records"), 0o644))
		}},
		{name: "removed", change: func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, "tgt/new_7.d1")))
		}, want: []string{"tgt/new_7.d1 is missing"}},
		{name: "replaced by another file", change: func(t *testing.T, root string) {
			p := filepath.Join(root, "tgt/new.db")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.WriteFile(p, []byte("other"), 0o644))
		}, want: []string{"tgt/new.db is another file than the one made"}},
		{name: "an entry the record does not name", change: func(*testing.T, string) {}, extra: "tgt/new_8.d1",
			want: []string{"tgt/new_8.d1 is not named in new.oedl.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, "tgt/new.db", "tgt/new_7.d1", "tgt/new_8.d1")
			var entries []Entry
			for _, n := range []string{"tgt/new.db", "tgt/new_7.d1"} {
				p := filepath.Join(root, n)
				entries = append(entries, Entry{Path: p, Resolved: p})
			}
			rec := NewRecord(filepath.Join(root, "tgt/new"), "/work", entries)
			require.NoError(t, rec.Stamp(OS{}))
			if tt.extra != "" {
				p := filepath.Join(root, tt.extra)
				entries = append(entries, Entry{Path: p, Resolved: p})
			}
			tt.change(t, root)
			why, err := rec.Changed(OS{}, entries)
			require.NoError(t, err)
			require.Len(t, why, len(tt.want), "%v", why)
			for i, w := range tt.want {
				assert.Contains(t, why[i], filepath.Join(root, w))
			}
		})
	}
}

// A file the record names but never stamped (a .lk, there only while the
// database is open) proves the target untouched only while absent.
func TestRecordChangedUnstamped(t *testing.T) {
	root := tree(t, "tgt/new.db")
	p := filepath.Join(root, "tgt/new.lk")
	rec := NewRecord(filepath.Join(root, "tgt/new"), "/work", []Entry{{Path: p, Resolved: p}})
	require.NoError(t, rec.Stamp(OS{}))
	why, err := rec.Changed(OS{}, []Entry{{Path: p, Resolved: p}})
	require.NoError(t, err)
	assert.Empty(t, why, "absent, as its maker left it")
	require.NoError(t, os.WriteFile(p, []byte("1234"), 0o644))
	why, err = rec.Changed(OS{}, []Entry{{Path: p, Resolved: p}})
	require.NoError(t, err)
	require.Len(t, why, 1)
	assert.Contains(t, why[0], "its maker left none")
}
