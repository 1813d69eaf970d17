package manifest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record proves a target unchanged since its run left it only while
// every file still there is the one stamped, with the size and times
// stamped (force-live: a DBA went live on a verified target, shut it down,
// and --force replaced it, its identities unchanged).
func TestUnchangedSinceLeft(t *testing.T) {
	old := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		name   string
		change func(t *testing.T, root string, rec *Record)
		want   string // in the error; "" for none
	}{
		{name: "untouched", change: func(*testing.T, string, *Record) {}},
		{name: "a broker wrote its log", change: func(t *testing.T, root string, _ *Record) {
			f, err := os.OpenFile(filepath.Join(root, "tgt/new.lg"), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString("(333) Multi-user session begin.\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, want: "tgt/new.lg changed since the oedl run in /work left it at"},
		{name: "its log grew, said as such", change: func(t *testing.T, root string, _ *Record) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new.lg"), []byte("lg\nmore"), 0o644))
		}, want: "its log grew (a broker or a session opened the database): 2 -> 7 bytes"},
		{name: "an extent written in place, same size", change: func(t *testing.T, root string, _ *Record) {
			require.NoError(t, os.Chtimes(filepath.Join(root, "tgt/new_7.d1"), old, old))
		}, want: "tgt/new_7.d1 changed since the oedl run in /work left it at"},
		{name: "modification time put back, change time tells", change: func(t *testing.T, root string, rec *Record) {
			// The kernel sets ctime on every write and utimensat; the
			// test cannot wait for its clock to tick, so the record holds
			// the earlier ctime such a change leaves behind.
			rec.file(filepath.Join(root, "tgt/new.db")).State.Ctime--
		}, want: "inode changed"},
		{name: "a file removed proves nothing used", change: func(t *testing.T, root string, _ *Record) {
			require.NoError(t, os.Remove(filepath.Join(root, "tgt/new_7.d1")))
		}},
		{name: "another file at the name is the proof's to refuse", change: func(t *testing.T, root string, _ *Record) {
			p := filepath.Join(root, "tgt/new_7.d1")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.WriteFile(p, []byte("other, longer"), 0o644))
		}},
		{name: "a record of an older oedl", change: func(_ *testing.T, _ string, rec *Record) {
			for i := range rec.Files {
				rec.Files[i].State = nil
			}
			rec.Left = nil
		}, want: "records no size or times of"},
		{name: "a run that never ended", change: func(_ *testing.T, _ string, rec *Record) { rec.Left = nil },
			want: "the run in /work that made it never ended"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, "tgt/new_7.d1")
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new.db"), []byte("db"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new.lg"), []byte("lg"), 0o644))
			var entries []Entry
			for _, n := range []string{"tgt/new.db", "tgt/new.lg", "tgt/new_7.d1", "tgt/new.lk"} {
				p := filepath.Join(root, n)
				entries = append(entries, Entry{Path: p, Resolved: p})
			}
			rec := NewRecord(filepath.Join(root, "tgt/new"), "/work", entries)
			require.NoError(t, rec.Stamp(OS{}))
			rec.Leave()
			tt.change(t, root, rec)
			err := rec.UnchangedSinceLeft(OS{})
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var nl *NotLeftError
			require.ErrorAs(t, err, &nl)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A stamp records each file's size and times besides its identity, and
// the record keeps them (JSON), with when its run left the target.
func TestStampRecordsState(t *testing.T) {
	root := tree(t, "tgt/new_7.d1")
	p := filepath.Join(root, "tgt/new_7.d1")
	rec := NewRecord(filepath.Join(root, "tgt/new"), "/work", []Entry{{Path: p, Resolved: p}})
	require.NoError(t, rec.Stamp(OS{}))
	assert.Nil(t, rec.Left, "a stamp alone is not the end of the run's writes")
	rec.Leave()
	path := RecordPath(rec.Target)
	require.NoError(t, rec.Write(path))
	back, err := ReadRecord(OS{}, path)
	require.NoError(t, err)
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	require.NotNil(t, back.Files[0].State)
	assert.Equal(t, StateOf(fi), *back.Files[0].State)
	assert.NotZero(t, back.Files[0].State.Ctime)
	require.NotNil(t, back.Left)
	assert.True(t, back.Left.Equal(*rec.Left))
}

// A resume of the run that made the target, once an invocation of it left
// the target, takes any change since as someone else's, a file put anew at
// a recorded name included (safety trial 11: oesim writes the control area
// anew when a DBA's session changes a sequence; UnchangedSinceLeft leaves
// such a file to the proof, which a resume's own record proves by name).
func TestUntouchedSinceOwnRunLeft(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   string
	}{
		{name: "untouched", change: func(*testing.T, string) {}},
		{name: "the control area written anew", change: func(t *testing.T, root string) {
			p := filepath.Join(root, "tgt/new.db")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.WriteFile(p, []byte("db"), 0o644))
		}, want: "tgt/new.db is another file than the one the oedl run in /work left there at"},
		{name: "an extent that is another file is the proof's to refuse", change: func(t *testing.T, root string) {
			p := filepath.Join(root, "tgt/new_7.d1")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.WriteFile(p, nil, 0o644))
		}},
		{name: "an extent written in place", change: func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new_7.d1"), []byte("records"), 0o644))
		}, want: "tgt/new_7.d1 changed since the oedl run in /work left it at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, "tgt/new_7.d1")
			require.NoError(t, os.WriteFile(filepath.Join(root, "tgt/new.db"), []byte("db"), 0o644))
			var entries []Entry
			for _, n := range []string{"tgt/new.db", "tgt/new_7.d1"} {
				p := filepath.Join(root, n)
				entries = append(entries, Entry{Path: p, Resolved: p})
			}
			rec := NewRecord(filepath.Join(root, "tgt/new"), "/work", entries)
			require.NoError(t, rec.Stamp(OS{}))
			rec.Leave()
			tt.change(t, root)
			if tt.name == "the control area written anew" {
				require.NoError(t, rec.UnchangedSinceLeft(OS{}), "--force leaves another file to the proof")
			}
			err := rec.UntouchedSinceOwnRunLeft(OS{})
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var nl *NotLeftError
			require.ErrorAs(t, err, &nl)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
