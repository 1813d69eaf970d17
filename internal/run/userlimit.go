package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
)

// A broker's user limit. Every connection counts against a served
// database's -n: oedl's dumps, loads and side jobs, the DBA's users and
// the broker's own helpers (KB P11340). oedl sizes the -n of a broker it
// starts (brokerUsers), but a database the DBA keeps served has the -n the
// DBA gave it, and 32 dumps beside the side jobs may not fit. A call past
// the limit is refused at connect with (748) and has read and written
// nothing, so it is not a failure of its job: the call waits and runs
// again, outside the job's retry budget (a load so refused leaves its area
// as it was: no repair), and oedl lowers its own concurrency against that
// database to the calls that were connected when the refusal came (a
// warning says so, once per database). The count is kept per database by
// connGate, around every utility call naming it.

// connGate counts oedl's calls connected to one database and, after a
// refusal, holds them to the number that fitted. A call is counted from
// the moment it is started; the refused one's count of "connected" is the
// calls started before it still running: those started after it may not
// have reached the broker yet (a utility's start-up precedes its connect),
// and counting them would leave the bound above the broker's -n.
type connGate struct {
	mu       sync.Mutex
	next     uint64
	inFlight map[uint64]bool // the calls running, by their order of start
	limit    int             // 0 until the broker refuses a call
	changed  chan struct{}   // closed when a call ends or the limit changes
	warned   bool
}

func newConnGate() *connGate {
	return &connGate{inFlight: map[uint64]bool{}, changed: make(chan struct{})}
}

// enter waits until the call may connect and returns its ticket.
func (g *connGate) enter(ctx context.Context) (uint64, error) {
	for {
		g.mu.Lock()
		if g.limit == 0 || len(g.inFlight) < g.limit {
			g.next++
			ticket := g.next
			g.inFlight[ticket] = true
			g.mu.Unlock()
			return ticket, nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

// leave ends a call.
func (g *connGate) leave(ticket uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.inFlight, ticket)
	g.wake()
}

func (g *connGate) wake() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// denied ends a call the broker refused. connected is how many of oedl's
// calls started before it were still running; limit is the new bound when
// it was lowered (0 otherwise); first is whether this database had no
// refusal before.
func (g *connGate) denied(ticket uint64) (connected, limit int, first bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.inFlight, ticket)
	for t := range g.inFlight {
		if t < ticket {
			connected++
		}
	}
	if n := max(1, connected); g.limit == 0 || n < g.limit {
		g.limit, limit = n, n
	}
	first, g.warned = !g.warned, true
	g.wake()
	return connected, limit, first
}

// gate is the connGate of database db on host.
func (e *Executor) gate(host, db string) *connGate {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := host + "\x00" + db
	if e.gates == nil {
		e.gates = map[string]*connGate{} // made here, on first use, for every Executor
	}
	g := e.gates[k]
	if g == nil {
		g = newConnGate()
		e.gates[k] = g
	}
	return g
}

// runCounted runs a call connecting to db through its gate, again as long
// as the broker refuses it for its user limit.
func (e *Executor) runCounted(ctx context.Context, jobID, db, host string, call execx.Cmd, log io.Writer) (execx.Result, error) {
	g := e.gate(host, db)
	alone := 0
	for {
		ticket, err := g.enter(ctx)
		if err != nil {
			return execx.Result{}, err
		}
		res, err := e.cfg.machine(host).runner.Run(ctx, call)
		if ctx.Err() != nil || !userLimitDenied(res, err) {
			g.leave(ticket)
			return res, err
		}
		if !e.afterDenial(ctx, jobID, db, g, ticket, &alone, log) {
			return res, err
		}
	}
}

// connectedDB is the database a call connects to: _progres's -db, or the
// first argument of proutil, probiw, proapw ... ("" when there is none).
func connectedDB(argv []string) string {
	for i, a := range argv {
		if a == "-db" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	if len(argv) > 1 && argv[1] != "" && argv[1][0] != '-' {
		return argv[1]
	}
	return ""
}

// userLimitDenied: the call exited refused with (748), nothing else
// having happened to it (a hang or a signal is that failure, not this).
func userLimitDenied(res execx.Result, err error) bool {
	return !res.TimedOut && res.Signal == 0 && res.ExitCode != 0 &&
		(err == nil || errors.Is(err, execx.ErrExit)) && openedge.HasMessage(res.Output, openedge.MsgUserLimit)
}

// Pauses between refused calls: growing, so that a broker the DBA's own
// users fill is not hammered, and bounded, so that a slot freed is soon
// taken.
const (
	denialPause    = 100 * time.Millisecond
	maxDenialPause = 2 * time.Second
	// denialPatience is how many refusals in a row a call takes while
	// none of oedl's calls is connected to the database: the limit is
	// then all others' and lowering oedl's concurrency cannot help, so
	// the refusal becomes the job's failure (about a minute of waiting).
	denialPatience = 40
)

// afterDenial handles a refused call: lowers the gate, warns once, notes
// it in the job's log, waits. It returns false when the call should fail
// as it is (the run is stopping, or the limit is none of oedl's doing).
func (e *Executor) afterDenial(ctx context.Context, jobID, db string, g *connGate, ticket uint64, alone *int, log io.Writer) bool {
	connected, limit, first := g.denied(ticket)
	if first {
		e.emit(event.Event{Kind: event.Warning, Job: jobID, Log: e.cfg.logPath(jobID),
			Message: fmt.Sprintf("%s refused a connection (%d): its broker's user limit (-n) was reached with %d of oedl's calls started before it connected; oedl now runs at most %d calls against it at once and retries the refused ones",
				db, openedge.MsgUserLimit, connected, max(1, connected))})
	}
	if connected == 0 {
		*alone++
		if *alone > denialPatience {
			fmt.Fprintf(log, "=== refused %d times with none of oedl's calls connected: the limit is not oedl's to lower\n", *alone)
			return false
		}
	} else {
		*alone = 0
	}
	if limit > 0 {
		fmt.Fprintf(log, "=== refused (%d) with %d of oedl's calls connected: at most %d from now on; trying again\n", openedge.MsgUserLimit, connected, limit)
	} else {
		fmt.Fprintf(log, "=== refused (%d) with %d of oedl's calls connected: trying again\n", openedge.MsgUserLimit, connected)
	}
	pause := min(time.Duration(*alone+1)*denialPause, maxDenialPause)
	select {
	case <-ctx.Done():
		return false
	case <-time.After(pause):
		return true
	}
}
