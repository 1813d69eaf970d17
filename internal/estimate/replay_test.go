package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The replay predicts each job under the concurrency it really had: on a
// 100 MB/s disk a 100 MB job takes 1 s alone and 2 s beside another.
func TestReplayPredictsUnderTheConcurrencyJobsHad(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	job := func(start, end float64) *pastJob {
		w := diskJob(100 * mb)
		w.startup = 0.5
		return &pastJob{w: w, start: start, end: end, alone: 1.5}
	}
	tests := []struct {
		name string
		jobs []*pastJob
		want []float64 // predicted seconds
	}{
		{"alone, as the model says", []*pastJob{job(0, 1.5)}, []float64{1.5}},
		{"alone, twice as slow", []*pastJob{job(0, 2.5)}, []float64{1.5}},
		{"side by side the whole time", []*pastJob{job(0, 2.5), job(0, 2.5)}, []float64{2.5, 2.5}},
		{"one after the other", []*pastJob{job(0, 1.5), job(1.5, 3)}, []float64{1.5, 1.5}},
		// Each body alone for 1 s, then both for 0.5 s at half the pace:
		// 1.25 of the work in 1.5 s, so the whole body in 1.2 s, the job
		// in 1.7 s (it took 2: a factor of 1.18 against the model).
		{"overlapping", []*pastJob{job(0, 2), job(1, 3)}, []float64{1.7, 1.7}},
		{"quicker than its start-up", []*pastJob{job(0, 0.2)}, []float64{1.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(tt.jobs, hw)
			for i, j := range tt.jobs {
				got, ok := j.predicted()
				require.True(t, ok)
				assert.InDelta(t, tt.want[i], got, 1e-9, "job %d", i)
			}
		})
	}
}

func TestReplayOfARunningJob(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	w := diskJob(100 * mb)
	j := &pastJob{w: w, start: 0, end: 1, running: true, fraction: 0.25, alone: 1}
	replay([]*pastJob{j}, hw)
	got, ok := j.predicted()
	require.True(t, ok)
	assert.InDelta(t, 0.25, got, 1e-9, "a quarter done: the model's time for a quarter")

	j = &pastJob{w: w, start: 0, end: 1, running: true, alone: 1}
	replay([]*pastJob{j}, hw)
	_, ok = j.predicted()
	assert.False(t, ok, "no progress reported: nothing to compare")
}

// A threaded dump's brackets: the small one ends first in the model and
// the large one then has the machine to itself. A dump whose brackets went
// exactly as the model says is predicted its own time, beside another job
// or alone.
func TestReplayOfAThreadedDump(t *testing.T) {
	hw := Hardware{Cores: 4, DiskMBps: 100}
	brackets := func() jobWork {
		w := jobWork{startup: 0.5, sections: true}
		for _, share := range bracketShares(2, 0.25) {
			w.flows = append(w.flows, diskJob(share * 100 * mb).flows[0])
		}
		return w
	}
	alone := aloneDuration(brackets(), hw).Seconds()
	require.InDelta(t, 1.5, alone, 1e-9, "100 MB at 100 MB/s after its start-up, whatever its brackets")
	tests := []struct {
		name string
		jobs []*pastJob
	}{
		{"alone", []*pastJob{{w: brackets(), start: 0, end: alone, alone: alone}}},
		{"twice as slow", []*pastJob{{w: brackets(), start: 0, end: 0.5 + 2*(alone-0.5), alone: alone}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(tt.jobs, hw)
			got, ok := tt.jobs[0].predicted()
			require.True(t, ok)
			assert.InDelta(t, alone, got, 1e-9)
		})
	}
}
