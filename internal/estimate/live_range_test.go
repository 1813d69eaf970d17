package estimate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/schedule"
)

// The ETA is never outside its own range: P50 is the forecast, P90 the
// forecast stretched by the samples' spread. On the old code (the
// samples' own quantiles) every case below forecast below the samples'
// median, as the screen's "ETA 48 s (P50–P90 50 s–68 s)" on sports.
func TestForecastLiesInItsOwnRange(t *testing.T) {
	erp := liveInput(erpLike()...)
	threaded := liveInput(400e6, 100e6, 30e6, 1e6)
	threaded.Strategy.ThreadedDumpMin, threaded.Strategy.DumpThreads = 64e6, 2
	oneSlot := liveInput(erpLike()...)
	oneSlot.Strategy.DumpJobs, oneSlot.Strategy.LoadJobs = 1, 1
	for _, tc := range []struct {
		name string
		in   Input
		left func(est *Estimate) Left
	}{
		{"nothing done yet", erp, func(*Estimate) Left { return Left{} }},
		{"as planned, a quarter in", erp, func(est *Estimate) Left { return cutAt(est, est.Window.D()/4, 1) }},
		{"slower than planned, halfway", erp, func(est *Estimate) Left { return cutAt(est, est.Window.D()/2, 1.3) }},
		{"faster than planned, three quarters in", erp, func(est *Estimate) Left { return cutAt(est, 3*est.Window.D()/4, 0.7) }},
		{"a threaded dump under way", threaded, func(est *Estimate) Left { return cutAt(est, est.Window.D()/3, 1.2) }},
		{"a resumed run: done before, no evidence of its own", erp, func(est *Estimate) Left {
			left := cutAt(est, est.Window.D()/2, 1)
			left.Finished, left.Running = nil, map[string]Running{}
			return left
		}},
		{"the tuner raised the slots", oneSlot, func(*Estimate) Left {
			return Left{Done: setupDone(), Running: map[string]Running{},
				Slots: map[string]int{string(schedule.SlotDump): 8, string(schedule.SlotLoad): 4}}
		}},
		{"an overdue index rebuild", liveInput(300e6, 50e6), func(est *Estimate) Left {
			left, _ := inIdxbuild(est, 3)
			return left
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, est := newLive(t, tc.in)
			f, err := l.Forecast(context.Background(), tc.left(est), 16, 5)
			require.NoError(t, err)
			assert.Equal(t, f.Remaining, f.P50, "the ETA is the range's median")
			assert.Greater(t, f.P90, f.P50, "the range keeps the samples' spread")
			assert.Equal(t, 16, f.Samples)
		})
	}
}

func TestRangeAround(t *testing.T) {
	s := func(secs ...float64) []time.Duration {
		out := make([]time.Duration, len(secs))
		for i, x := range secs {
			out[i] = time.Duration(x * float64(time.Second))
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		forecast      time.Duration
		samples       []time.Duration
		wantP50, want time.Duration
	}{
		// sports at 25 %, stop 22: 48 s [50–68]; 68/50 of 48 s.
		{"below the samples", 48 * time.Second, s(45, 47, 48, 49, 50, 50, 52, 55, 60, 68, 70), 48 * time.Second, 65280 * time.Millisecond},
		{"above the samples", 20 * time.Second, s(8, 9, 9, 10, 10, 10, 10, 11, 12, 15, 16), 20 * time.Second, 30 * time.Second},
		{"no spread", 10*time.Second + 400*time.Microsecond, s(10, 10, 10), 10*time.Second + 400*time.Microsecond, 10*time.Second + 400*time.Microsecond},
		{"nothing left in the samples", 3 * time.Second, s(0, 0, 0), 3 * time.Second, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p50, p90 := rangeAround(tc.forecast, tc.samples)
			assert.Equal(t, tc.wantP50, p50)
			assert.Equal(t, tc.want, p90)
		})
	}
}
