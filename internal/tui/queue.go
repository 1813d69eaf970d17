package tui

import (
	"sync"

	"github.com/oedl/oedl/internal/event"
)

// queue carries events from the workers to the screen without ever making
// a worker wait: push only appends under a short lock. Progress events of a
// job replace the pending one of the same job (only the latest count
// matters), so a job that reports a thousand times a second costs the
// screen one event per frame.
type queue struct {
	mu       sync.Mutex
	events   []event.Event
	progress map[string]int // job -> index of its pending progress event
	closed   bool
	pushed   int64 // every event ever pushed, for the benchmark figures
}

func newQueue() *queue { return &queue{progress: map[string]int{}} }

func (q *queue) push(e event.Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.pushed++
	if e.Kind == event.JobProgress {
		if i, ok := q.progress[e.Job]; ok {
			q.events[i] = e
			return
		}
		q.progress[e.Job] = len(q.events)
	} else if e.Job != "" {
		// A later progress event must not jump before this one.
		delete(q.progress, e.Job)
	}
	q.events = append(q.events, e)
}

// drain takes every pending event, and whether the queue is closed (the run
// is over: nothing more will come).
func (q *queue) drain() ([]event.Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.events
	q.events = nil
	clear(q.progress)
	return out, q.closed
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}
