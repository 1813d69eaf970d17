package estimate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mb = 1e6

// runSim starts every task at time 0 and returns when each ended.
func runSim(hw Hardware, works ...jobWork) []time.Duration {
	s := newSim(hw)
	ends := make([]time.Duration, len(works))
	for i, w := range works {
		s.add(i, w)
	}
	for !s.idle() {
		for _, ev := range s.step() {
			if ev.taskDone {
				ends[ev.task.ref.(int)] = seconds(s.now)
			}
		}
	}
	return ends
}

func repeatWork(n int, w jobWork) []jobWork {
	out := make([]jobWork, n)
	for i := range out {
		out[i] = jobWork{startup: w.startup, flows: append([]flowDemand(nil), w.flows...)}
	}
	return out
}

func repeatDuration(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func diskJob(bytes float64) jobWork {
	return jobWork{flows: []flowDemand{{bytes: bytes, par: 1, qd: 1}}}
}

func TestSimSharing(t *testing.T) {
	tests := []struct {
		name  string
		hw    Hardware
		works []jobWork
		want  []time.Duration
	}{
		{
			name:  "two jobs on one 100 MB/s disk take the sum of their bytes / 100 MB/s",
			hw:    Hardware{Cores: 4, DiskMBps: 100},
			works: []jobWork{diskJob(100 * mb), diskJob(300 * mb)},
			// 50 MB/s each until the small one ends at 2 s, then 100 MB/s.
			want: []time.Duration{2 * time.Second, 4 * time.Second},
		},
		{
			name: "a CPU-bound job does not slow a disk-bound one",
			hw:   Hardware{Cores: 2, DiskMBps: 100},
			works: []jobWork{
				{flows: []flowDemand{{cpu: 10, par: 1, qd: 1}}},
				diskJob(100 * mb),
			},
			want: []time.Duration{10 * time.Second, 1 * time.Second},
		},
		{
			name: "cores are shared: three single-threaded jobs on two cores",
			hw:   Hardware{Cores: 2, DiskMBps: 100},
			works: []jobWork{
				{flows: []flowDemand{{cpu: 2, par: 1}}},
				{flows: []flowDemand{{cpu: 2, par: 1}}},
				{flows: []flowDemand{{cpu: 2, par: 1}}},
			},
			want: []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second},
		},
		{
			name: "one stream is capped by the device latency, not by the device",
			hw:   Hardware{Cores: 1, DiskIOPS: 10000, DiskLatencyMs: 2},
			// 1000 requests at 2 ms each, one in flight: 2 s.
			works: []jobWork{{flows: []flowDemand{{ops: 1000, waits: 1000, par: 1, qd: 1}}}},
			want:  []time.Duration{2 * time.Second},
		},
		{
			name: "two streams saturate the device IOPS",
			hw:   Hardware{Cores: 1, DiskIOPS: 800, DiskLatencyMs: 2},
			// each could do 500 IOPS alone; together they share 800.
			works: []jobWork{
				{flows: []flowDemand{{ops: 1000, waits: 1000, par: 1, qd: 1}}},
				{flows: []flowDemand{{ops: 1000, waits: 1000, par: 1, qd: 1}}},
			},
			want: []time.Duration{2500 * time.Millisecond, 2500 * time.Millisecond},
		},
		{
			name: "start-up is latency: it uses nothing and adds up",
			hw:   Hardware{Cores: 1, DiskMBps: 100},
			works: []jobWork{
				{startup: 1, flows: []flowDemand{{bytes: 100 * mb, par: 1}}},
				{startup: 0.5},
			},
			want: []time.Duration{2 * time.Second, 500 * time.Millisecond},
		},
		{
			name:  "a multi-threaded job uses several cores",
			hw:    Hardware{Cores: 8, DiskMBps: 100},
			works: []jobWork{{flows: []flowDemand{{cpu: 16, par: 4}}}},
			want:  []time.Duration{4 * time.Second},
		},
		{
			name: "brackets of a threaded job run side by side; the job ends with the last",
			hw:   Hardware{Cores: 4, DiskMBps: 100},
			works: []jobWork{{sections: true, flows: []flowDemand{
				{bytes: 150 * mb, par: 1}, {bytes: 50 * mb, par: 1},
			}}},
			want: []time.Duration{2 * time.Second},
		},
		{
			name: "the schema lock is held by one load at a time, however many cores",
			hw:   Hardware{Cores: 8, DiskMBps: 100},
			// 13 batches of 25 tables at 4 ms each: 1.3 s of the lock,
			// whatever the 8 cores could do.
			works: repeatWork(13, jobWork{flows: []flowDemand{{schema: 25 * 0.004, par: 1}}}),
			want:  repeatDuration(13, 1300*time.Millisecond),
		},
		{
			name: "a load holding the schema lock leaves the disk to the others",
			hw:   Hardware{Cores: 4, DiskMBps: 100},
			works: []jobWork{
				{flows: []flowDemand{{schema: 1, par: 1}}},
				{flows: []flowDemand{{schema: 1, par: 1}}},
				diskJob(100 * mb),
			},
			want: []time.Duration{2 * time.Second, 2 * time.Second, 1 * time.Second},
		},
		{
			name: "the schema update computes: on one core beside a CPU-bound job, both take twice as long",
			hw:   Hardware{Cores: 1, DiskMBps: 100},
			works: []jobWork{
				{flows: []flowDemand{{schema: 1, par: 1}}},
				{flows: []flowDemand{{cpu: 1, par: 1}}},
			},
			want: []time.Duration{2 * time.Second, 2 * time.Second},
		},
		{
			name:  "alone, a load takes its lock, then its CPU and I/O, in turn",
			hw:    Hardware{Cores: 4, DiskMBps: 100},
			works: []jobWork{{flows: []flowDemand{{schema: 0.5, cpu: 1, bytes: 100 * mb, par: 1}}}},
			want:  []time.Duration{2500 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.hw.Validate())
			assert.Equal(t, tt.want, runSim(tt.hw, tt.works...))
		})
	}
}

