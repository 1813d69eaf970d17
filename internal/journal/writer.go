package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
)

// FileName is the journal's name inside the work directory.
const FileName = "journal.jsonl"

// PrepareFileName is the journal of `oedl prepare` inside the work
// directory: apart from the run's, so that the run's journal (its
// report, its status, its bound) holds the outage window and nothing
// done hours before it.
const PrepareFileName = "prepare.jsonl"

// Writer appends records to a journal file. It is safe for concurrent use:
// the executor's job goroutines all append through one Writer.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	seq  int64
	now  func() time.Time
	end  int64 // the offset after the last whole line: where a cut write is cut back to
	torn error // a cut write that could not be cut back: nothing more is appended after it
}

// Open opens (or creates) the journal at path for appending and returns the
// records already in it. A torn last line left by a crash is cut off first,
// so that the next record does not glue onto it and turn it into a corrupt
// middle line. Creating the file fsyncs its directory, so the file itself
// survives a crash right after the first record.
func Open(path string) (*Writer, []Record, error) {
	recs, good, err := readFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	created := os.IsNotExist(err)
	// O_NOFOLLOW: the journal is cut at its last good line; through a
	// link it would cut whatever the link leads to.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if err := atomicfile.OneName(f); err != nil { // cut in place: never another file's bytes
		f.Close()
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if !created {
		// Drop the torn tail, if any, then append after the good lines.
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("journal %s: cut torn last line: %w", path, err)
		}
	}
	if _, err := f.Seek(good, 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if created {
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	w := &Writer{f: f, path: path, now: time.Now, end: good}
	if n := len(recs); n > 0 {
		w.seq = recs[n-1].Seq
	}
	return w, recs, nil
}

// Append writes r as one line and fsyncs it before returning: when Append
// returns nil the record survives kill -9 and power loss. It fills V, Seq
// and Time.
func (w *Writer) Append(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("journal %s: closed", w.path)
	}
	w.seq++
	r.V, r.Seq = Version, w.seq
	if r.Time.IsZero() {
		r.Time = w.now()
	}
	line, err := json.Marshal(r)
	if err != nil {
		w.seq--
		return fmt.Errorf("journal: encode %s: %w", r.Job, err)
	}
	line = append(line, '\n')
	if w.torn != nil {
		w.seq--
		return w.torn
	}
	if _, err := w.f.Write(line); err != nil {
		w.seq--
		return w.cutBack(fmt.Errorf("journal %s: write: %w", w.path, err))
	}
	w.end += int64(len(line))
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: fsync: %w", w.path, err)
	}
	return nil
}

// cutBack removes what a write cut short left (a full disk writes a
// line's first bytes and fails): the next record, appended once the DBA
// has freed space, glued onto them and made a corrupt line in the middle
// of the journal, which no resume reads, or, as the last line, was
// dropped as torn although its Append had returned nil. When the cut
// fails too, nothing more is appended: Open cuts the torn tail at the
// resume, as after a crash.
func (w *Writer) cutBack(err error) error {
	if terr := w.f.Truncate(w.end); terr != nil {
		w.torn = fmt.Errorf("%w; the torn line could not be cut (%v): no record is written after it, oedl run --resume cuts it", err, terr)
		return w.torn
	}
	if _, serr := w.f.Seek(w.end, 0); serr != nil {
		w.torn = fmt.Errorf("%w; the torn line could not be cut (%v): no record is written after it, oedl run --resume cuts it", err, serr)
		return w.torn
	}
	return err
}

// Path is the journal's file name.
func (w *Writer) Path() string { return w.path }

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("journal: fsync %s: %w", dir, err)
	}
	return nil
}
