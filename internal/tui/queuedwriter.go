package tui

import (
	"io"
	"os"
	"sync"
)

// QueuedWriter is an io.Writer whose Write never waits for the reader: the
// bytes are queued in memory and one goroutine writes them, in order.
// The run's printers write through it (--json on stdout, the plain lines
// on stderr): written directly, a reader that stopped reading (`| less`
// left on its first page, a log shipper stalled on its network) filled the
// pipe and every job of the run waited in the printer, the outage standing
// still while the reader did (nu-trial6). Close writes what is queued and
// waits for it; after the first write error the rest is dropped (a closed
// pipe must not stop the run) and Err says why.
type QueuedWriter struct {
	w    io.Writer
	wake chan struct{}
	done chan struct{}

	mu      sync.Mutex
	pending []byte
	closed  bool
	err     error
}

// NewQueuedWriter writes to w until Close.
func NewQueuedWriter(w io.Writer) *QueuedWriter {
	q := &QueuedWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.loop()
	return q
}

// Write queues b. It fails only once a write has failed (with that error)
// or after Close.
func (q *QueuedWriter) Write(b []byte) (int, error) {
	q.mu.Lock()
	err := q.err
	if err == nil && q.closed {
		err = os.ErrClosed
	}
	if err == nil {
		q.pending = append(q.pending, b...)
	}
	q.mu.Unlock()
	if err != nil {
		return 0, err
	}
	q.signal()
	return len(b), nil
}

func (q *QueuedWriter) signal() {
	select {
	case q.wake <- struct{}{}:
	default: // the writer is already woken: it takes every pending byte
	}
}

// loop is the one goroutine that writes.
func (q *QueuedWriter) loop() {
	defer close(q.done)
	for range q.wake {
		q.mu.Lock()
		buf, closed, failed := q.pending, q.closed, q.err != nil
		q.pending = nil
		q.mu.Unlock()
		if len(buf) > 0 && !failed {
			if _, err := q.w.Write(buf); err != nil {
				q.mu.Lock()
				q.err, q.pending = err, nil
				q.mu.Unlock()
			}
		}
		if closed {
			return
		}
	}
}

// Close writes what is queued and returns once it is written (or a write
// failed), with the first write error. Safe to call more than once.
func (q *QueuedWriter) Close() error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
	<-q.done
	return q.Err()
}

// Err is the first write error.
func (q *QueuedWriter) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}
