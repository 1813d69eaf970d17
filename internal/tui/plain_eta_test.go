package tui

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// The plain printer shows the run's estimate: before the run on the
// run_started line, then the live ETA in its summary lines.
func TestPlainShowsTheRunsEstimate(t *testing.T) {
	var out bytes.Buffer
	p := NewPlain(&out, 0)
	p.now = func() time.Time { return at(70) }
	p.Emit(event.Event{Time: at(0), Kind: event.RunStarted, TotalBytes: 1 << 20,
		Estimate: &event.Estimate{Window: 12 * time.Minute, P50: 12 * time.Minute, P90: 14 * time.Minute}})
	assert.Contains(t, out.String(), "run started (1 MiB of table data); estimated 12m00s (P50–P90 12m00s–14m00s)")
	p.Emit(etaAt(60, 10*time.Minute, 9*time.Minute, 11*time.Minute))
	out.Reset()
	p.Summary()
	require.NoError(t, p.Close())
	assert.Contains(t, out.String(), "ETA 9m50s (P50–P90 8m50s–10m50s)")
}

// TestPlainEstimateOfAShortWindow: the run's estimate is written as oedl
// estimate writes it; whole seconds made a 0.4 s window "estimated 0s
// (P50–P90 1s–1s)", a window shorter than its own median.
func TestPlainEstimateOfAShortWindow(t *testing.T) {
	var out bytes.Buffer
	p := NewPlain(&out, 0)
	p.Emit(event.Event{Time: at(0), Kind: event.RunStarted,
		Estimate: &event.Estimate{Window: 420 * time.Millisecond, P50: 550 * time.Millisecond, P90: 780 * time.Millisecond}})
	require.NoError(t, p.Close())
	assert.Contains(t, out.String(), "run started; estimated 0.4s (P50–P90 0.6s–0.8s)")
}

// TestPlainEstimateFromThePriors: a run given no --calibration says on its
// first line that its estimate, and the queue sized from it, know nothing
// of this machine: a DBA who promised the window of oedl estimate
// --calibration ran another queue against another estimate (nu-trial10:
// 32 dump jobs and 34s instead of the 4 and 13s promised).
func TestPlainEstimateFromThePriors(t *testing.T) {
	for _, priors := range []bool{false, true} {
		var out bytes.Buffer
		p := NewPlain(&out, 0)
		p.Emit(event.Event{Time: at(0), Kind: event.RunStarted,
			Estimate: &event.Estimate{Window: 34 * time.Second, P50: 34 * time.Second, P90: 44 * time.Second, Priors: priors}})
		require.NoError(t, p.Close())
		assert.Equal(t, priors, bytes.Contains(out.Bytes(), []byte("estimated 34s (P50–P90 34s–44s) "+event.PriorsOnly)), out.String())
		assert.Equal(t, priors, bytes.Contains(out.Bytes(), []byte("--calibration")), out.String())
	}
}
