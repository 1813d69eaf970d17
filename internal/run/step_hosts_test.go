package run

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/plan"
)

// exitsWith is a host on which every call prints output and exits code.
type exitsWith struct {
	output string
	code   int
}

func (x exitsWith) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	return execx.Result{Output: x.output, ExitCode: x.code}, fmt.Errorf("%s exited with code %d: %w", c.Path, x.code, execx.ErrExit)
}

// TestRemoteUtilityFailureNamesItsHost: a utility that fails on a host
// of a run across hosts is named with that host in the job's error (the
// run's failure list, the journal, oedl status): "proutil idxbuild ran
// out of disk space" did not say which machine's disk, and the file it
// names may exist on several. On this machine the text is as before.
func TestRemoteUtilityFailureNamesItsHost(t *testing.T) {
	hf, err := hosts.Parse("hosts.yaml", []byte(threeHostsFile))
	require.NoError(t, err)
	cfg := Config{Hosts: hf, PlanDir: "/plan", Work: t.TempDir(), Plan: &plan.Plan{BlockSize: 8192}, DumpJobs: 2, LoadJobs: 2}
	cfg.fill()
	cfg.setupHosts()
	full := "** Error writing /data1/prod_8.d1, errno = 28: no space left on device. (oesim)\n"
	for _, tt := range []struct {
		name, host string
		fail       exitsWith
		want       string
	}{
		{"disk full", "new", exitsWith{full, 1}, "proutil idxbuild on host new ran out of disk space (errno 28, exit code 1): ** Error writing /data1/prod_8.d1"},
		{"exit code", "prod", exitsWith{"** something (1234)\n", 2}, "proutil idxbuild on host prod exited with code 2"},
		{"this machine", "", exitsWith{full, 1}, "proutil idxbuild ran out of disk space (errno 28, exit code 1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.host == "" {
				cfg.Runner = tt.fail
			} else {
				cfg.machine(tt.host).runner = tt.fail
			}
			e := &Executor{cfg: &cfg, starts: map[string]int{}}
			_, err := e.runCall(context.Background(), "idxbuild", step{argv: []string{"/dlc/bin/proutil", "/db/x", "-C", "idxbuild", "all"}, utility: "idxbuild", host: tt.host}, 0, nil, nil)
			var jerr *JobError
			require.ErrorAs(t, err, &jerr)
			assert.Contains(t, jerr.Error(), tt.want)
		})
	}
}
