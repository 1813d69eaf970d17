package run

import (
	"context"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// TestOrphanScriptStopsOnlyWhatCarriesEveryMark runs the script a host
// runs on this machine, against a process it started with a run's and a
// job's marks: another job's mark, or another run's, leaves it alone
// (a retry stops its own job's earlier attempt, never a neighbour's);
// the run's mark alone (a resume) stops it.
func TestOrphanScriptStopsOnlyWhatCarriesEveryMark(t *testing.T) {
	const run, job = WorkEnv + "=/w/run1", JobEnv + "=dump:PUB.customer"
	for _, tt := range []struct {
		name  string
		marks []string
		stops bool
	}{
		{"its run and job", []string{run, job}, true},
		{"its run (a resume)", []string{run}, true},
		{"another job of its run", []string{run, JobEnv + "=dump:PUB.order"}, false},
		{"its job name in another run", []string{WorkEnv + "=/w/run2", job}, false},
		{"a prefix of its job", []string{run, JobEnv + "=dump:PUB.cust"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sleeper := exec.Command("sleep", "60")
			sleeper.Env = []string{run, job, "PATH=/usr/bin:/bin"}
			require.NoError(t, sleeper.Start())
			// Reaped at once, as its parent on a host reaps it: a zombie
			// would pass for running.
			ended := make(chan error, 1)
			go func() { ended <- sleeper.Wait() }()
			defer func() { _ = sleeper.Process.Kill(); <-ended }()
			pid := strconv.Itoa(sleeper.Process.Pid)

			stopped, err := stopMarked(context.Background(), &machine{runner: execx.Local{}}, nil, tt.marks...)
			require.NoError(t, err)
			if !tt.stops {
				assert.NotContains(t, stopped, pid)
				select {
				case err := <-ended:
					t.Fatalf("stopped: %v", err)
				default:
				}
				return
			}
			assert.Contains(t, stopped, " "+pid)
			err = <-ended
			assert.ErrorContains(t, err, "terminated", "stopped by SIGTERM")
			ended <- err
		})
	}
}
