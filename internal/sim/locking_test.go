package sim

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
	"github.com/oedl/oedl/internal/sysproc"
)

// smallDB generates a private sports database (tests that lock it must
// not share it).
func smallDB(t *testing.T) (*dlcEnv, string) {
	t.Helper()
	env := newDLC(t)
	db := filepath.Join(env.work, "db", "sports")
	env.ok(t, "oesim", "gen", "--dlc", env.dlc, "--db", db, "--profile", "sports", "--scale", "2MB", "--seed", "3")
	return env, db
}

// startHeld starts a utility that takes the database and then hangs (a
// hang fault), and waits until it holds DB.lk.
func startHeld(t *testing.T, env *dlcEnv, db, faults string, args ...string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := env.command(ctx, []string{"OESIM_FAULTS=" + faults}, "proutil", args...)
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	p := store.PathsFor(db)
	state := filepath.Join(filepath.Dir(env.dlc), "state")
	require.Eventually(t, func() bool {
		h, _ := store.ReadHolder(p)
		// A ",once" rule leaves its firing in the state directory: the
		// utility is then hanging where the fault struck.
		fired, _ := filepath.Glob(filepath.Join(state, "fault-*"))
		return h != nil && h.Alive && h.Pid == cmd.Process.Pid && len(fired) > 0
	}, 30*time.Second, 5*time.Millisecond, "the held utility never reached its hang")
	return func() {
		cmd.Process.Kill() // SIGKILL: DB.lk stays behind, stale
		<-done
		cancel()
	}
}

func TestSingleUserExcludesOthers(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	kill := startHeld(t, env, db, "dump:hang,once", db, "-C", "dump", "Customer", dir)

	r := env.run(t, nil, "", "proutil", db, "-C", "dump", "Item", dir)
	assert.Equal(t, exitFail, r.code)
	assert.True(t, openedge.HasMessage(r.out, openedge.MsgInUseSingle), r.out)

	r = env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyInUse, r.code)
	r = env.run(t, nil, "", "proutil", db, "-C", "holder")
	assert.Equal(t, holderSingle, r.code)
	r = env.run(t, nil, "", "proserve", db)
	assert.NotEqual(t, 0, r.code, "a database held single-user cannot be served")

	kill()
	r = env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyNotInUse, r.code, "a dead holder does not make the database busy: %s", r.out)
	out := env.ok(t, "proutil", db, "-C", "tabanalys")
	assert.Contains(t, out, "(5326)", "the stale DB.lk is recovered with a message")
	_, err := os.Stat(db + ".lk")
	assert.True(t, os.IsNotExist(err), "DB.lk is gone after the recovering utility ends")
}

// A load killed half way (kill -9) leaves its committed records, inactive
// indexes and a stale DB.lk; the next utility recovers, tabanalys shows
// the partial count and idxbuild makes the indexes usable again.
func TestKilledLoadIsRecovered(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	before := analysis(t, env, db)
	tbl := biggest(before)
	env.ok(t, "proutil", db, "-C", "dump", tbl.Name, dir)

	tgt := emptyCopy(t, env, db, "copy")
	hangAt := strconv.FormatInt(tbl.Records-1, 10)
	kill := startHeld(t, env, tgt, "load:hang-after="+hangAt+",once", tgt, "-C", "load", filepath.Join(dir, tbl.Name+".bd"))
	kill()

	r := env.run(t, nil, "", "proutil", tgt, "-C", "holder")
	assert.Equal(t, 0, r.code, r.out)
	after := analysis(t, env, tgt)
	got := counts(after)[tbl.QualifiedName()]
	assert.Positive(t, got, "committed records stay after kill -9")
	assert.Less(t, got, tbl.Records)
	out := env.ok(t, "proutil", tgt, "-C", "idxbuild", "table", tbl.Name)
	res, err := openedge.ParseIdxbuildOutput(out)
	require.NoError(t, err)
	assert.Positive(t, res.Indexes)
}

