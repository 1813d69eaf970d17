package sim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// The broker. proserve starts _mprosrv as a detached process in its own
// session (it outlives proserve and the shell that ran it); the broker
// takes DB.lk in multi-user mode and holds it until proshut signals it.
// Clients of a served database (dump, load, tabanalys, _progres) see the
// live multi-user holder and run concurrently, coordinating with flocks.

// brokerChildEnv marks the re-executed broker process.
const brokerChildEnv = "OESIM_BROKER_CHILD"

// brokerReadyTimeout bounds how long proserve waits for its broker.
const brokerReadyTimeout = 30 * time.Second

func runProserve(p *proc) int {
	fs, err := parseFlags(p.args, "-B", "-L", "-n", "-S", "-H", "-N", "-Mn", "-Ma", "-Mi", "-spin", "-bibufs", "-aibufs",
		"-lkwtmo", "-pf", "-db", "-Mpb", "-minport", "-maxport", "-lruskips", "-napmax", "-B2")
	if err != nil || len(fs.pos) < 1 {
		if v, ok := fs.values["-db"]; ok && err == nil {
			fs.pos = append(fs.pos, v)
		} else {
			return p.usage("usage: proserve db-name [parameters]")
		}
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	paths := store.PathsFor(fs.pos[0])
	if err := paths.Check(); err != nil {
		return p.failErr(err)
	}
	if h, _ := store.ReadHolder(paths); h != nil && h.Alive {
		return p.failErr(&store.InUseError{DB: paths.Base, Mode: h.Mode})
	} else if h != nil && h.NoIntegrity {
		return p.failErr(&store.DamagedError{DB: paths.Base})
	}
	noInt := fs.bools["-i"]
	buffers, err := fs.intValue("-B", openedge.DefaultBuffersMultiUser)
	if err != nil || buffers < 10 {
		return p.usage("-B: a number of buffers, at least 10 (%v)", fs.values["-B"])
	}
	users, err := fs.intValue("-n", openedge.DefaultBrokerUsers)
	if err != nil || users < 1 {
		return p.usage("-n: a number of users, at least 1 (%v)", fs.values["-n"])
	}
	exe, err := os.Executable()
	if err != nil {
		return p.failErr(err)
	}
	lg, err := os.OpenFile(paths.Log(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return p.failErr(err)
	}
	defer lg.Close()
	cmd := exec.Command(exe, paths.Base)
	if noInt {
		cmd.Args = append(cmd.Args, "-i")
	}
	cmd.Args = append(cmd.Args, "-B", strconv.Itoa(buffers), "-n", strconv.Itoa(users))
	cmd.Args[0] = filepath.Join(filepath.Dir(exe), "_mprosrv")
	cmd.Env = append(os.Environ(), brokerChildEnv+"=1")
	cmd.Stdout, cmd.Stderr = lg, lg
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return p.fail("oesim.broker.start", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(brokerReadyTimeout)
	for {
		if h, _ := store.ReadHolder(paths); h != nil && h.Alive && h.Mode == store.Multi && h.Pid == cmd.Process.Pid {
			break
		}
		select {
		case err := <-exited:
			return p.fail("oesim.broker.notstarted", paths.Base, err, paths.Log())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return p.fail("oesim.broker.timeout", paths.Base, brokerReadyTimeout)
		}
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	now := time.Now().Format("15:04:05")
	p.say("%s", Release)
	if noInt {
		p.msg("512")
	}
	p.msg("333", now)
	p.msg("5644", now, "oesim", pid)
	return exitOK
}

// runMprosrv is the broker itself when re-executed by proserve, and
// otherwise behaves as proserve.
func runMprosrv(p *proc) int {
	if os.Getenv(brokerChildEnv) == "" {
		return runProserve(p)
	}
	if len(p.args) < 1 {
		return exitUsage
	}
	// The shutdown signal is caught before anything is held: proserve
	// returns as soon as the broker serves, and a proshut sent at once
	// (under load, before a later signal.Notify) killed the broker with
	// Go's default action, leaving DB.lk for a crash recovery and proshut
	// returning before the (1613)/(334) lines (TestProshutReturnsAfterThe
	// BrokersLastWrite caught it). A signal that comes before the broker
	// serves waits in the channel and ends it once it does.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	paths := store.PathsFor(p.args[0])
	fs, err := parseFlags(p.args[1:], "-B", "-n")
	if err != nil {
		logLine(paths.Log(), "BROKER", err.Error())
		return exitFail
	}
	lease, err := store.Acquire(paths, store.Starting)
	var inUse *store.InUseError
	if errors.As(err, &inUse) {
		logLine(paths.Log(), "BROKER", inUse.Error())
		return exitFail
	}
	if err != nil {
		logLine(paths.Log(), "BROKER", err.Error())
		return exitFail
	}
	if fs.bools["-i"] {
		// Its clients write without crash protection from the start:
		// the broker dying from here on leaves the database damaged.
		if err := lease.SetNoIntegrity(); err != nil {
			logLine(paths.Log(), "BROKER", err.Error())
			return exitFail
		}
		logLine(paths.Log(), "BROKER", "(512) This session is being run with the no-integrity (-i) option.")
	}
	if lease.Recovered != nil {
		logLine(paths.Log(), "BROKER", fmt.Sprintf("(5326) Begin Physical Redo Phase at 0 . Previous holder pid %d died.", lease.Recovered.Pid))
	}
	// The start-up cost is paid holding the database in "starting" mode,
	// when proutil -C busy answers 64.
	p.env.startup()
	if err := lease.SetMode(store.Multi); err != nil {
		logLine(paths.Log(), "BROKER", err.Error())
		return exitFail
	}
	// Its clients learn its -B, and no helper yet (helpers.go).
	buffers, _ := fs.intValue("-B", openedge.DefaultBuffersMultiUser)
	users, _ := fs.intValue("-n", openedge.DefaultBrokerUsers)
	if err := updateServedState(paths, func(st *servedState) {
		*st = servedState{Pid: os.Getpid(), Buffers: int64(buffers), Users: users}
	}); err != nil {
		logLine(paths.Log(), "BROKER", err.Error())
		return exitFail
	}
	logLine(paths.Log(), "BROKER", "(333) Multi-user session begin.")
	<-sig
	logLine(paths.Log(), "BROKER", "(1613) Shutdown is executing.")
	if err := lease.SetMode(store.Stopping); err != nil {
		logLine(paths.Log(), "BROKER", err.Error())
	}
	disconnectUsers(paths)
	// Its helpers end with it (a record a kill -9 leaves names a dead pid).
	_ = os.Remove(servedStatePath(paths))
	// Every write of the broker comes before it lets DB.lk go, since
	// proshut returns at that moment and whoever called it may then
	// remove the database's directory or the state directory: a test's
	// cleanup did, and failed "directory not empty" under load, the (334)
	// line reopening DB.lg (O_CREATE) after proshut had returned (strace:
	// the openat came after the unlink of DB.lk). The virtual disk's last
	// counters go to the state directory here for the same reason.
	logLine(paths.Log(), "BROKER", "(334) Multi-user session end.")
	p.env.close()
	lease.Release()
	return exitOK
}

// disconnectUsers ends every connection to the broker before it lets the
// database go, as proshut -by does: "disconnects all active users ...
// without notice" (PROSHUT command). A user gets SIGTERM, SIGKILL if it is
// still connected after userDisconnectWait, and the broker waits until the
// kernel has dropped every user's lock: once proshut returns, no client
// of the broker writes to the database.
func disconnectUsers(paths store.Paths) {
	signalled := map[int]bool{}
	deadline := time.Now().Add(userDisconnectWait)
	killed := false
	for {
		pids, err := store.ConnectedUsers(paths)
		if err != nil {
			logLine(paths.Log(), "BROKER", err.Error())
		}
		if len(pids) == 0 {
			store.RemoveUsers(paths)
			return
		}
		for _, pid := range pids {
			switch {
			case !signalled[pid]:
				signalled[pid] = true
				logLine(paths.Log(), "BROKER", fmt.Sprintf("Disconnecting user pid %d: the database is shutting down. (oesim)", pid))
				_ = syscall.Kill(pid, syscall.SIGTERM)
			case time.Now().After(deadline) && !killed:
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if time.Now().After(deadline) {
			killed = true
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// userDisconnectWait is how long a user may take to go after SIGTERM.
const userDisconnectWait = 5 * time.Second

// runProshut: proshut DB -by|-bn|-b|-F. Signals the broker and waits for
// it to disconnect its users and release DB.lk.
func runProshut(p *proc) int {
	fs, err := parseFlags(p.args, "-C", "-H", "-S", "-shutdownTimeout", "-cpinternal", "-cpstream")
	if err != nil || len(fs.pos) < 1 {
		return p.usage("usage: proshut db-name [-b | -by | -bn | -F]")
	}
	if _, ok := p.dlc(); !ok {
		return exitFail
	}
	paths, h, rc := p.broker(fs.pos[0], store.Multi, store.Stopping)
	if rc != 0 {
		return rc
	}
	p.msg("1613")
	if err := syscall.Kill(h.Pid, syscall.SIGTERM); err != nil {
		return p.fail("oesim.broker.signal", h.Pid, err)
	}
	deadline := time.Now().Add(brokerReadyTimeout)
	for {
		h, _ := store.ReadHolder(paths)
		if h == nil || !h.Alive {
			break
		}
		if time.Now().After(deadline) {
			return p.fail("oesim.broker.nostop", h.Pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.msg("1614")
	return exitOK
}
