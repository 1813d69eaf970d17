package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/sysproc"
	"github.com/oedl/oedl/internal/verify"
)

type eventLog struct {
	mu     sync.Mutex
	events []event.Event
}

func (l *eventLog) Emit(e event.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) kinds(k event.Kind) []event.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []event.Event
	for _, e := range l.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// OpenEdge table names cannot hold spaces or quotes (tabanalys could not
// print them either), but $, #, %, &, - and non-ASCII letters are common;
// area names are quoted strings in a .st and can hold anything but a
// double quote (the .st grammar has no escapes).
const oddTable = `PUB.odd$(touch_x)#%&naïve`
const oddArea = `Order 'Area' $(rm -rf x) ÄÖ`

var testTables = []plan.Placement{
	placement("PUB.customer", "Cust", 1117),
	placement("PUB.order", oddArea, 3953),
	placement("PUB.order-line", oddArea, 13970),
	placement(oddTable, "Cust", 7),
}

func journalOf(t *testing.T, cfg Config) *journal.Replayed {
	t.Helper()
	recs, err := journal.Read(filepath.Join(cfg.Work, journal.FileName))
	require.NoError(t, err)
	return journal.Replay(recs)
}

func TestRunEndToEndFake(t *testing.T) {
	for _, jobs := range []int{1, 3} {
		t.Run("jobs="+string(rune('0'+jobs)), func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, jobs, jobs
			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.NotNil(t, res.Verify)
			assert.True(t, res.Verify.OK)
			assert.Equal(t, oe.source, oe.target)
			rp := journalOf(t, cfg)
			assert.Empty(t, rp.LoadedTwice())
			assert.FileExists(t, filepath.Join(cfg.Work, verify.JSONFile))
			assert.FileExists(t, filepath.Join(cfg.Work, "abl", ablDumpSeq))
			for table := range oe.source {
				assert.Equal(t, 1, oe.loads[table], table)
			}
			// the awkward name went through argv untouched
			assert.Contains(t, oe.calls, "proutil "+cfg.Source+" -C dump "+oddTable+" "+cfg.dumpDir(oddTable))
		})
	}
}

func TestRunRepairsAFailedLoad(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.failLoad["PUB.order-line"] = 1 // half its records in, then an error
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 2, 2
	events := &eventLog{}
	cfg.Events = events
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	require.Len(t, res.Repairs, 1)
	assert.Contains(t, res.Repairs[0], oddArea)
	assert.Contains(t, oe.calls, "proutil "+cfg.Target+" -C truncate area "+oddArea)
	// order shares the area: loaded before the failure (then wiped by the
	// truncate and loaded again), or not started by then, when it waits
	// for the repair (the truncate would wipe what it loaded) and loads
	// once. Which one depends on when its dump lands.
	assert.Contains(t, []int{1, 2}, oe.loads["PUB.order"])
	assert.Equal(t, 1, oe.loads["PUB.customer"])
	assert.Empty(t, journalOf(t, cfg).LoadedTwice())
	failed := events.kinds(event.JobFailed)
	require.NotEmpty(t, failed)
	assert.Equal(t, "load:PUB.order-line", failed[0].Job)
	assert.Contains(t, failed[0].Err, "(9450)")
	assert.NotEmpty(t, events.kinds(event.Warning))
}

// Several loads share a Type II area: one fails while another loads into
// the same area. The repair waits for the other to end, truncates the
// area, and loads both again; nothing is loaded twice without a truncate
// between, nothing is lost, and the journal says why each ran again.
func TestRunRepairsAnAreaSharedByLoadsInFlight(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	// Both loads into oddArea are in flight before either goes on (with
	// one load per area this would wait for ever: the test's deadline
	// says so), then order-line fails half way.
	oe.together["PUB.order"], oe.together["PUB.order-line"] = "PUB.order-line", "PUB.order"
	oe.failLoad["PUB.order-line"] = 1
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 4, 4
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	require.Len(t, res.Repairs, 1)
	assert.Equal(t, 2, oe.loads["PUB.order"], "loaded beside the failed load, wiped by the truncate, loaded again")
	assert.Equal(t, 1, oe.loads["PUB.order-line"])
	rp := journalOf(t, cfg)
	assert.Empty(t, rp.LoadedTwice())
	var again []string
	for id, j := range rp.Jobs {
		if j.Kind == "load" && j.Area == oddArea && j.State == journal.Done {
			again = append(again, id)
		}
	}
	assert.Len(t, again, 2, "the reloads of both tables are in the journal: %v", again)
}

