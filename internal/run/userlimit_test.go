package run

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
)

// A source served with a -n smaller than the dump jobs: the dumps past it
// are refused (748), wait and run again without a failed attempt, and
// oedl lowers its dumps against the source to what fitted, saying so once.
func TestUserLimitLowersTheDumps(t *testing.T) {
	cfg := fakeSetup(t, userLimitTables()...)
	oe := newFakeOE(cfg.Plan)
	oe.holdLimit[cfg.Source] = 2
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 4, 2
	events := &eventLog{}
	cfg.Events = events
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	assert.Positive(t, oe.denials, "the limit was reached")

	var limits []event.Event
	for _, w := range events.kinds(event.Warning) {
		if strings.Contains(w.Message, "(748)") {
			limits = append(limits, w)
		}
	}
	require.Len(t, limits, 1, "one warning for the database")
	assert.Contains(t, limits[0].Message, cfg.Source)
	assert.Regexp(t, `with (\d+) of oedl.s calls started before it connected; oedl now runs at most [1-9]\d* calls against it`, limits[0].Message)
	assertNoFailedAttempts(t, cfg)
}

// A load refused for the target's user limit loaded nothing: it runs
// again, and no area is repaired.
func TestUserLimitRefusedLoadIsNotRepaired(t *testing.T) {
	cfg := fakeSetup(t, userLimitTables()...)
	oe := newFakeOE(cfg.Plan)
	oe.denyLoads = 2
	cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 2, 2
	res, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, res.Verify.OK)
	assert.Equal(t, oe.source, oe.target)
	assert.Equal(t, 2, oe.denials)
	assert.Empty(t, res.Repairs)
	for _, c := range oe.calls {
		assert.NotContains(t, c, "-C truncate area")
	}
	for table := range oe.source {
		assert.Equal(t, 1, oe.loads[table], table)
	}
	assert.Empty(t, journalOf(t, cfg).LoadedTwice())
	assertNoFailedAttempts(t, cfg)
}

// userLimitTables are four tables, fresh: testTables' backing array is
// shared by the tests that change their plan.
func userLimitTables() []plan.Placement {
	return []plan.Placement{placement("PUB.customer", "Cust", 1117), placement("PUB.order", "Ord", 3953),
		placement("PUB.order-line", "Ord", 13970), placement("PUB.item", "Cust", 7)}
}

// assertNoFailedAttempts: the journal holds no failed attempt and every
// job ran once (a refusal spent none of the retry budget).
func assertNoFailedAttempts(t *testing.T, cfg Config) {
	t.Helper()
	recs, err := journal.Read(cfg.Work + "/" + journal.FileName)
	require.NoError(t, err)
	for _, r := range recs {
		assert.NotEqual(t, journal.Failed, r.State, "%s failed: %s", r.Job, r.Err)
		assert.LessOrEqual(t, r.Attempt, 1, r.Job)
	}
}

func TestConnectedDB(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		db   string
	}{
		{[]string{"/dlc/bin/proutil", "/db/src", "-C", "dump", "PUB.t", "/d"}, "/db/src"},
		{[]string{"/dlc/bin/_progres", "-b", "-db", "/db/tgt", "-p", "x.p"}, "/db/tgt"},
		{[]string{"/dlc/bin/probiw", "/db/tgt"}, "/db/tgt"},
		{[]string{"/dlc/bin/tool"}, ""},
		{[]string{"/dlc/bin/tool", "-x"}, ""},
	} {
		assert.Equal(t, tc.db, connectedDB(tc.argv), tc.argv)
	}
}

func TestUserLimitDenied(t *testing.T) {
	out := userLimitText
	for _, tc := range []struct {
		name string
		res  execx.Result
		err  error
		want bool
	}{
		{"refused", execx.Result{Output: out, ExitCode: 1}, execx.ErrExit, true},
		{"refused in Portuguese", execx.Result{Output: "** O servidor ou o sistema não tem mais recursos. Tente um -n maior. (748)\n", ExitCode: 1}, execx.ErrExit, true},
		{"the number inside a path", execx.Result{Output: "** Cannot find or open file /d/(748)/x, errno = 2. (43)\n", ExitCode: 1}, execx.ErrExit, false},
		{"succeeded", execx.Result{Output: out}, nil, false},
		{"killed", execx.Result{Output: out, Signal: 9}, execx.ErrExit, false},
		{"hung", execx.Result{Output: out, ExitCode: 1, TimedOut: true}, execx.ErrExit, false},
	} {
		assert.Equal(t, tc.want, userLimitDenied(tc.res, tc.err), tc.name)
	}
}

// The gate holds the calls to those started before the refused one and
// still running, and lowers only.
func TestConnGate(t *testing.T) {
	g := newConnGate()
	ctx := context.Background()
	var tickets []uint64
	for range 5 {
		tk, err := g.enter(ctx)
		require.NoError(t, err)
		tickets = append(tickets, tk)
	}
	connected, limit, first := g.denied(tickets[3]) // 0, 1, 2 started before it
	assert.Equal(t, 3, connected)
	assert.Equal(t, 3, limit)
	assert.True(t, first)
	g.leave(tickets[0])
	connected, limit, first = g.denied(tickets[4]) // 1 and 2 before it
	assert.Equal(t, 2, connected)
	assert.Equal(t, 2, limit)
	assert.False(t, first)
	connected, limit, _ = g.denied(tickets[1]) // nothing before it: bound 1
	assert.Equal(t, 0, connected)
	assert.Equal(t, 1, limit)
	full, cancel := context.WithCancel(ctx)
	cancel()
	_, err := g.enter(full)
	assert.ErrorIs(t, err, context.Canceled, "one call runs: the limit holds")
	g.leave(tickets[2])
	_, err = g.enter(ctx)
	require.NoError(t, err)
}