// A holder that dies while it runs with -i (a load given -i, a broker
// started with -i) leaves a database crash recovery cannot repair: every
// utility refuses it with (509) and (510). One that ends cleanly leaves it
// usable, and a killed load without -i is recovered as ever.
func TestNoIntegrityCrash(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	tbl := biggest(analysis(t, env, db))
	env.ok(t, "proutil", db, "-C", "dump", tbl.Name, dir)
	bd := filepath.Join(dir, tbl.Name+".bd")
	hangAt := strconv.FormatInt(tbl.Records-1, 10)
	damaged := func(t *testing.T, tgt string) {
		t.Helper()
		for _, args := range [][]string{{tgt, "-C", "tabanalys"}, {tgt, "-C", "truncate", "area", "Data"}} {
			r := env.run(t, nil, "\ny\n", "proutil", args...)
			assert.Equal(t, exitFail, r.code, r.out)
			assert.True(t, openedge.HasMessage(r.out, 509) && openedge.HasMessage(r.out, 510), r.out)
		}
		r := env.run(t, nil, "", "proserve", tgt)
		assert.Equal(t, exitFail, r.code, r.out)
		assert.True(t, openedge.HasMessage(r.out, 509), r.out)
	}
	t.Run("clean single-user", func(t *testing.T) {
		tgt := emptyCopy(t, env, db, "clean")
		out := env.ok(t, "proutil", tgt, "-C", "load", bd, "-i")
		assert.True(t, openedge.HasMessage(out, 512), out)
		assert.Equal(t, tbl.Records, counts(analysis(t, env, tgt))[tbl.QualifiedName()])
	})
	t.Run("killed single-user", func(t *testing.T) {
		tgt := emptyCopy(t, env, db, "killed")
		startHeld(t, env, tgt, "load:hang-after="+hangAt+",once", tgt, "-C", "load", bd, "-i")()
		damaged(t, tgt)
	})
	t.Run("served clean", func(t *testing.T) {
		tgt := emptyCopy(t, env, db, "served")
		out := env.ok(t, "proserve", tgt, "-i")
		assert.True(t, openedge.HasMessage(out, 512), out)
		env.ok(t, "proutil", tgt, "-C", "load", bd)
		env.ok(t, "proshut", tgt, "-by")
		assert.Equal(t, tbl.Records, counts(analysis(t, env, tgt))[tbl.QualifiedName()])
	})
	t.Run("broker killed", func(t *testing.T) {
		tgt := emptyCopy(t, env, db, "broker")
		env.ok(t, "proserve", tgt, "-i")
		h, err := store.ReadHolder(store.PathsFor(tgt))
		require.NoError(t, err)
		require.True(t, h.Alive && h.NoIntegrity)
		require.NoError(t, syscall.Kill(h.Pid, syscall.SIGKILL))
		require.Eventually(t, func() bool { h, _ := store.ReadHolder(store.PathsFor(tgt)); return !h.Alive }, 10*time.Second, 5*time.Millisecond)
		damaged(t, tgt)
	})
}

func TestServedDatabase(t *testing.T) {
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))

	r := env.run(t, nil, "", "proutil", db, "-C", "dump", "Customer", dir, "-thread", "1")
	assert.Equal(t, exitFail, r.code, "a threaded dump needs a served database")

	out := env.ok(t, "proserve", db, "-B", "1000")
	assert.Contains(t, out, "(333)")
	t.Cleanup(func() { env.run(t, nil, "", "proshut", db, "-by") })

	for _, args := range [][]string{
		{db, "-C", "idxbuild", "all"},
		{db, "-C", "truncate", "bi"},
		{db, "-C", "truncate", "area", "Data"},
	} {
		r := env.run(t, nil, "", "proutil", args...)
		assert.Equal(t, exitFail, r.code, strings.Join(args, " "))
		assert.True(t, openedge.HasMessage(r.out, openedge.MsgInUseMulti), r.out)
	}
	r = env.run(t, nil, "", "proutil", db, "-C", "holder")
	assert.Equal(t, holderMulti, r.code)
	r = env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyInUse, r.code)

	// Clients run together on a served database.
	before := analysis(t, env, db)
	tbl := biggest(before)
	list := filepath.Join(dir, "list")
	out = env.ok(t, "proutil", db, "-C", "dump", tbl.Name, dir, "-thread", "1", "-threadnum", "2", "-dumplist", list)
	res, err := openedge.ParseDumpOutput(out)
	require.NoError(t, err)
	assert.Equal(t, tbl.Records, res.Records)
	var sum int64
	for _, b := range res.Brackets {
		sum += b
	}
	assert.Equal(t, res.Records, sum, "brackets add up")
	files, err := os.ReadFile(list)
	require.NoError(t, err)
	lines := strings.Fields(string(files))
	assert.Len(t, lines, res.Threads)
	for _, f := range lines {
		assert.True(t, filepath.IsAbs(f))
		assert.FileExists(t, f)
	}
	out = env.ok(t, "proshut", db, "-by")
	assert.True(t, openedge.HasMessage(out, openedge.MsgShutdownComplete))

	// The sections load back through the dump list, building the indexes.
	tgt := emptyCopy(t, env, db, "sections")
	out = env.ok(t, "proutil", tgt, "-C", "load", lines[0], "build", "indexes", "-dumplist", list)
	lr, err := openedge.ParseLoadOutput(out)
	require.NoError(t, err)
	assert.Equal(t, tbl.Records, lr.Records)
	assert.Equal(t, res.Threads, strings.Count(out, "(6204)"), "one (6204) per section")
	assert.Equal(t, tbl.Records, counts(analysis(t, env, tgt))[tbl.QualifiedName()])
	env.ok(t, "proutil", tgt, "-C", "dump", tbl.Name, t.TempDir()) // its indexes are active
	r = env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyNotInUse, r.code)
}

