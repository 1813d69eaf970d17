package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// A broker found serving a database at serve or shutdown is used and
// stopped only when it carries this run's mark (safety trial 13): another
// oedl run's, the DBA's (no mark) and one whose environment cannot be read
// are refused at serve (exit 3, not tried again, the other run named) and
// left running at shutdown; on the source and on the target alike.
func TestServeAndShutdownOnlyOwnBroker(t *testing.T) {
	const other = "/srv/other-run/work"
	tests := []struct {
		name     string
		broker   string // "ours", "other", "dba", "unreadable"
		shutdown bool
		want     string // the record's message, or the refusal's text
		refused  bool
	}{
		{name: "serve: this run's broker (resume after kill -9)", broker: "ours", want: "already served"},
		{name: "serve: another oedl run's broker", broker: "other", refused: true, want: "an oedl run in --work " + other + " started"},
		{name: "serve: the DBA's broker", broker: "dba", refused: true, want: "a broker oedl did not start serves it since the preflight found it free (276)"},
		{name: "serve: a broker whose environment cannot be read", broker: "unreadable", refused: true, want: "whose environment this user cannot read"},
		{name: "shutdown: this run's broker", broker: "ours", shutdown: true},
		{name: "shutdown: another oedl run's broker", broker: "other", shutdown: true, want: "served by a broker this run did not start: left running"},
		{name: "shutdown: the DBA's broker", broker: "dba", shutdown: true, want: "served by a broker this run did not start: left running"},
		{name: "shutdown: a broker whose environment cannot be read", broker: "unreadable", shutdown: true, want: "served by a broker this run did not start: left running"},
	}
	for _, which := range []string{schedule.DBSource, schedule.DBTarget} {
		for _, tt := range tests {
			t.Run(which+": "+tt.name, func(t *testing.T) {
				cfg := fakeSetup(t, testTables...)
				require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
				oe := newFakeOE(cfg.Plan)
				cfg.Runner = oe
				db := cfg.db(which)
				oe.served[db] = true
				switch tt.broker {
				case "ours":
					oe.startedBy[db] = brokerMark{pid: 7, work: cfg.workMarker()}
				case "other":
					oe.startedBy[db] = brokerMark{pid: 7, work: other}
				case "unreadable":
					oe.startedBy[db] = brokerMark{pid: 7, unreadable: true}
				}
				built, err := schedule.Build(cfg.Plan, schedule.BuildOptions{ServeSource: true, ServeTarget: true})
				require.NoError(t, err)
				e := newExecutor(&cfg, built, nil, nil)
				log, err := os.Create(filepath.Join(cfg.Work, "logs", "job.log"))
				require.NoError(t, err)
				defer log.Close()
				job, id := e.serveJob, schedule.ServeID(which)
				if tt.shutdown {
					job, id = e.shutdownJob, schedule.ShutdownID(which)
				}
				j := built.Job(id)
				require.NotNil(t, j, id)
				rec, err := job(context.Background(), j, log)
				if tt.refused {
					var pe *PreconditionError
					require.True(t, errors.As(err, &pe), "exit 3: %v", err)
					assert.Equal(t, 276, refusalOf(err), "not tried again")
					assert.Contains(t, err.Error(), tt.want)
				} else {
					require.NoError(t, err)
					assert.Equal(t, tt.want, rec.Message)
				}
				stopped := tt.shutdown && tt.broker == "ours"
				assert.Equal(t, !stopped, oe.served[db], "served after the job")
				assert.Equal(t, stopped, oe.count("proshut "+db+" -by") == 1, "proshut")
			})
		}
	}
}

func TestParseBrokerMarks(t *testing.T) {
	got := parseBrokerMarks("12 =/w/a\n13 =\n14 ?\nnoise\n\n")
	assert.Equal(t, []brokerMark{{pid: 12, work: "/w/a"}, {pid: 13}, {pid: 14, unreadable: true}}, got)
}

// On a host whose brokers cannot be listed (no Linux /proc: AIX,
// Solaris) the shutdown stops the broker this invocation's own serve
// started on a database nobody held, as before the marks (every such run
// failed at its target's shutdown otherwise); one it did not start here
// (a resume's) is not stopped: the job fails naming why.
func TestShutdownWhereBrokersCannotBeListed(t *testing.T) {
	for _, servedHere := range []bool{true, false} {
		t.Run(map[bool]string{true: "served by this invocation", false: "served before it"}[servedHere], func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			require.NoError(t, os.MkdirAll(filepath.Join(cfg.Work, "logs"), 0o755))
			oe := newFakeOE(cfg.Plan)
			oe.noProc = true
			cfg.Runner = oe
			built, err := schedule.Build(cfg.Plan, schedule.BuildOptions{ServeSource: true, ServeTarget: true})
			require.NoError(t, err)
			e := newExecutor(&cfg, built, nil, nil)
			db := cfg.db(schedule.DBTarget)
			log, err := os.Create(filepath.Join(cfg.Work, "logs", "job.log"))
			require.NoError(t, err)
			defer log.Close()
			if servedHere {
				serve := built.Job(schedule.ServeID(schedule.DBTarget))
				rec, err := e.serveJob(context.Background(), serve, log)
				require.NoError(t, err)
				e.finals[serve.ID] = rec // as the executor keeps a done job's record
			} else {
				oe.served[db] = true
			}
			_, err = e.shutdownJob(context.Background(), built.Job(schedule.ShutdownID(schedule.DBTarget)), log)
			if servedHere {
				require.NoError(t, err)
				assert.False(t, oe.served[db], "this invocation's broker is shut down")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot tell who started the broker of "+db)
			assert.True(t, oe.served[db], "not shut down")
			assert.Zero(t, oe.count("proshut "+db+" -by"))
		})
	}
}
