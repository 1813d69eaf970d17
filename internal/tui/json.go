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
type JSON struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

var _ event.Sink = (*JSON)(nil)

// NewJSON writes events to w.
func NewJSON(w io.Writer) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSON{enc: enc}
}

// Emit writes e. The first write error is kept (see Err) and later events
// are dropped: a closed pipe must not stop the run.
func (j *JSON) Emit(e event.Event) {
	if e.V == 0 {
		e.V = event.SchemaVersion
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	j.err = j.enc.Encode(e)
}

// Err is the first write error.
func (j *JSON) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