// A broker pays its start-up cost holding the database in "starting"
// mode: busy answers 64 then, 6 once it serves.
func TestBusyWhileBrokerStarts(t *testing.T) {
	env, db := smallDB(t)
	done := make(chan result, 1)
	go func() { done <- env.run(t, []string{"OESIM_STARTUP_MS=1500"}, "", "proserve", db) }()
	t.Cleanup(func() { env.run(t, nil, "", "proshut", db, "-by") })
	p := store.PathsFor(db)
	require.Eventually(t, func() bool {
		h, _ := store.ReadHolder(p)
		return h != nil && h.Alive && h.Mode == store.Starting
	}, 30*time.Second, 2*time.Millisecond, "the broker never showed as starting")
	// 1.5 s of start-up leaves ample time for one busy call.
	r := env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyStarting, r.code, r.out)
	require.Equal(t, 0, (<-done).code)
	r = env.run(t, nil, "", "proutil", db, "-C", "busy")
	assert.Equal(t, busyInUse, r.code)
}

// proshut -by disconnects the broker's users before the database shuts
// down, as the real one does ("disconnects all active users", PROSHUT
// command): once it returns, no client of the broker runs, and a
// single-user utility can open the database at once.
func TestProshutDisconnectsUsers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process identity is read from /proc")
	}
	env, db := smallDB(t)
	dir := filepath.Join(env.work, "d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	env.ok(t, "proserve", db)
	t.Cleanup(func() { env.run(t, nil, "", "proshut", db, "-by") })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, exited := env.heldDump(t, ctx, db, dir)
	p := store.PathsFor(db)

	id, err := sysproc.Of(client.Process.Pid)
	require.NoError(t, err)
	out := env.ok(t, "proshut", db, "-by")
	assert.True(t, openedge.HasMessage(out, openedge.MsgShutdownComplete), out)
	assert.False(t, id.Alive(), "proshut -by returned while a user of the broker still ran")
	assert.Error(t, <-exited, "the disconnected dump did not succeed")
	assert.NoDirExists(t, p.Users())
	lg, err := os.ReadFile(p.Log())
	require.NoError(t, err)
	assert.Contains(t, string(lg), "Disconnecting user pid "+strconv.Itoa(client.Process.Pid))
	r := env.run(t, nil, "", "proutil", db, "-C", "holder")
	assert.Equal(t, 0, r.code, "nobody holds the database: %s", r.out)
}

// proshut returns once the broker has let the database go, and the broker
// writes nothing after that: whoever called proshut may remove the
// database's directory (a test's cleanup did, and once failed "directory
// not empty" when the broker's last log line landed after proshut). The
// old order failed only when the broker lost the CPU between the two, so
// this catches a regression under load, not every run; strace showed it.
func TestProshutReturnsAfterTheBrokersLastWrite(t *testing.T) {
	env, db := smallDB(t)
	lg := store.PathsFor(db).Log()
	for round := range 5 {
		env.ok(t, "proserve", db)
		env.ok(t, "proshut", db, "-by")
		data, err := os.ReadFile(lg)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		assert.Contains(t, lines[len(lines)-1], "(334)", "round %d: the broker's session end is logged before proshut returns", round)
	}
}
