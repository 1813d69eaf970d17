package run

import (
	"bytes"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// progressEvery is how often a running dump's files, or a running load's
// read offset, are measured for progress events (and, for a threaded dump,
// looked at for new sections). A measure is a few system calls: at four a
// second per running job it stays far below 1 % of a core.
const progressEvery = 250 * time.Millisecond

// quietTicks: a job whose figures did not move is still reported every
// this many ticks, so that the screen's rate falls to zero for a stalled
// job instead of keeping its last value.
const quietTicks = 4

// lineSplitter hands a utility's output to a line function as whole
// lines: the output comes in chunks that need not end lines. mu also
// guards what the line function updates, for its readers.
type lineSplitter struct {
	mu      sync.Mutex
	partial []byte
}

func (s *lineSplitter) write(p []byte, line func([]byte)) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := append(s.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line(data[:i])
		data = data[i+1:]
	}
	// Keep an unfinished line for the next chunk (bounded: a line worth
	// reading is short, a runaway line without a newline is not one).
	if len(data) > 4096 {
		data = nil
	}
	s.partial = append(s.partial[:0], data...)
	return len(p), nil
}

// recordCounter is the Output of a running utility: it follows the lines
// that count records. Safe for concurrent use (the writer and the poller).
type recordCounter struct {
	lines    lineSplitter
	brackets int64 // sum of the threads' counts so far
	total    int64 // the utility's own total, once printed
}

// Write takes output as it comes.
func (c *recordCounter) Write(p []byte) (int, error) { return c.lines.write(p, c.line) }

// line reads the record counts a utility prints while it works, by
// message number (the wording is the message file's): binary dump and load
// print their totals at the end, (13932) and (15167); a threaded dump also
// prints each thread's count as the thread finishes (17816), which is
// progress. The count is the message's (openedge.Message.Count, a count in
// digit groups read whole).
func (c *recordCounter) line(l []byte) {
	m, ok := openedge.LineMessage(string(l))
	if !ok {
		return
	}
	switch m.Num {
	case openedge.MsgDumpBracket: // "500 records for bracket 1.", after "Thread <tid> dumped"
		if n, err := m.Count(); err == nil {
			c.brackets += n
		}
	case openedge.MsgDumpedRecords, openedge.MsgLoadedRecords: // "Dumped 1117 records.", "Loaded 3953 records."
		if n, err := m.Count(); err == nil {
			c.total = n
		}
	}
}

// Records is the count so far: the utility's total once printed, else
// the sum of the finished threads' counts.
func (c *recordCounter) Records() int64 {
	c.lines.mu.Lock()
	defer c.lines.mu.Unlock()
	if c.total > 0 {
		return c.total
	}
	return c.brackets
}

// progressReporter emits a job's progress events: only when the figures
// moved, or every quietTicks ticks when they did not.
type progressReporter struct {
	e     *Executor
	j     *schedule.Job
	quiet int
	last  [2]int64 // records, bytes of the last event
	sent  bool
}

func (p *progressReporter) report(records, bytes int64) {
	now := [2]int64{records, bytes}
	if p.sent && now == p.last && p.quiet < quietTicks-1 {
		p.quiet++
		return
	}
	p.quiet, p.last, p.sent = 0, now, true
	j := p.j
	p.e.emit(event.Event{Kind: event.JobProgress, Job: j.ID, JobKind: string(j.Kind), Table: j.Table, Area: j.Area, Host: j.Host,
		Records: records, Bytes: bytes, TotalRecords: j.Records, TotalBytes: j.Bytes})
}

// poll calls tick every progressEvery until the returned stop is called;
// stop waits for the last tick to finish, so nothing is emitted after it.
func poll(tick func()) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}
