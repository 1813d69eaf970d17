package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
)

// RecordSuffix names the target's record beside its control area:
// /newdb/prod.oedl.json for /newdb/prod.
const RecordSuffix = ".oedl.json"

// RecordVersion is the "v" of a record.
const RecordVersion = 1

// Record is what a run writes beside the database it creates, before
// prostrct create runs and again once it has: the database, the work
// directory of the run, and every file of the database with its identity
// once it exists. It is the proof --force needs: a file is oedl's to
// replace only when a record of this target names it with the same
// device and inode (or, for the run that wrote it, names it at all: it
// was proven absent when that run began).
type Record struct {
	V      int       `json:"v"`
	Target string    `json:"target"` // the database, resolved, without .db
	Work   string    `json:"work"`   // the work directory of the run that made it
	Time   time.Time `json:"time"`
	// Left is when the run last stamped the record after its last write
	// to the target (the end of an invocation, of a preparation): nil
	// while the run may still write (and in records of older oedl).
	Left  *time.Time   `json:"left,omitempty"`
	Files []RecordFile `json:"files"`
}

// RecordFile is one file of the recorded database.
type RecordFile struct {
	Path string `json:"path"` // resolved
	What string `json:"what,omitempty"`
	ID   *ID    `json:"id,omitempty"` // nil until the file exists
	// State is the file as the last stamp saw it (left.go): what proves
	// it unchanged since, for --force.
	State *State `json:"state,omitempty"`
}

// RecordPath is the record of database db.
func RecordPath(db string) string {
	return strings.TrimSuffix(filepath.Clean(db), SuffixControl) + RecordSuffix
}

// NewRecord is the record of a database about to be created from entries.
func NewRecord(target, work string, entries []Entry) *Record {
	r := &Record{V: RecordVersion, Target: target, Work: filepath.Clean(work), Time: time.Now().UTC()}
	for _, e := range entries {
		r.Files = append(r.Files, RecordFile{Path: e.Resolved, What: e.What})
	}
	return r
}

// Stamp records the identity of every recorded file that exists now, is
// still reached by its recorded path with no symbolic link on the way, and
// is none of the protected files. A run stamps its target once prostrct
// create has made it and again when it ends: a utility may replace a file
// of the database (oesim writes DB.db anew; OpenEdge updates it in place),
// and the record must name the files as the run leaves them, with their
// size and times (left.go). A stamp is not the end of the run's writes:
// Leave says when it is.
func (r *Record) Stamp(view FS, protected ...*Files) error {
	for i := range r.Files {
		f := &r.Files[i]
		if now, err := Resolve(view, f.Path); err != nil || now != f.Path {
			continue
		}
		fi, ok, err := stat(view, f.Path)
		if err != nil {
			return err
		}
		if !ok || !fi.Mode().IsRegular() {
			continue
		}
		id, ok := identify(view, f.Path, fi)
		if !ok {
			continue
		}
		if _, isProtected := lookup(protected, id, true, f.Path); !isProtected {
			st := StateOf(fi)
			f.ID, f.State = &id, &st
		}
	}
	return nil
}

// ForOwnRun is the record as a resume of the run that wrote it checks
// its files: every extent by the identity stamped, the control area and
// the log by name alone. A utility may write the control area anew (oesim
// does; OpenEdge updates it in place), so a kill -9 between two stamps
// leaves its recorded inode stale, and a log may be rotated (moved aside,
// a new one begun). No utility replaces an extent (prostrct create makes
// it, everything else writes it in place), so an extent whose identity
// differs is another file, however it got the name: a hard link or a bind
// mount of another database's extent, a copy put there (safety trial 5).
// Named without identity, such a file passed, and the resume truncated
// and loaded into it.
func (r *Record) ForOwnRun() *Record {
	return r.without(func(f RecordFile) bool {
		return strings.HasSuffix(f.Path, SuffixControl) || strings.HasSuffix(f.Path, SuffixLog)
	})
}

