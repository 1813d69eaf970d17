package sim

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/sim/fault"
	"github.com/oedl/oedl/internal/sim/store"
	"github.com/oedl/oedl/internal/sim/vdisk"
)

// environment is what the OESIM_* variables switch on for one utility
// call: the fault rules (OESIM_FAULTS, package fault) and the shared
// virtual disk with its start-up cost (OESIM_DISK_MBPS, OESIM_DISK_IOPS,
// OESIM_STARTUP_MS, package vdisk). Those packages own the semantics; this
// file applies them inside the utilities.
type environment struct {
	faults *fault.Set
	disk   *vdisk.Disk
	slow   *throttle // a slow=RATE fault on this call, or nil
	// noLargeFiles (OESIM_LARGE_FILES=no) plays an installation whose
	// databases cannot have large files: OpenEdge 11.x before proutil
	// -C enablelargefiles, or 12.0 to 12.5 under a Workgroup or Personal
	// license. oesim otherwise plays 12.8, where every database has them.
	noLargeFiles bool
}

// throttle holds one utility call's own I/O to a rate (fault.Slow): the
// call waits until its bytes so far could have moved at that rate since it
// began, as it would behind a device that slow.
type throttle struct {
	perSecond float64
	start     time.Time
	bytes     int64
}

func (t *throttle) charge(n int64) {
	if t == nil || n <= 0 {
		return
	}
	t.bytes += n
	due := t.start.Add(time.Duration(float64(t.bytes) / t.perSecond * float64(time.Second)))
	if wait := time.Until(due); wait > 0 {
		time.Sleep(wait) // the slow device's service time, not a stand-in for work
	}
}

// loadEnvironment reads the OESIM_* variables; a malformed one is an
// error naming it.
func loadEnvironment() (*environment, error) {
	fs, err := fault.FromEnv()
	if err != nil {
		return nil, err
	}
	d, err := vdisk.FromEnv()
	if err != nil {
		return nil, err
	}
	env := &environment{faults: fs, disk: d}
	if _, err := oldLogLayout(); err != nil {
		return nil, err
	}
	switch v := os.Getenv("OESIM_LARGE_FILES"); v {
	case "", "yes":
	case "no":
		env.noLargeFiles = true
	default:
		return nil, fmt.Errorf("OESIM_LARGE_FILES=%q: want yes or no", v)
	}
	return env, nil
}

func (e *environment) startup() {
	if e != nil {
		e.disk.Startup()
	}
}

// The utilities draw their I/O from the shared virtual disk by access
// pattern, as a real utility's requests reach the device (package vdisk:
// sequential bytes are merged into large requests, random ones count one
// each). An error (the state file under OESIM_STATE cannot be opened,
// locked, read or written) must fail the utility: carrying on would run it
// at a speed nobody asked for. The cause is kept as text only, so that the
// utility does not report it as a failed write of its own file.

// seqRead charges bytes read in sequence.
func (e *environment) seqRead(bytes int64) error {
	if e == nil {
		return nil
	}
	e.slow.charge(bytes)
	return diskErr(e.disk.Sequential(bytes, false))
}

// seqWrite charges bytes written in sequence.
func (e *environment) seqWrite(bytes int64) error {
	if e == nil {
		return nil
	}
	e.slow.charge(bytes)
	return diskErr(e.disk.Sequential(bytes, true))
}

// randomRead charges n reads of size bytes at scattered places.
func (e *environment) randomRead(n, size int64) error {
	if e == nil {
		return nil
	}
	e.slow.charge(n * size)
	return diskErr(e.disk.Random(n, size, false))
}

// cachedRead charges a read of size bytes at offset of file through the
// host's page cache: from the device the first time the block is read,
// free after (vdisk.Disk.CachedRead).
func (e *environment) cachedRead(file string, offset, size int64) error {
	if e == nil {
		return nil
	}
	return diskErr(e.disk.CachedRead(file, offset, size))
}

