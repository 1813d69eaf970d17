package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// A run on a free source asks proutil -C holder nothing: its preflight's
// dump_lasttask.p session proves the source free (checkSourceFree), and
// its serve and shutdown run proserve and proshut directly (each holder
// call was a utility start-up, the serve's ahead of every dump, the
// target's shutdown between the last load and idxbuild).
func TestServeAndShutdownAskNoHolder(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	cfg.DumpJobs, cfg.LoadJobs = 2, 2
	oe := newFakeOE(cfg.Plan)
	cfg.Runner = oe
	_, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	count := oe.count
	assert.Equal(t, 0, count("proutil "+cfg.Source+" -C holder"), "the preflight's read of the last task proves it free")
	assert.Equal(t, 0, count("proutil "+cfg.Target+" -C holder"), "a new target: nothing to ask")
	for _, db := range []string{cfg.Source, cfg.Target} {
		assert.Equal(t, 1, count("proshut "+db+" -by"), db)
		n := 0
		for _, c := range oe.calls {
			if strings.HasPrefix(c, "proserve "+db+" ") || c == "proserve "+db {
				n++
			}
		}
		assert.Equal(t, 1, n, "proserve %s", db)
	}
}

// When proserve or proshut refuses, the holder says why, and the answers
// are the ones the holder gave before it was asked first.
func TestServeAndShutdownWhenRefused(t *testing.T) {
	tests := []struct {
		name          string
		served, held  bool
		shutdown      bool
		wantMessage   string
		wantErrSubstr string
	}{
		{name: "serve: already served (a killed run's broker)", served: true, wantMessage: "already served"},
		{name: "serve: held single-user", held: true, wantErrSubstr: "a single-user utility holds it (263)"},
		{name: "serve: free", wantMessage: "broker started"},
		{name: "shutdown: served", served: true, shutdown: true},
		{name: "shutdown: no broker (stopped before a resume)", shutdown: true, wantMessage: "not served"},
		{name: "shutdown: held single-user, no broker", held: true, shutdown: true, wantMessage: "not served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
			oe := newFakeOE(cfg.Plan)
			cfg.Runner = oe
			oe.served[cfg.Source], oe.single[cfg.Source] = tt.served, tt.held
			if tt.served { // the broker this run (its killed invocation) started
				oe.startedBy[cfg.Source] = brokerMark{pid: fakeBrokerPID, work: cfg.workMarker()}
			}
			built, err := schedule.Build(cfg.Plan, schedule.BuildOptions{ServeSource: true})
			require.NoError(t, err)
			e := newExecutor(&cfg, built, nil, nil)
			log, err := os.Create(filepath.Join(cfg.Work, "logs", "job.log"))
			require.NoError(t, err)
			defer log.Close()
			id := schedule.ServeID(schedule.DBSource)
			if tt.shutdown {
				id = schedule.ShutdownID(schedule.DBSource)
			}
			j := built.Job(id)
			require.NotNil(t, j)
			job := e.serveJob
			if tt.shutdown {
				job = e.shutdownJob
			}
			rec, err := job(context.Background(), j, log)
			if tt.wantErrSubstr != "" {
				var jerr *JobError
				require.True(t, errors.As(err, &jerr), "%v", err)
				assert.Contains(t, err.Error(), tt.wantErrSubstr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantMessage, rec.Message)
			assert.Equal(t, tt.shutdown == false, oe.served[cfg.Source], "served after the job")
		})
	}
}
