package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// Entry is one file a run will create.
type Entry struct {
	Path     string `json:"path"`     // absolute and clean: what the utility is given
	Resolved string `json:"resolved"` // Path after its symbolic links
	What     string `json:"what"`     // what it will be, for messages
}

// InputError is a structure or a path that cannot be proven safe whatever
// the filesystem holds (exit 2): an ambiguous path, two files of the new
// database on one file.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, a ...any) error {
	return &InputError{Err: fmt.Errorf(format, a...)}
}

// Suffixes of the files a database has beside its extents: the control
// area, the log, the lock.
const (
	SuffixControl = ".db"
	SuffixLog     = ".lg"
	SuffixLock    = ".lk"
)

// NewDatabase lists the files the database db will have when prostrct
// create builds it from st, run in dir (relative .st paths are taken from
// there, as prostrct takes them from its current directory): DB.db, DB.lg
// and DB.lk beside it, the areas prostrct adds when st has none (the
// before-image DB.b1 and the Schema Area DB.d1, beside DB.db), and every
// extent of st. A path that is a directory holds the extent under its
// standard name (DB.bN, DB.dN for the Schema Area, DB_A.dN, DB.aN,
// DB.tN): ".", a path ending in "/", an existing directory, and a path
// that does not exist and is not named like an extent file (oedl run
// creates those directories, the entries' parents, before prostrct
// create runs). Any other path is the extent file itself. That is what oesim's
// prostrct does once the directories exist; the property test holds the
// two together.
func NewDatabase(view FS, db string, st *openedge.Structure, dir string) ([]Entry, error) {
	db = filepath.Clean(strings.TrimSuffix(db, SuffixControl))
	if !filepath.IsAbs(db) || !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("database %s and directory %s must be absolute", db, dir)
	}
	name := filepath.Base(db)
	l := &lister{view: view, seen: map[string]string{}, dirs: map[string]string{}}
	for _, f := range []struct{ suffix, what string }{
		{SuffixControl, "its control area"}, {SuffixLog, "its log"}, {SuffixLock, "its lock file"},
	} {
		l.add(db+f.suffix, f.what)
	}
	hasBI, hasSchema := false, false
	for _, a := range st.Areas {
		hasBI = hasBI || a.Type == openedge.AreaBeforeImage
		hasSchema = hasSchema || isSchema(a)
	}
	if !hasBI {
		l.add(extentName(filepath.Dir(db), name, openedge.AreaBeforeImage, openedge.PrimaryRecovery, 1),
			"the before-image extent prostrct adds when the structure has none")
	}
	if !hasSchema {
		l.add(extentName(filepath.Dir(db), name, openedge.AreaData, openedge.SchemaAreaNum, 1),
			"the Schema Area extent prostrct adds when the structure has none")
	}
	// Area numbers as prostrct gives them: the file's own, 6 for the
	// Schema Area, 3 for the before-image, and from the next free number
	// (after the highest in the file, at least 7) for the others, in file
	// order.
	next := openedge.FirstUserAreaNum
	for _, a := range st.Areas {
		if a.Number >= next {
			next = a.Number + 1
		}
	}
	counts := map[openedge.AreaType]int{}
	for _, a := range st.Areas {
		num := a.Number
		switch {
		case a.Type == openedge.AreaBeforeImage:
			num = openedge.PrimaryRecovery
		case isSchema(a):
			num = openedge.SchemaAreaNum
		case a.Type == openedge.AreaData && num == 0:
			num = next
			next++
		}
		for i, e := range a.Extents {
			m := i + 1
			if a.Type != openedge.AreaData {
				counts[a.Type]++
				m = counts[a.Type]
			}
			path, err := l.extentPath(dir, e.Path, st.Source, e.Line)
			if err != nil {
				return nil, err
			}
			if path.dir {
				path.file = extentName(path.file, name, a.Type, num, m)
			}
			l.add(path.file, fmt.Sprintf("%s, %s:%d", extentLabel(a, m), st.Source, e.Line))
		}
		if a.Type == openedge.AreaAfterImage || a.Type == openedge.AreaTransaction {
			next++
		}
	}
	return l.out, l.err
}

type lister struct {
	view FS
	out  []Entry
	seen map[string]string // resolved path -> what
	dirs map[string]string // every directory above a file -> the first file below it
	err  error
}

