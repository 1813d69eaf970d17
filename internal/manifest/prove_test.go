package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proveST is the target's structure; DATA stands for the data directory.
const proveST = "b .\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 DATA\n"

// layout: a source prod in src/ (with an extent in data/), another
// database in other/, and the target's directory tgt/.
var proveTree = []string{
	"src/prod.db", "src/prod.b1", "src/prod.d1", "data/prod_7.d1", "src/prod.st",
	"other/prod.db", "other/prod.b1", "tgt/", "ln/src -> /src", "ln/other -> /other",
}

func sourceOf(t *testing.T, root string) *Files {
	t.Helper()
	st := parseST(t, "b prod.b1\nd \"Schema Area\":6,64;1 prod.d1\nd \"Data\":7,64;8 "+root+"/data/prod_7.d1\n")
	f, err := ExistingDatabase(OS{}, "source", filepath.Join(root, "src", "prod"), st)
	require.NoError(t, err)
	return f
}

func entriesOf(t *testing.T, root, dir, name string) []Entry {
	t.Helper()
	db := filepath.Join(root, dir, name)
	e, err := NewDatabase(OS{}, db, parseST(t, strings.Replace(proveST, "DATA", filepath.Join(root, "data"), 1)), filepath.Join(root, dir))
	require.NoError(t, err)
	r, err := Resolve(OS{}, RecordPath(db))
	require.NoError(t, err)
	return append(e, Entry{Path: RecordPath(db), Resolved: r, What: "the record"})
}

func conflicts(t *testing.T, err error) []Conflict {
	t.Helper()
	var ce *ConflictError
	require.True(t, errors.As(err, &ce), "a conflict: %v", err)
	return ce.Conflicts
}

func TestProveRefusesWhatExists(t *testing.T) {
	root := tree(t, proveTree...)
	src := sourceOf(t, root)
	rules := func() Rules { return Rules{Protected: []*Files{src}, Target: filepath.Join(root, "tgt", "prod")} }

	found, err := Prove(OS{}, entriesOf(t, root, "tgt", "new"), rules())
	require.NoError(t, err, "a new name: nothing in the way")
	assert.Empty(t, found)

	// The README's pattern gone wrong: the data directory holds the
	// source's extents and the target has the source's name.
	cs := conflicts(t, func() error { _, err := Prove(OS{}, entriesOf(t, root, "tgt", "prod"), rules()); return err }())
	require.Len(t, cs, 1)
	assert.True(t, cs[0].Source)
	assert.Equal(t, filepath.Join(root, "data", "prod_7.d1"), cs[0].Path)

	t.Run("the source's directory through a link", func(t *testing.T) {
		err := func() error { _, err := Prove(OS{}, entriesOf(t, root, "ln/src", "prod"), rules()); return err }()
		cs := conflicts(t, err)
		require.NotEmpty(t, cs)
		assert.True(t, cs[0].Source)
		assert.Equal(t, filepath.Join(root, "ln/src/prod.db"), cs[0].Path)
		assert.Equal(t, filepath.Join(root, "src/prod.db"), cs[0].Resolved)
		assert.Equal(t, "the source's prod.db", cs[0].Is)
		assert.Contains(t, err.Error(), "data/prod_7.d1 (extent 1 of area \"Data\", target.st:3) is the source's extent 1 of area \"Data\"")
	})
	t.Run("a hard link to the source's extent", func(t *testing.T) {
		dir := filepath.Join(root, "hard")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.Link(filepath.Join(root, "src/prod.b1"), filepath.Join(dir, "new.b1")))
		cs := conflicts(t, func() error { _, err := Prove(OS{}, entriesOf(t, root, "hard", "new"), rules()); return err }())
		require.Len(t, cs, 1)
		assert.True(t, cs[0].Source)
		assert.Equal(t, "the source's before-image extent 1", cs[0].Is)
	})
	t.Run("another database", func(t *testing.T) {
		cs := conflicts(t, func() error { _, err := Prove(OS{}, entriesOf(t, root, "ln/other", "prod"), rules()); return err }())
		require.Len(t, cs, 3, "its .db and .b1, and the source's extent in the data directory")
		assert.False(t, cs[0].Source)
		assert.True(t, cs[2].Source)
		assert.Equal(t, "a file of another database, "+filepath.Join(root, "other/prod"), cs[0].Is)
	})
	t.Run("a dangling link where a file goes", func(t *testing.T) {
		dir := filepath.Join(root, "dangle")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.Symlink(filepath.Join(root, "src", "gone.d1"), filepath.Join(dir, "new.d1")))
		cs := conflicts(t, func() error { _, err := Prove(OS{}, entriesOf(t, root, "dangle", "new"), rules()); return err }())
		require.Len(t, cs, 1)
		assert.Contains(t, cs[0].Is, "a symbolic link")
	})
}

