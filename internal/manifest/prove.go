package manifest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Rules say which existing files a run may replace.
type Rules struct {
	// Protected are the files of databases the run must never write (the
	// source): a file here is refused whatever else holds.
	Protected []*Files
	// Target is the database the run creates (resolved, without .db) and
	// Record the record beside it (nil when there is none).
	Target string
	Record *Record
	// Work is this run's work directory: files the record names without
	// an identity are this run's only when the record is this run's.
	Work string
	// Replace allows replacing what Record proves (--force, or a resume
	// that creates the target again).
	Replace bool
}

// Found is a file of the manifest, or of the record, that exists and may
// be replaced.
type Found struct {
	Entry
	ID ID
}

// Conflict is an existing file the run may not create over.
type Conflict struct {
	Entry
	Is     string // what the file is, as far as the proof can tell
	Source bool   // it is a file of a protected database
	// Absent: the file does not exist; it (or a directory made for it)
	// would take the name of another database's file
	// (anotherDatabasesName).
	Absent bool
}

// ConflictError names every file in the way (exit 3).
type ConflictError struct {
	Conflicts []Conflict
	Advice    string // what to do, for the end of the message
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	b.WriteString(e.headline())
	for i, c := range e.Conflicts {
		if i == 20 && len(e.Conflicts) > 21 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Conflicts)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s (%s)", c.Path, c.What)
		if c.Resolved != c.Path {
			fmt.Fprintf(&b, ", which is %s,", c.Resolved)
		}
		fmt.Fprintf(&b, " is %s", c.Is)
	}
	if e.Advice != "" {
		b.WriteString("\n" + e.Advice)
	}
	return b.String()
}

// headline says what the conflicts are: files that exist, names that do
// not exist yet but are another database's, or both.
func (e *ConflictError) headline() string {
	absent := 0
	for _, c := range e.Conflicts {
		if c.Absent {
			absent++
		}
	}
	n, existing := len(e.Conflicts), len(e.Conflicts)-absent
	switch {
	case absent == 0 && n == 1:
		return "a file the run would create already exists, and oedl never creates over a file it cannot prove it made:"
	case absent == 0:
		return fmt.Sprintf("%d files the run would create already exist, and oedl never creates over a file it cannot prove it made:", n)
	case existing == 0 && n == 1:
		return "a file the run would create does not exist yet but has the name of another database's file, and oedl makes nothing under another database's names:"
	case existing == 0:
		return fmt.Sprintf("%d files the run would create do not exist yet but have the names of another database's files, and oedl makes nothing under another database's names:", n)
	}
	return fmt.Sprintf("%d files the run would create are in the way (there already: %d; not there yet but named as another database's files: %d): oedl never creates over a file it cannot prove it made, nor under another database's names:", n, existing, absent)
}

// Source reports whether a conflict is a file of a protected database.
func (e *ConflictError) Source() bool {
	for _, c := range e.Conflicts {
		if c.Source {
			return true
		}
	}
	return false
}

// Prove checks every entry against the filesystem. It returns the files
// that exist and may be replaced (what the record proves, when Replace
// allows it; with Replace, also the files of the record the entries no
// longer name), or a *ConflictError naming every file in the way and what
// it is. An entry whose own name is a symbolic link is in the way even
// when the link leads nowhere: prostrct would create through it.
func Prove(view FS, entries []Entry, r Rules) ([]Found, error) {
	var ok []Found
	var bad []Conflict
	planned := map[string]bool{}
	recordOK := r.Record != nil && filepath.Clean(r.Record.Target) == filepath.Clean(r.Target)
	for _, e := range entries {
		planned[e.Resolved] = true
	}
	for _, e := range entries {
		if link, err := leafIsLink(view, e.Path); err != nil {
			return nil, err
		} else if link {
			bad = append(bad, Conflict{Entry: e, Is: "a symbolic link (oedl creates no file through a link)"})
			continue
		}
		fi, exists, err := stat(view, e.Resolved)
		if err != nil {
			return nil, err
		}
		if !exists {
			if c, ok, err := anotherDatabasesName(view, r, planned, e); err != nil {
				return nil, err
			} else if ok {
				bad = append(bad, c)
			}
			continue
		}
		id, hasID := identify(view, e.Resolved, fi)
		if what, isProtected := lookup(r.Protected, id, hasID, e.Resolved); isProtected {
			bad = append(bad, Conflict{Entry: e, Is: what, Source: true})
			continue
		}
		if fi.IsDir() {
			bad = append(bad, Conflict{Entry: e, Is: "a directory"})
			continue
		}
		isRecord := e.Resolved == RecordPath(r.Target)
		if r.Replace && recordOK && (isRecord || recorded(r, e.Resolved, id, hasID)) {
			ok = append(ok, Found{Entry: e, ID: id})
			continue
		}
		bad = append(bad, Conflict{Entry: e, Is: whatIs(view, r, recordOK, e.Resolved)})
	}
	if len(bad) > 0 {
		return nil, &ConflictError{Conflicts: bad}
	}
	if r.Replace && recordOK {
		for _, f := range r.Record.Files {
			if planned[f.Path] || f.ID == nil {
				continue
			}
			fi, exists, err := stat(view, f.Path)
			if err != nil {
				return nil, err
			}
			if !exists || !fi.Mode().IsRegular() {
				continue
			}
			id, hasID := identify(view, f.Path, fi)
			if _, isProtected := lookup(r.Protected, id, hasID, f.Path); isProtected || !hasID || !id.Same(*f.ID) {
				continue // not the file the record made any more: left alone
			}
			ok = append(ok, Found{Entry: Entry{Path: f.Path, Resolved: f.Path, What: f.What + ", of the earlier target, not in this plan"}, ID: id})
		}
	}
	return ok, nil
}