// add appends a file; two on one resolved file is an error in the .st.
func (l *lister) add(path, what string) {
	if l.err != nil {
		return
	}
	r, err := Resolve(l.view, path)
	if err != nil {
		l.err = err
		return
	}
	if prev, dup := l.seen[r]; dup {
		l.err = inputErrorf("%s, %s, is the same file as %s: two files of the new database cannot share one", path, what, prev)
		return
	}
	if prev, dup := l.dirs[r]; dup {
		l.err = inputErrorf("%s, %s, is a directory of %s: a file of the new database cannot be a directory of another", path, what, prev)
		return
	}
	for d := filepath.Dir(r); d != filepath.Dir(d); d = filepath.Dir(d) {
		if prev, dup := l.seen[d]; dup {
			l.err = inputErrorf("%s, %s, would be inside %s, which is %s: a file of the new database cannot be a directory of another", path, what, d, prev)
			return
		}
		if _, ok := l.dirs[d]; !ok {
			l.dirs[d] = what
		}
	}
	l.seen[r] = what
	l.out = append(l.out, Entry{Path: path, Resolved: r, What: what})
}

type stPath struct {
	file string // the file, or the directory when dir
	dir  bool
}

// extentPath is where a .st path leads from dir, and whether it is a
// directory (the extent then gets its standard name there).
func (l *lister) extentPath(dir, raw, source string, line int) (stPath, error) {
	joined := raw
	if !filepath.IsAbs(raw) {
		joined = dir + string(filepath.Separator) + raw
	}
	clean := filepath.Clean(joined)
	physical, err := Resolve(l.view, joined)
	if err != nil {
		return stPath{}, err
	}
	lexical, err := Resolve(l.view, clean)
	if err != nil {
		return stPath{}, err
	}
	if physical != lexical {
		return stPath{}, inputErrorf("%s:%d: the path %q means %s to the kernel but %s once cleaned (\"..\" after a symbolic link): write it without \"..\"",
			source, line, raw, physical, lexical)
	}
	if raw == "." || strings.HasSuffix(raw, string(filepath.Separator)) {
		return stPath{file: clean, dir: true}, nil
	}
	fi, exists, err := stat(l.view, lexical)
	switch {
	case err != nil:
		return stPath{}, err
	case exists:
		return stPath{file: clean, dir: fi.IsDir()}, nil
	}
	return stPath{file: clean, dir: !extentFileName.MatchString(filepath.Base(clean))}, nil
}

// extentFileName is the form of an extent file's name (DB.bN, DB.dN,
// DB_A.dN, DB.aN, DB.tN): a .st path of that form that does not exist
// names the file; any other path that does not exist is a directory, which
// oedl run creates before prostrct runs (prostrct itself would take it
// for a file name).
var extentFileName = regexp.MustCompile(`^.+\.[abdt][0-9]+$`)

// extentName is the standard file name of extent m of an area in dir:
// db.b1, db.d1 (Schema Area), db_N.dM, db.aM, db.tM.
func extentName(dir, db string, t openedge.AreaType, area, m int) string {
	switch {
	case t == openedge.AreaData && area == openedge.SchemaAreaNum:
		return filepath.Join(dir, fmt.Sprintf("%s.d%d", db, m))
	case t == openedge.AreaData:
		return filepath.Join(dir, fmt.Sprintf("%s_%d.d%d", db, area, m))
	}
	return filepath.Join(dir, fmt.Sprintf("%s.%c%d", db, byte(t), m))
}

func isSchema(a *openedge.StructArea) bool {
	return a.Type == openedge.AreaData && strings.EqualFold(a.Name, openedge.SchemaAreaName)
}

// extentLabel names extent m of an area: `extent 2 of area "Data"`,
// "before-image extent 1" (b, a and t extents are numbered across their
// type, as their file names are).
func extentLabel(a *openedge.StructArea, m int) string {
	switch a.Type {
	case openedge.AreaBeforeImage:
		return fmt.Sprintf("before-image extent %d", m)
	case openedge.AreaAfterImage:
		return fmt.Sprintf("after-image extent %d", m)
	case openedge.AreaTransaction:
		return fmt.Sprintf("transaction log extent %d", m)
	}
	return fmt.Sprintf("extent %d of area %q", m, a.Name)
}

// IsInput reports whether err is bad input (exit 2) rather than the
// filesystem's state.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
