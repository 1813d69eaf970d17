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
// event.SchemaVersion. It writes through a QueuedWriter: Emit never waits
// for the consumer, and Close writes what is queued.
type JSON struct {
	mu  sync.Mutex
	q   *QueuedWriter
	enc *json.Encoder
}

var _ event.Sink = (*JSON)(nil)

// NewJSON writes events to w until Close.
func NewJSON(w io.Writer) *JSON {
	q := NewQueuedWriter(w)
	enc := json.NewEncoder(q)
	enc.SetEscapeHTML(false)
	return &JSON{q: q, enc: enc}
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
	defer j.mu.Unlock()
	_ = j.enc.Encode(e) // an error is the writer's, kept by it (Err)
}

// Close writes the queued events and returns once they are written (or
// the first write failed). Later events are dropped.
func (j *JSON) Close() { _ = j.q.Close() }

// Err is the first write error.
func (j *JSON) Err() error { return j.q.Err() }