// A threaded dump that fails after one of its sections was loaded cannot
// simply run again (its new sections need not split the records the same
// way): the run resumes in place, as --resume would, repairing the area
// and dumping the table again.
func TestRunResumesInPlaceAfterAThreadedDumpFails(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.failThreaded["PUB.order-line"] = 1
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 2, 2
	cfg.ThreadedDumpMin, cfg.DumpThreads = 1000*100, 2 // order-line's 13970 records of 100 B
	events := &eventLog{}
	cfg.Events = events
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Resumed)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	assert.Contains(t, oe.calls, "proutil "+cfg.Target+" -C truncate area "+oddArea, "its area was repaired")
	assert.Empty(t, journalOf(t, cfg).LoadedTwice())
	var resumed bool
	for _, w := range events.kinds(event.Warning) {
		resumed = resumed || strings.Contains(w.Message, "dump:PUB.order-line failed after sections of it were queued (its area is repaired and the table dumped again): resuming in place")
	}
	assert.True(t, resumed, "the resume is announced")
	finished := events.kinds(event.RunFinished)
	require.Len(t, finished, 1, "one run_finished, at the very end")
	assert.Empty(t, finished[0].Err)

	// With no retries left, the run stops and says --resume.
	cfg = fakeSetup(t, testTables...)
	oe = newFakeOE(cfg.Plan)
	oe.failThreaded["PUB.order-line"] = 1
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.Retries = oe, 2, 2, -1
	cfg.ThreadedDumpMin, cfg.DumpThreads = 1000*100, 2
	_, err = Run(context.Background(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--resume")
	// ... and --resume repairs it: the old section is not loaded again
	// beside the new dump's.
	cfg.Resume = true
	res, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
}

func TestRunStopsWhenRepairsRunOut(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.failLoad["PUB.customer"] = 100
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.Retries = oe, 2, 2, 1
	_, err := Run(context.Background(), cfg)
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	msg := err.Error()
	assert.Contains(t, msg, "load:PUB.customer")
	assert.Contains(t, msg, "(9450)", "the utility's own message")
	assert.Contains(t, msg, filepath.Join(cfg.Work, "logs"), "the log path")
	assert.Contains(t, msg, "--resume")
	assert.NotContains(t, oe.calls, "proutil "+cfg.Target+" -C idxbuild", "nothing after the loads runs")
}

func TestRunInterruptedThenResumed(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.hangLoad["PUB.order"] = true
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 2, 2
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Events = event.SinkFunc(func(e event.Event) {
		if e.Kind == event.JobStarted && e.Job == "load:PUB.order" {
			cancel() // Ctrl-C while the load runs
		}
	})
	_, err := Run(ctx, cfg)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), err)
	rp := journalOf(t, cfg)
	assert.Contains(t, rp.DirtyAreas(), oddArea)
	assert.False(t, oe.served[cfg.Target], "the run's broker is shut down on the way out")

	oe.hangLoad["PUB.order"] = false
	cfg.Events = nil
	cfg.Resume = true
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Resumed)
	assert.Positive(t, res.Skipped)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	assert.Empty(t, journalOf(t, cfg).LoadedTwice())
}

func TestRunRefusesExistingJournalAndTarget(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	cfg.Runner = oe
	_, err := Run(context.Background(), cfg)
	require.NoError(t, err)

	_, err = Run(context.Background(), cfg)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "--resume")

	cfg.Work = filepath.Join(t.TempDir(), "work2")
	_, err = Run(context.Background(), cfg)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), cfg.Target+".db (its control area) is a file of the database "+cfg.Target+" an earlier oedl run made")

	// --resume without a journal is a first run: it refuses the same way.
	cfg.Work, cfg.Resume = filepath.Join(t.TempDir(), "work3"), true
	_, err = Run(context.Background(), cfg)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "give --force to replace it")

	// The record proves the earlier run made the target: --force replaces it.
	cfg.Work, cfg.Resume, cfg.Force = filepath.Join(t.TempDir(), "work4"), false, true
	_, err = Run(context.Background(), cfg)
	require.NoError(t, err)

	// Without the record nothing proves it: --force refuses.
	require.NoError(t, os.Remove(cfg.Target+".oedl.json"))
	cfg.Work = filepath.Join(t.TempDir(), "work5")
	_, err = Run(context.Background(), cfg)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "no oedl record (tgt.oedl.json) proves oedl made it")
}

func TestPreflightMessages(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(cfg *Config)
		want   string
	}{
		{"no DLC", func(c *Config) { c.DLC = "" }, "DLC is not set"},
		{"missing utility", func(c *Config) { os.Remove(filepath.Join(c.DLC, "bin", "procopy")) }, "procopy not found"},
		{"missing source", func(c *Config) { c.Source += "x" }, "srcx.db not found"},
		{"missing target.st", func(c *Config) { os.Remove(filepath.Join(c.PlanDir, "target.st")) }, "target.st not found"},
		{"no space", func(c *Config) { c.Plan.Totals.Bytes = 1 << 60 }, "not enough disk space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			cfg.Runner = newFakeOE(cfg.Plan)
			tt.break_(&cfg)
			_, err := Run(context.Background(), cfg)
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestSourceInUse(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.served[cfg.Source] = true
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 1, 1
	_, err := Run(context.Background(), cfg)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "(276)")

	// A source someone else serves may have users writing: refused...
	cfg.DumpJobs = 2
	_, err = Run(context.Background(), cfg)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "--online-source")

	// ...unless the DBA says so: the dumps go through the DBA's broker,
	// which is left running, and the run warns.
	cfg.OnlineSource = true
	events := &eventLog{}
	cfg.Events = events
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.True(t, oe.served[cfg.Source])
	require.NotEmpty(t, events.kinds(event.Warning))
	assert.Contains(t, events.kinds(event.Warning)[0].Message, "dumped ONLINE")
	var warned []string
	for _, r := range journalOf(t, cfg).Runs {
		warned = append(warned, r.Warnings...)
	}
	assert.NotEmpty(t, warned, "the journal keeps the warning for the report")
}