func (r *Record) without(drop func(RecordFile) bool) *Record {
	c := *r
	c.Files = make([]RecordFile, len(r.Files))
	for i, f := range r.Files {
		if drop(f) {
			f.ID = nil
		}
		c.Files[i] = f
	}
	return &c
}

// Stamped reports whether the record holds any file's identity: the run
// that wrote it got past the stamp after prostrct create. A record that
// stamped nothing proves its files by their names alone.
func (r *Record) Stamped() bool {
	for _, f := range r.Files {
		if f.ID != nil {
			return true
		}
	}
	return false
}

// file is the record of the file at resolved path p, or nil.
func (r *Record) file(p string) *RecordFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if r.Files[i].Path == p {
			return &r.Files[i]
		}
	}
	return nil
}

// Write replaces the record at path, atomically.
func (r *Record) Write(path string) error {
	data, err := r.Bytes()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// Bytes is the record as Write writes it (for a record written on
// another host).
func (r *Record) Bytes() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FileReader is a view that reads files itself (another host's).
type FileReader interface {
	ReadFile(name string) ([]byte, error)
}

// ReadRecord reads the record at path: nil, nil when there is none. A
// record reached through a symbolic link, or one that cannot be read as a
// record, is an error: it proves nothing.
func ReadRecord(view FS, path string) (*Record, error) {
	fi, err := view.Lstat(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: it proves nothing", path)
	}
	read := os.ReadFile
	if fr, ok := view.(FileReader); ok {
		read = fr.ReadFile
	}
	data, err := read(path)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.V != RecordVersion || r.Target == "" {
		return nil, fmt.Errorf("%s: not a record this oedl writes (version %d)", path, r.V)
	}
	return &r, nil
}

// Remove deletes the files Prove found replaceable, each only while it is
// still the file proven: a regular file, not a link, with the identity
// the proof saw. Anything else is left alone and is an error.
func Remove(found []Found) error { return RemoveWith(OS{}, os.Remove, found) }

// RemoveWith is Remove on the filesystem view sees, removing through
// remove (another host's).
func RemoveWith(view FS, remove func(path string) error, found []Found) error {
	for _, f := range found {
		fi, err := view.Lstat(f.Resolved)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		id, ok := identify(view, f.Resolved, fi)
		if !fi.Mode().IsRegular() || !ok || !id.Same(f.ID) {
			return fmt.Errorf("%s changed since it was proven oedl's to replace: left alone", f.Resolved)
		}
		if err := remove(f.Resolved); err != nil {
			return err
		}
	}
	return nil
}

// Changed lists, for each entry the record should name as a file it
// made, why it is not that file any more: not named, missing, another
// file (device and inode differ), or there when the record's run left
// none (a lock file, .lk, exists only while the database is open).
// Nothing listed means every entry is the very file the record's run
// left. A run that keeps a target `oedl prepare` made relies on it: a
// file replaced, removed or added since is not the prepared target.
func (r *Record) Changed(view FS, entries []Entry) ([]string, error) {
	var why []string
	for _, e := range entries {
		f := r.file(e.Resolved)
		if f == nil {
			why = append(why, e.Resolved+" is not named in "+filepath.Base(RecordPath(r.Target)))
			continue
		}
		fi, ok, err := stat(view, e.Resolved)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok && f.ID == nil:
			continue
		case !ok:
			why = append(why, e.Resolved+" is missing")
			continue
		case f.ID == nil:
			why = append(why, e.Resolved+" exists, and its maker left none (the database is open, or was left open)")
			continue
		}
		id, hasID := identify(view, e.Resolved, fi)
		if !fi.Mode().IsRegular() || !hasID || !id.Same(*f.ID) {
			why = append(why, fmt.Sprintf("%s is another file than the one made (device %d inode %d, now %d %d)",
				e.Resolved, f.ID.Dev, f.ID.Ino, id.Dev, id.Ino))
		}
	}
	return why, nil
}
