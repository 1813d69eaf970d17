package estimate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bottleneck line says more jobs shorten a queue-bound span only when
// the estimate at more jobs is shorter; when the cores or the disk already
// bind it names them instead (nu-trial10: on 2 cores seed003's dumps
// waited 9.5 s of 9.6 s for a dump slot and 10 or 20 dump jobs gave 9.5 s).
func TestBottleneckNamesWhatBinds(t *testing.T) {
	tiny := make([]int64, 400)
	for i := range tiny {
		tiny[i] = 10e3
	}
	latency := DefaultModel() // a dump's start-up is latency: more slots overlap it
	cpu := DefaultModel()     // all of it CPU: more slots share the same cores
	cpu.Dump.StartupCPUSec = cpu.Dump.StartupSec
	disk := DefaultModel() // a start-up reads 4 MB: more slots share the same disk
	disk.Dump.StartupSec, disk.Dump.StartupIOKB = 0, 4000
	for _, tc := range []struct {
		name    string
		model   *Model
		hw      Hardware
		strat   Strategy
		want    []string
		wantNot string
	}{
		{"start-ups, 1 dump at a time", latency, Hardware{Cores: 2, DiskMBps: 2000, DiskIOPS: 100000}, Strategy{DumpJobs: 1, LoadJobs: 8},
			[]string{"for a dump slot", "more dump jobs shorten it", "at 4 dump jobs", "--dump-jobs 1,2,4 gives"}, "bind"},
		{"CPU start-ups on 1 core", cpu, Hardware{Cores: 1, DiskMBps: 2000, DiskIOPS: 100000}, Strategy{DumpJobs: 2, LoadJobs: 8},
			[]string{"for a dump slot", "more dump jobs do not shorten it (4 dump jobs ", "the cores bind (2 cores: ", "--dump-jobs 2,4,8 --cores 1,2 gives"}, "shorten it:"},
		{"start-ups reading a slow disk", disk, Hardware{Cores: 8, DiskMBps: 20, DiskIOPS: 100000}, Strategy{DumpJobs: 2, LoadJobs: 8},
			[]string{"for a dump slot", "more dump jobs do not shorten it", "the disk's bandwidth binds", "--disk-mbps 20,40"}, "the cores bind"},
		{"start-ups, 1 load at a time", latency, Hardware{Cores: 2, DiskMBps: 2000, DiskIOPS: 100000}, Strategy{DumpJobs: 8, LoadJobs: 1},
			[]string{"for a load slot", "more load jobs, or more loads per area, shorten it", "--load-jobs 1,2,4 --loads-per-area"}, "bind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Plan: testPlan(tiny...), Hardware: tc.hw, Model: tc.model, Strategy: tc.strat}
			est, err := Run(context.Background(), in)
			require.NoError(t, err)
			require.NoError(t, Advise(context.Background(), in, est))
			for _, w := range tc.want {
				assert.Contains(t, est.Bottleneck, w)
			}
			assert.NotContains(t, est.Bottleneck, tc.wantNot)
		})
	}
}