func TestSafeName(t *testing.T) {
	assert.Equal(t, "dump_PUB.customer", safeName("dump:PUB.customer"))
	odd := safeName(`load:PUB.odd "name" $(x) naïve`)
	assert.Regexp(t, `^load_PUB\.odd__name____x__na_ve-[0-9a-f]{8}$`, odd)
	assert.NotEqual(t, safeName("a b"), safeName("a_b"))
}

func TestSections(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"customer.bd", "customer.bd2", "customer.b3.bd", "customer.bd10", "customerx.bd", "customer.bd02"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	secs, err := sections(dir, "PUB.customer")
	require.NoError(t, err)
	assert.Equal(t, map[int]string{1: filepath.Join(dir, "customer.bd"), 2: filepath.Join(dir, "customer.bd2"), 10: filepath.Join(dir, "customer.bd10")}, secs)
	assert.Equal(t, 10, sectionOf(filepath.Join(dir, "customer.bd10"), "PUB.customer"))
	assert.Equal(t, "sales_order", dumpBase("sales.order"))
}

func TestWorkDirectoryIsLocked(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockWork(dir, "run")
	require.NoError(t, err)
	_, err = lockWork(dir, "run")
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "another oedl")
	unlock()
	unlock2, err := lockWork(dir, "run")
	require.NoError(t, err)
	unlock2()
}

func TestServedByUs(t *testing.T) {
	rec := func(job string, s journal.State) journal.Record { return journal.Record{Job: job, State: s} }
	got := servedByUs([]journal.Record{
		rec("serve:source", journal.Started), rec("serve:source", journal.Done),
		rec("serve:target", journal.Started), // killed between proserve and its record
		rec("shutdown:source", journal.Started), rec("shutdown:source", journal.Done),
	})
	assert.Equal(t, map[string]bool{"source": false, "target": true}, got)
}

// TestStartedBrokers: a serve's done record names the broker it started;
// a shutdown forgets it; a serve without one (an older journal, a kill
// before the record) names none, nor does a serve started again (a
// resume's) before its done record.
func TestStartedBrokers(t *testing.T) {
	src, tgt, rep := sysproc.ID{PID: 101, Start: 7}, sysproc.ID{PID: 102, Start: 8}, sysproc.ID{PID: 103, Start: 9}
	got := startedBrokers([]journal.Record{
		{Job: "serve:source", State: journal.Started},
		{Job: "serve:source", State: journal.Done, Broker: &src},
		{Job: "serve:target", State: journal.Done, Broker: &tgt},
		{Job: "shutdown:target", State: journal.Done},
		{Job: "serve:replica1", State: journal.Done},
		{Job: "serve:replica:dr", State: journal.Done, Broker: &rep},
		{Job: "serve:replica:dr", State: journal.Started}, // the resume's, killed in proserve
	})
	assert.Equal(t, map[string]sysproc.ID{"source": src}, got)
}

// TestSpaceOnResumeCountsDumpsOnDisk: the dumps a resume finds proven on
// disk are not asked for again (a resume after a full disk was freed).
func TestSpaceOnResumeCountsDumpsOnDisk(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.fill()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(t.TempDir(), &st))
	free := int64(st.Bavail) * int64(st.Bsize)
	// dumps D + sort files 3/4 D + target D on one filesystem: 2.75 D
	// does not fit, 1.75 D (the dumps done) does.
	for i := range cfg.Plan.Tables {
		cfg.Plan.Tables[i].Bytes = free / 2 / int64(len(cfg.Plan.Tables))
	}
	cfg.Plan.Totals.Bytes = 0
	require.NoError(t, os.MkdirAll(cfg.Work, 0o755))
	r := &runner{cfg: &cfg}
	_, err := r.checkSpace(nil)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "not enough disk space")

	r.dumpProven = func(string) bool { return true }
	msg, err := r.checkSpace(nil)
	require.NoError(t, err)
	assert.Contains(t, msg, "dumps 0 B")
}

// TestForceRefusesATargetUnderALiveRun: --force replaces a target an
// earlier oedl run made, but not while that run still holds its work
// directory (it may be between two utilities, the target without a .lk).
func TestForceRefusesATargetUnderALiveRun(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.Runner = newFakeOE(cfg.Plan)
	_, err := Run(context.Background(), cfg)
	require.NoError(t, err)

	unlock, err := lockWork(cfg.Work, "run") // the first run, still going
	require.NoError(t, err)
	other := cfg
	other.Work, other.Force = filepath.Join(t.TempDir(), "work2"), true
	_, err = Run(context.Background(), other)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "the oedl running now in "+cfg.Work)
	assert.FileExists(t, cfg.Target+".db", "nothing replaced")

	unlock() // the first run ended: --force replaces its target
	_, err = Run(context.Background(), other)
	require.NoError(t, err)
}