// made creates the files of entries as a run would, and its stamped record.
func made(t *testing.T, entries []Entry, target, work string) *Record {
	t.Helper()
	var files []Entry
	for _, e := range entries {
		if e.What == "the record" || filepath.Ext(e.Path) == SuffixLock {
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(e.Resolved), 0o755))
		require.NoError(t, os.WriteFile(e.Resolved, []byte("made"), 0o644))
		files = append(files, e)
	}
	rec := NewRecord(target, work, files)
	require.NoError(t, rec.Stamp(OS{}))
	require.NoError(t, rec.Write(RecordPath(target)))
	return rec
}

func TestProveReplacesOnlyWhatTheRecordProves(t *testing.T) {
	root := tree(t, proveTree...)
	src := sourceOf(t, root)
	target := filepath.Join(root, "tgt", "new")
	entries := entriesOf(t, root, "tgt", "new")
	rec := made(t, entries, target, "/work/a")
	back, err := ReadRecord(OS{}, RecordPath(target))
	require.NoError(t, err)
	assert.Equal(t, rec, back)
	extra := filepath.Join(root, "tgt", "new_9.d1") // an extent of the earlier plan, not of this one
	require.NoError(t, os.WriteFile(extra, nil, 0o644))
	fi, err := os.Lstat(extra)
	require.NoError(t, err)
	id, _ := IDOf(fi)
	rec.Files = append(rec.Files, RecordFile{Path: extra, What: "extent 1 of area \"Old\"", ID: &id})
	require.NoError(t, rec.Write(RecordPath(target)))

	rules := Rules{Protected: []*Files{src}, Target: target, Record: rec, Work: "/work/b"}
	cs := conflicts(t, func() error { _, err := Prove(OS{}, entries, rules); return err }())
	assert.Contains(t, cs[0].Is, "an earlier oedl run made (give --force to replace it)")

	rules.Replace = true
	found, err := Prove(OS{}, entries, rules)
	require.NoError(t, err)
	var got []string
	for _, f := range found {
		got = append(got, filepath.Base(f.Resolved))
	}
	assert.Equal(t, []string{"new.db", "new.lg", "new.b1", "new.d1", "new_7.d1", "new.oedl.json", "new_9.d1"}, got)

	t.Run("a file replaced since", func(t *testing.T) {
		b1 := filepath.Join(root, "tgt", "new.b1")
		require.NoError(t, os.Remove(b1))
		require.NoError(t, os.WriteFile(b1, []byte("someone else's"), 0o644))
		cs := conflicts(t, func() error { _, err := Prove(OS{}, entries, rules); return err }())
		require.Len(t, cs, 1)
		assert.Contains(t, cs[0].Is, "its oedl record does not prove")
		assert.Error(t, Remove(found), "Remove checks each file again")
		assert.FileExists(t, b1, "and leaves the changed one alone")
	})
	t.Run("a record of another target", func(t *testing.T) {
		r := rules
		r.Target = filepath.Join(root, "tgt", "other")
		_, err := Prove(OS{}, entries, r)
		require.Error(t, err)
	})
	t.Run("named without identity: only the run that wrote the record", func(t *testing.T) {
		r := rules
		r.Record = rec.without(func(RecordFile) bool { return true })
		_, err := Prove(OS{}, entries, r)
		require.Error(t, err, "another run")
		r.Work = "/work/a"
		_, err = Prove(OS{}, entries, r)
		require.NoError(t, err, "the same run")
	})
	t.Run("the run's own record: the control area by name, every extent by identity", func(t *testing.T) {
		// Safety trial 5: another database's file given an extent's name
		// (a hard link) is not the run's, though the record names the
		// path; the control area written anew (oesim) still is.
		db := filepath.Join(root, "tgt", "new.db") // already removed above: a new file either way
		_ = os.Remove(db)
		require.NoError(t, os.WriteFile(db, []byte("written anew"), 0o644))
		d7 := filepath.Join(root, "data", "new_7.d1")
		require.NoError(t, os.Remove(d7))
		require.NoError(t, os.Link(filepath.Join(root, "other", "prod.b1"), d7))
		r := rules
		r.Record, r.Work = rec.ForOwnRun(), "/work/a"
		cs := conflicts(t, func() error { _, err := Prove(OS{}, entries, r); return err }())
		var in []string
		for _, c := range cs {
			in = append(in, filepath.Base(c.Resolved))
		}
		assert.Contains(t, in, "new_7.d1")
		assert.NotContains(t, in, "new.db")
	})
}