func TestAllocateMaxMinPerResource(t *testing.T) {
	// A is disk-only; B is mostly CPU with a little disk. B runs at its own
	// pace (CPU, then its I/O), A takes the rest of the disk.
	hw := Hardware{Cores: 1, DiskMBps: 100}
	a := &flowDemand{bytes: 100 * mb, par: 1}
	b := &flowDemand{cpu: 1, bytes: 10 * mb, par: 1}
	d := hw.disk()
	r := allocate([]*flowDemand{a, b}, hw.Cores, &d, false)
	assert.InDelta(t, 1/1.1, r[1], 1e-9, "B alone: 1 s of CPU then 0.1 s of I/O")
	diskUse := r[0]*1 + r[1]*0.1
	assert.InDelta(t, 1, diskUse, 1e-9, "work-conserving: the disk is full")
}

func TestDiskTimeAddsBytesAndRequests(t *testing.T) {
	// 100 MB in 1000 requests on 100 MB/s and 1000 IOPS: 1 s + 1 s.
	assert.Equal(t, []time.Duration{2 * time.Second},
		runSim(Hardware{Cores: 1, DiskMBps: 100, DiskIOPS: 1000}, jobWork{flows: []flowDemand{{bytes: 100 * mb, ops: 1000, par: 1}}}))
	// A stream does its CPU work and its I/O in turn.
	assert.Equal(t, []time.Duration{3 * time.Second},
		runSim(Hardware{Cores: 4, DiskMBps: 100}, jobWork{flows: []flowDemand{{cpu: 2, bytes: 100 * mb, par: 1}}}))
}

func TestBracketShares(t *testing.T) {
	assert.Equal(t, []float64{1}, bracketShares(1, 0.25))
	s := bracketShares(4, 0.2)
	assert.InDelta(t, 0.3, s[0], 1e-12)
	var sum float64
	for _, x := range s {
		sum += x
	}
	assert.InDelta(t, 1, sum, 1e-12)
}
