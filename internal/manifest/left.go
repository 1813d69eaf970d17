package manifest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// What proves a target unchanged since oedl left it (docs/decisions.md,
// "--force replaces only a target unchanged since oedl left it"). Device
// and inode prove a file is the one oedl made, not that nobody used it
// since: OpenEdge updates a database in place, so a target a DBA went
// live on, then shut down, keeps every identity. Its files do not keep
// their state: every open writes the master block's open date (.db
// mtime), a broker and every session write the log (.lg grows), and any
// transaction writes an extent. So each stamp records, besides the
// identity, each file's size, modification time and inode change time
// (nanoseconds). The change time is set by the kernel on every write,
// and also when someone puts the modification time back (touch -d, a
// restore with cp -p), so it is the one a careless copy cannot fake.
// _MstrBlk-Lasttask, which the source's freeze reads, is not needed on
// top: reading it opens the database (a process, a single-user lock),
// and every open that could change it already writes the .db and .lg.

// State is a file as a stamp saw it.
type State struct {
	Size  int64 `json:"size"`
	Mtime int64 `json:"mtime_ns"`
	Ctime int64 `json:"ctime_ns,omitempty"` // 0: the view does not say
}

// StateOf is the state of the file whose Lstat is fi.
func StateOf(fi fs.FileInfo) State {
	return State{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: changeTime(fi)}
}

// since says how now differs from s, the recorded state ("" when it
// does not), naming what changed: a grown .lg says a session or a broker
// wrote to it.
func (s State) since(path string, now State) string {
	var what []string
	if now.Size != s.Size {
		grew := "size"
		if strings.HasSuffix(path, SuffixLog) && now.Size > s.Size {
			grew = "its log grew (a broker or a session opened the database)"
		}
		what = append(what, fmt.Sprintf("%s: %d -> %d bytes", grew, s.Size, now.Size))
	}
	if now.Mtime != s.Mtime {
		what = append(what, fmt.Sprintf("modified %s, recorded %s", stamp(now.Mtime), stamp(s.Mtime)))
	}
	if now.Ctime != s.Ctime && s.Ctime != 0 && now.Ctime != 0 && now.Mtime == s.Mtime {
		what = append(what, fmt.Sprintf("inode changed %s, recorded %s (its modification time put back, or its owner or mode changed)", stamp(now.Ctime), stamp(s.Ctime)))
	}
	return strings.Join(what, "; ")
}

func stamp(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// Leave marks the record's last stamp as taken after the run's last write
// to the target (the end of a run's invocation, of a preparation): from
// here on, any change to its files is someone else's.
func (r *Record) Leave() {
	t := time.Now().UTC()
	r.Left = &t
}

// NotLeftError is a target --force may not replace: its files changed
// since the record's run left it, or the record cannot say how it left
// them.
type NotLeftError struct {
	Target string
	Why    string // the first file changed, and what changed
}

func (e *NotLeftError) Error() string { return e.Why }

// UnchangedSinceLeft proves every file of the record that is still there,
// the file the record names (device, inode), exactly as its run left it:
// same size, modification and change time. A record without the state of
// its files (written by an oedl before force-live) or whose run never
// stamped it at its end (killed, or still running) proves nothing of the
// kind. Files that are gone are left out: nothing of theirs can be lost.
func (r *Record) UnchangedSinceLeft(view FS) error {
	return r.unchangedSinceLeft(view, false)
}

// UntouchedSinceOwnRunLeft is UnchangedSinceLeft for a resume of the run
// that wrote the record, once an invocation of it ended and left the
// target (safety trial 11): every write of that run is behind the stamp,
// so a control area now another file than the one stamped (oesim writes
// it anew on a write; a copy put back) was put there by someone else, and
// is refused as a change. The resume's proof takes the control area by
// its name (ForOwnRun), so nothing else would see it; an extent that is
// another file is the proof's to refuse, naming its area, and a log
// begun anew (rotated) costs no data.
func (r *Record) UntouchedSinceOwnRunLeft(view FS) error {
	return r.unchangedSinceLeft(view, true)
}

func (r *Record) unchangedSinceLeft(view FS, otherFileChanged bool) error {
	name := filepath.Base(RecordPath(r.Target))
	for _, f := range r.Files {
		if f.ID == nil {
			continue
		}
		fi, ok, err := stat(view, f.Path)
		if err != nil {
			return err
		}
		if !ok || !fi.Mode().IsRegular() {
			continue
		}
		if id, hasID := identify(view, f.Path, fi); !hasID || !id.Same(*f.ID) {
			if otherFileChanged && r.Left != nil && strings.HasSuffix(f.Path, SuffixControl) {
				return &NotLeftError{Target: r.Target, Why: fmt.Sprintf("%s is another file than the one the oedl run in %s left there at %s (recorded device %d inode %d)",
					f.Path, r.Work, r.Left.Local().Format(time.RFC3339), f.ID.Dev, f.ID.Ino)}
			}
			continue // not the record's file: the proof refuses it on its own
		}
		switch {
		case f.State == nil:
			return &NotLeftError{Target: r.Target, Why: fmt.Sprintf("%s records no size or times of %s (written by an oedl older than the check that a target is unchanged since its run left it): nothing proves the database was not used since", name, f.Path)}
		case r.Left == nil:
			return &NotLeftError{Target: r.Target, Why: fmt.Sprintf("the run in %s that made it never ended (killed, or still running): %s holds the files as they were when it created them, and %s was written since, by that run or by someone else", r.Work, name, f.Path)}
		}
		if why := f.State.since(f.Path, StateOf(fi)); why != "" {
			return &NotLeftError{Target: r.Target, Why: fmt.Sprintf("%s changed since the oedl run in %s left it at %s: %s", f.Path, r.Work, r.Left.Local().Format(time.RFC3339), why)}
		}
	}
	return nil
}