func TestRemove(t *testing.T) {
	root := tree(t, proveTree...)
	target := filepath.Join(root, "tgt", "new")
	entries := entriesOf(t, root, "tgt", "new")
	rec := made(t, entries, target, "/work/a")
	found, err := Prove(OS{}, entries, Rules{Target: target, Record: rec, Replace: true})
	require.NoError(t, err)
	require.NoError(t, Remove(found))
	for _, e := range entries {
		assert.NoFileExists(t, e.Resolved)
	}
	assert.FileExists(t, filepath.Join(root, "src", "prod.db"))
	assert.NoError(t, Remove(found), "what is gone already is not an error")
}

// TestStamped: a record proves identities once any file is stamped; one
// written before the stamp (every file named, none stamped) does not.
func TestStamped(t *testing.T) {
	id := ID{Dev: 1, Ino: 2}
	assert.False(t, (&Record{Files: []RecordFile{{Path: "/t/db.db"}, {Path: "/t/db.d1"}}}).Stamped())
	assert.True(t, (&Record{Files: []RecordFile{{Path: "/t/db.db"}, {Path: "/t/db.d1", ID: &id}}}).Stamped())
	assert.False(t, (&Record{}).Stamped())
}

// Safety trial 7: a .st path that does not exist yet but carries a name
// of another database's own files beside its DB.db: the source's .lk
// (absent while it is shut down) was made a directory for an extent, and
// the source's broker no longer started. Refused, as the file itself or
// as a directory to be made on its way, and said to be the source's when
// it is.
func TestProveRefusesAnotherDatabasesNames(t *testing.T) {
	root := tree(t, proveTree...)
	src := sourceOf(t, root)
	rules := Rules{Protected: []*Files{src}, Target: filepath.Join(root, "tgt", "new")}
	for _, c := range []struct {
		name, path string // the .st path of the extent
		source     bool
		is         string
	}{
		{"the source's lock file as a directory", "src/prod.lk", true, "to be made in the new directory " + filepath.Join(root, "src/prod.lk") + ","},
		{"the source's log as an extent file", "src/prod.lg/", true, "to be made in the new directory"},
		{"an extent name the source does not use yet", "src/prod_9.d1", true, "named as a file of the source (prod_9.d1"},
		{"another database's .st", "other/prod.st", false, "as a file of the database " + filepath.Join(root, "other", "prod") + " (prod.st"},
		{"another database's lock, through a link", "ln/other/prod.lk/", false, "as a file of the database " + filepath.Join(root, "other", "prod") + " (prod.lk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := parseST(t, "b .\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 "+filepath.Join(root, c.path)+"\n")
			entries, err := NewDatabase(OS{}, rules.Target, st, filepath.Join(root, "tgt"))
			require.NoError(t, err)
			_, err = Prove(OS{}, entries, rules)
			cs := conflicts(t, err)
			require.Len(t, cs, 1)
			assert.Equal(t, c.source, cs[0].Source)
			assert.Contains(t, cs[0].Is, c.is)
			// Nothing is there yet: the message says what it is.
			assert.NotContains(t, err.Error(), "already exist")
			assert.Contains(t, err.Error(), "does not exist yet but has the name of another database's file")
		})
	}
	t.Run("one there and one under another database's name", func(t *testing.T) {
		st := parseST(t, "b .\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 "+filepath.Join(root, "src/prod.lk")+
			"\nd \"More\":8,64;8 "+filepath.Join(root, "src", "prod.d1")+"\n")
		entries, err := NewDatabase(OS{}, rules.Target, st, filepath.Join(root, "tgt"))
		require.NoError(t, err)
		_, err = Prove(OS{}, entries, rules)
		require.Len(t, conflicts(t, err), 2)
		assert.Contains(t, err.Error(), "2 files the run would create are in the way (there already: 1; not there yet but named as another database's files: 1)")
	})
	t.Run("the target's own names", func(t *testing.T) {
		st := parseST(t, "b .\nd \"Schema Area\":6,64;1 .\nd \"Data\":7,64;8 "+filepath.Join(root, "tgt", "new_7.d1")+"\n")
		entries, err := NewDatabase(OS{}, rules.Target, st, filepath.Join(root, "tgt"))
		require.NoError(t, err)
		_, err = Prove(OS{}, entries, rules)
		assert.NoError(t, err)
	})
}