// recorded reports whether the record proves the existing file at
// resolved path p (identity id) is the earlier run's.
func recorded(r Rules, p string, id ID, hasID bool) bool {
	f := r.Record.file(p)
	switch {
	case f == nil:
		return false
	case f.ID != nil:
		return hasID && f.ID.Same(id)
	}
	// Named but never stamped: the run that wrote the record planned it
	// (absent then) and was stopped before it could stamp it. Only that
	// run may claim it.
	return r.Work != "" && filepath.Clean(r.Record.Work) == filepath.Clean(r.Work)
}

func lookup(sets []*Files, id ID, hasID bool, resolved string) (string, bool) {
	for _, s := range sets {
		if w, ok := s.Lookup(id, hasID, resolved); ok {
			return w, true
		}
	}
	return "", false
}

// whatIs describes an existing file no rule lets the run replace.
func whatIs(view FS, r Rules, recordOK bool, resolved string) string {
	db := databaseOf(view, resolved)
	switch {
	case resolved == RecordPath(r.Target) && recordOK:
		return "oedl's record of the database an earlier oedl run made there (give --force to replace that database)"
	case resolved == RecordPath(r.Target):
		return "not a record of this target that oedl can read"
	case db != "" && filepath.Clean(db) == filepath.Clean(r.Target) && r.Record == nil:
		return fmt.Sprintf("a file of the existing database %s, and no oedl record (%s) proves oedl made it", db, filepath.Base(RecordPath(db)))
	case db != "" && filepath.Clean(db) == filepath.Clean(r.Target) && recordOK && !r.Replace:
		return fmt.Sprintf("a file of the database %s an earlier oedl run made (give --force to replace it)", db)
	case db != "" && filepath.Clean(db) == filepath.Clean(r.Target):
		return fmt.Sprintf("a file of the database %s that its oedl record does not prove (not the file the earlier run made)", db)
	case db != "":
		return "a file of another database, " + db
	}
	return "an existing file"
}

// leafIsLink reports whether the last component of p, in its resolved
// directory, is a symbolic link.
func leafIsLink(view FS, p string) (bool, error) {
	dir, err := Resolve(view, filepath.Dir(p))
	if err != nil {
		return false, err
	}
	fi, exists, err := stat(view, filepath.Join(dir, filepath.Base(p)))
	return exists && fi.Mode()&fs.ModeSymlink != 0, err
}

// anotherDatabasesName finds, on the way the run makes the new file e
// (the file itself and each directory above it that does not exist yet),
// a name of another database's own files beside its DB.db: its .lk and
// .lg, which OpenEdge makes only when the database is opened, its .st,
// which prostrct list writes, an extent name it does not use yet. Made
// there, the new file (or a directory for it) takes that name from the
// database: a directory named like the source's .lk left the source
// unopenable, "The broker ... did not start" (safety trial 7); a file
// there would be written by the other database's next open.
//
// A database whose DB.db is itself a file of the new database is not
// named again: that file is in the way already, and says so.
func anotherDatabasesName(view FS, r Rules, planned map[string]bool, e Entry) (Conflict, bool, error) {
	for p := e.Resolved; p != filepath.Dir(p); p = filepath.Dir(p) {
		_, exists, err := stat(view, p)
		if err != nil {
			return Conflict{}, false, err
		}
		if exists {
			return Conflict{}, false, nil
		}
		db := databaseOf(view, p)
		if db == "" || filepath.Clean(db) == filepath.Clean(r.Target) || planned[db+SuffixControl] {
			continue
		}
		where := "named"
		if p != e.Resolved {
			where = "to be made in the new directory " + p + ","
		}
		c := Conflict{Entry: e, Absent: true, Is: fmt.Sprintf("%s as a file of the database %s (%s: OpenEdge makes it under that name when the database is opened or listed); oedl makes nothing under another database's names", where, db, filepath.Base(p))}
		if fi, ok, err := stat(view, db+SuffixControl); err == nil && ok {
			id, hasID := identify(view, db+SuffixControl, fi)
			if what, isProtected := lookup(r.Protected, id, hasID, db+SuffixControl); isProtected {
				c.Is = fmt.Sprintf("%s as a file of %s (%s: OpenEdge makes it under that name when the database is opened or listed), whose control area is %s; oedl makes nothing under another database's names", where, "the source", filepath.Base(p), what)
				c.Source = true
			}
		}
		return c, true, nil
	}
	return Conflict{}, false, nil
}
