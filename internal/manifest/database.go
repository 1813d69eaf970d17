package manifest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// Files is a set of existing files, by identity and by resolved path, each
// with what it is: the files of a database a run must never write.
type Files struct {
	Name   string        // "the source /db/prod", for messages
	byID   map[ID]string // by device and inode: any link to the file is the file
	byPath map[string]string
}

// Lookup says what the file with this identity (or, when the view gives
// none, this resolved path) is in the set.
func (f *Files) Lookup(id ID, hasID bool, resolved string) (string, bool) {
	if f == nil {
		return "", false
	}
	if hasID {
		if w, ok := f.byID[ID{Dev: id.Dev, Ino: id.Ino}]; ok {
			return w, true
		}
	}
	w, ok := f.byPath[resolved]
	return w, ok
}

// Len is the number of files in the set.
func (f *Files) Len() int {
	if f == nil {
		return 0
	}
	return len(f.byPath)
}

func (f *Files) add(view FS, path, what string) error {
	r, err := Resolve(view, path)
	if err != nil {
		return err
	}
	fi, ok, err := stat(view, r)
	if err != nil || !ok || fi.IsDir() {
		return err
	}
	if _, dup := f.byPath[r]; dup {
		return nil
	}
	f.byPath[r] = what
	if id, ok := IDOf(fi); ok {
		f.byID[id] = what
	}
	return nil
}

// dbFileName matches the names of a database's own files: DB.db, .lg,
// .lk, .st, DB.bN, DB.dN, DB.aN, DB.tN, DB_A.dN. Group 1 is DB.
var dbFileName = regexp.MustCompile(`^(.+?)(\.db|\.lg|\.lk|\.st|\.[abdt][0-9]+|_[0-9]+\.d[0-9]+)$`)

// ExistingDatabase collects the files of the existing database db: its
// control area, log, lock and .st, every extent st names (st is the
// database's structure as `prostrct list` writes it, relative paths from
// db's directory; nil when unknown), and every file named like one of
// the database's files in db's directory and in the directories of its
// extents. name says what the database is in messages ("the source").
func ExistingDatabase(view FS, name, db string, st *openedge.Structure) (*Files, error) {
	db = filepath.Clean(strings.TrimSuffix(db, SuffixControl))
	f := &Files{Name: fmt.Sprintf("%s %s", name, db), byID: map[ID]string{}, byPath: map[string]string{}}
	base := filepath.Base(db)
	dirs := []string{filepath.Dir(db)}
	for _, s := range []string{SuffixControl, SuffixLog, SuffixLock, ".st"} {
		if err := f.add(view, db+s, fmt.Sprintf("the %s's %s", name, base+s)); err != nil {
			return nil, err
		}
	}
	if st != nil {
		for _, a := range st.Areas {
			for i, e := range a.Extents {
				p := e.FileOf(db)
				what := fmt.Sprintf("the %s's %s", name, extentLabel(a, i+1))
				if err := f.add(view, p, what); err != nil {
					return nil, err
				}
				dirs = append(dirs, filepath.Dir(p))
			}
		}
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		entries, err := view.ReadDir(d)
		if err != nil {
			continue // a directory of the structure that is gone holds nothing to protect
		}
		for _, e := range entries {
			if m := dbFileName.FindStringSubmatch(e.Name()); m != nil && m[1] == base {
				if err := f.add(view, filepath.Join(d, e.Name()), fmt.Sprintf("the %s's %s", name, e.Name())); err != nil {
					return nil, err
				}
			}
		}
	}
	return f, nil
}

// DatabaseNamed is the database beside path whose own file path is named
// as (its DB.db exists there: prod.lk, prod.lg, prod.st, prod_9.d1 beside
// prod.db), "" when none: a file or directory made at that name takes it
// from that database (an output directory made at the source's absent
// .lk leaves the source unopenable).
func DatabaseNamed(view FS, path string) string { return databaseOf(view, path) }

// databaseOf guesses whose file an existing file is from its name: the
// database DB.db beside it whose name it carries ("" when there is none).
func databaseOf(view FS, resolved string) string {
	m := dbFileName.FindStringSubmatch(filepath.Base(resolved))
	if m == nil {
		return ""
	}
	db := filepath.Join(filepath.Dir(resolved), m[1])
	if _, ok, _ := stat(view, db+SuffixControl); ok {
		return db
	}
	return ""
}
