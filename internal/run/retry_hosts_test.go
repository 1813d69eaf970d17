package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// lostThenStops is a host whose first utility call loses its connection
// (the utility may go on running there) and whose orphan script answers
// stopOutput with exit code stopExit. It records every call in order.
type lostThenStops struct {
	mu         sync.Mutex
	calls      []execx.Cmd
	stopOutput string
	stopExit   int
}

func (h *lostThenStops) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	n := len(h.calls)
	h.mu.Unlock()
	switch {
	case c.Path == "sh":
		if c.Stdout != nil {
			_, _ = c.Stdout.Write([]byte(h.stopOutput))
		}
		if h.stopExit != 0 {
			return execx.Result{ExitCode: h.stopExit}, execx.ErrExit
		}
		return execx.Result{}, nil
	case n == 1:
		return execx.Result{ExitCode: 255}, &execx.HostError{Dest: "new1", Err: os.ErrDeadlineExceeded}
	}
	return execx.Result{Output: "12 indexes were rebuilt. (11465)\nIndex rebuild complete. 0 error(s) encountered.\n"}, nil
}

// kinds names the calls in order: "stop" for the orphan script, the
// utility's program otherwise.
func (h *lostThenStops) kinds() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, c := range h.calls {
		if c.Path == "sh" {
			out = append(out, "stop")
		} else {
			out = append(out, filepath.Base(c.Path))
		}
	}
	return out
}

// TestRemoteRetryFirstStopsTheEarlierAttempt: a job on another host whose
// connection dropped mid-run is retried while its first attempt's
// utility may still run there (a remote utility notices its session
// ended only when it writes to it). Two attempts of one job must never
// run together: before the retry, every process of the job's earlier
// attempts is stopped on its host (found by the run's and the job's
// marks), and a host where one cannot be stopped fails the job, named
// with the host, without a retry.
func TestRemoteRetryFirstStopsTheEarlierAttempt(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stopOut   string
		stopExit  int
		wantCalls []string
		wantErr   string
	}{
		{"stopped, then retried", "stopped: 4242", 0, []string{"proutil", "stop", "proutil"}, ""},
		{"nothing left, then retried", "", 0, []string{"proutil", "stop", "proutil"}, ""},
		{"cannot be stopped: no retry", "still running: 4242", 1, []string{"proutil", "stop"}, "host new"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hf, err := hosts.Parse("hosts.yaml", []byte(threeHostsFile))
			require.NoError(t, err)
			cfg := Config{Hosts: hf, PlanDir: "/plan", Work: t.TempDir(), Plan: &plan.Plan{BlockSize: 8192}, DumpJobs: 2, LoadJobs: 2, Retries: 1}
			cfg.fill()
			cfg.setupHosts()
			host := &lostThenStops{stopOutput: tt.stopOut, stopExit: tt.stopExit}
			cfg.machine("new").runner = host
			require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
			jw, _, err := journal.Open(filepath.Join(cfg.Work, journal.FileName))
			require.NoError(t, err)
			defer jw.Close()
			j := &schedule.Job{ID: "idxbuild", Kind: schedule.KindIdxbuild, Host: "new"}
			g, err := schedule.NewGraph([]*schedule.Job{j})
			require.NoError(t, err)
			e := newExecutor(&cfg, &schedule.Built{Graph: g}, jw, nil)
			e.sink = event.SinkFunc(func(event.Event) {})

			out := e.run(context.Background(), j, 1)

			assert.Equal(t, tt.wantCalls, host.kinds())
			utility := host.calls[0]
			assert.Contains(t, utility.Env, "OEDL_JOB=idxbuild", "the utility carries its job's mark")
			stop := host.calls[1]
			assert.True(t, slices.Contains(stop.Args, cfg.runMarker()), "only this run's processes: %q", stop.Args)
			assert.True(t, slices.Contains(stop.Args, "OEDL_JOB=idxbuild"), "only this job's processes: %q", stop.Args)
			if tt.wantErr == "" {
				require.NoError(t, out.Err)
				return
			}
			require.Error(t, out.Err)
			assert.Contains(t, out.Err.Error(), tt.wantErr)
			assert.True(t, strings.Contains(out.Err.Error(), "4242"), out.Err.Error())
		})
	}
}

// TestRemoteLoadRepairFirstStopsTheFailedLoad: a load on another host
// whose connection dropped is repaired (its area truncated, its tables
// reloaded) only once its utility is stopped there: a stale load beside
// its reload would write into the truncated area. One that cannot be
// stopped fails the load, named with its host, and nothing is repaired.
func TestRemoteLoadRepairFirstStopsTheFailedLoad(t *testing.T) {
	for _, tt := range []struct {
		name       string
		stopExit   int
		wantRepair bool
	}{
		{"stopped, then repaired", 0, true},
		{"cannot be stopped: no repair", 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			newWork := t.TempDir()
			hf, err := hosts.Parse("hosts.yaml", []byte(strings.Replace(threeHostsFile, "/w-new", newWork, 1)))
			require.NoError(t, err)
			cfg := fakeSetup(t, placement("PUB.customer", "Cust", 1000))
			cfg.Hosts, cfg.Retries = hf, 1
			cfg.fill()
			cfg.setupHosts()
			host := &lostThenStops{stopOutput: "still running: 4242", stopExit: tt.stopExit}
			if tt.stopExit == 0 {
				host.stopOutput = "stopped: 4242"
			}
			m := cfg.machine("new")
			local := &hostfs.Local{}
			local.Own(newWork)
			m.runner, m.fs = host, local
			bd := filepath.Join(cfg.at("new").dumpDir("PUB.customer"), "customer.bd")
			require.NoError(t, os.MkdirAll(filepath.Dir(bd), 0o755))
			require.NoError(t, os.WriteFile(bd, []byte("records"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
			jw, _, err := journal.Open(filepath.Join(cfg.Work, journal.FileName))
			require.NoError(t, err)
			defer jw.Close()
			j := &schedule.Job{ID: "load:PUB.customer", Kind: schedule.KindLoad, Table: "PUB.customer", Area: "Cust", Host: "new"}
			g, err := schedule.NewGraph([]*schedule.Job{j})
			require.NoError(t, err)
			e := newExecutor(&cfg, &schedule.Built{Graph: g}, jw, nil)
			e.sink = event.SinkFunc(func(event.Event) {})

			out := e.run(context.Background(), j, 1)

			require.Equal(t, []string{"proutil", "stop"}, host.kinds(), "the failed load is stopped before anything follows")
			assert.True(t, slices.Contains(host.calls[1].Args, "OEDL_JOB=load:PUB.customer"), "%q", host.calls[1].Args)
			if tt.wantRepair {
				assert.NotEmpty(t, out.Add, "the repair is queued")
				return
			}
			assert.Empty(t, out.Add, "nothing is repaired")
			require.Error(t, out.Err)
			assert.Contains(t, out.Err.Error(), "host new")
			assert.Contains(t, out.Err.Error(), "4242")
		})
	}
}
