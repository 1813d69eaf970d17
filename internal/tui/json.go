package tui

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/event"
)

// JSON writes one JSON object per event, one per line (`oedl run --json`),
// so scripts and monitors can follow a run with jq or a log shipper. The
// schema is the event.Event struct, documented in docs/events.md; "v" is
// event.SchemaVersion.
//
// Emit never waits for the consumer: events are queued and one goroutine
// writes them. Written in Emit, a consumer that stopped reading (`| less`
// left on its first page, a log shipper stalled on its network) filled the
// pipe and every job of the run waited in Emit: the outage stood still
// while the consumer did (nu-trial6). Close writes what is queued and
// waits for it.
type JSON struct {
	enc  *json.Encoder
	wake chan struct{}
	done chan struct{}

	mu      sync.Mutex
	pending []event.Event
	closed  bool
	err     error
}

var _ event.Sink = (*JSON)(nil)

// NewJSON writes events to w until Close.
func NewJSON(w io.Writer) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	j := &JSON{enc: enc, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go j.write()
	return j
}

// Emit queues e. After the first write error (see Err) and after Close
// events are dropped: a closed pipe must not stop the run.
func (j *JSON) Emit(e event.Event) {
	if e.V == 0 {
		e.V = event.SchemaVersion
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	j.mu.Lock()
	if j.closed || j.err != nil {
		j.mu.Unlock()
		return
	}
	j.pending = append(j.pending, e)
	j.mu.Unlock()
	j.signal()
}

func (j *JSON) signal() {
	select {
	case j.wake <- struct{}{}:
	default: // the writer is already woken: it takes every pending event
	}
}

// write is the one goroutine that writes, in the order Emit queued.
func (j *JSON) write() {
	defer close(j.done)
	for range j.wake {
		j.mu.Lock()
		batch, closed, failed := j.pending, j.closed, j.err != nil
		j.pending = nil
		j.mu.Unlock()
		for _, e := range batch {
			if failed {
				break
			}
			if err := j.enc.Encode(e); err != nil {
				j.mu.Lock()
				j.err, j.pending = err, nil
				j.mu.Unlock()
				failed = true
			}
		}
		if closed {
			return
		}
	}
}

// Close writes the queued events and returns once they are written (or
// the first write failed). Later events are dropped.
func (j *JSON) Close() {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	j.signal()
	<-j.done
}

// Err is the first write error.
func (j *JSON) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