// randomWrite charges n writes of size bytes the utility waits for.
func (e *environment) randomWrite(n, size int64) error {
	if e == nil {
		return nil
	}
	e.slow.charge(n * size)
	return diskErr(e.disk.Random(n, size, true))
}

func diskErr(err error) error {
	if err != nil {
		return fmt.Errorf("oesim's shared virtual disk failed (its state is in OESIM_STATE): %v", err)
	}
	return nil
}

// close hands the disk's last counters over; the utility is done.
func (e *environment) close() {
	if e != nil {
		_ = e.disk.Close() // counters only: the utility's work is done either way
	}
}

// faultPlan is the fault rule that applies to one utility call and table.
type faultPlan struct {
	rule *fault.Rule
	p    *proc
}

// fault returns the rule that applies to this call and table, or nil. It
// does not fire it: each kind fires at the moment it strikes.
func (e *environment) fault(p *proc, qualifier, table string) *faultPlan {
	if e == nil {
		return nil
	}
	r := e.faults.For(p.name, qualifier, table)
	if r == nil && (p.name == "_proutil" || p.name == "_dbutil") {
		r = e.faults.For("proutil", qualifier, table)
	}
	if r == nil {
		return nil
	}
	return &faultPlan{rule: r, p: p}
}

// is reports whether the plan is of kind k.
func (f *faultPlan) is(k fault.Kind) bool { return f != nil && f.rule.Kind == k }

// n is the rule's argument (records, exit code, bytes).
func (f *faultPlan) n() int64 { return f.rule.N }

// strike uses one firing of the rule; false when its firings are spent.
// A fault state that cannot be reached ends the utility loudly, rather
// than silently skip or repeat a planned fault.
func (f *faultPlan) strike() bool {
	ok, err := f.rule.Fire()
	if err != nil {
		f.p.msg("oesim.error", err)
		os.Exit(exitFail)
	}
	return ok
}

// applyEarlyFault handles the faults that strike before any work: exit,
// hang, delay, slow, and crash-after=0 ("crash") and hang-after=0, which
// recordFault cannot see as it counts records from 1. It returns -1 when
// the work should go on.
func applyEarlyFault(p *proc, fp *faultPlan) int {
	atStart := fp != nil && fp.n() == 0
	switch {
	case fp.is(fault.Exit) && fp.strike():
		p.msg("oesim.fault.exit", fp.rule.Text, fp.n())
		return int(fp.n())
	case fp.is(fault.OpenErrno) && fp.strike():
		return p.fail("43", faultFile(p), fp.n())
	case fp.is(fault.CrashAfter) && atStart && fp.strike():
		fault.CrashNow()
	case (fp.is(fault.Hang) || (fp.is(fault.HangAfter) && atStart)) && fp.strike():
		_ = fault.HangNow(context.Background())
	case fp.is(fault.Delay) && fp.strike():
		time.Sleep(fp.rule.Delay)
	case fp.is(fault.Wait) && fp.strike():
		fault.WaitRelease(fault.StateDir(), fp.rule.Name)
	case fp.is(fault.Slow) && p.env != nil && fp.strike():
		p.env.slow = &throttle{perSecond: float64(fp.n()), start: time.Now()}
	}
	return -1
}

// faultFile is the file an open-errno fault says could not be opened:
// the control area of the database the utility was called on (its first
// argument, as proutil and prostrct take it), else the utility itself.
func faultFile(p *proc) string {
	for _, a := range p.args {
		if !strings.HasPrefix(a, "-") {
			return store.PathsFor(a).Control()
		}
		break
	}
	return p.name
}

// recordFault is the per-record check of crash-after and hang-after: call
// it after record count (1-based) has been processed. (N = 0 strikes at
// start, in applyEarlyFault.)
func (f *faultPlan) recordFault(count int64, beforeCrash func()) {
	switch {
	case f == nil || count != f.rule.N:
	case f.is(fault.CrashAfter) && f.strike():
		if beforeCrash != nil {
			beforeCrash()
		}
		fault.CrashNow()
	case f.is(fault.HangAfter) && f.strike():
		_ = fault.HangNow(context.Background())
	}
}
