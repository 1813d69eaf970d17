package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// TestAgainstEstimate: the report says which way the outage went from the
// window promised before it, and whether it stayed inside the range's
// P90, in words; "error +84%" alone read as "84% over" to a manager when
// the outage was shorter (nu-trial10).
func TestAgainstEstimate(t *testing.T) {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	ranged := &event.Estimate{Window: s(13), P50: s(13), P90: s(17)}
	bare := &event.Estimate{Window: s(13)}
	tests := []struct {
		name   string
		e      *event.Estimate
		outage time.Duration
		want   string
	}{
		{"shorter", ranged, s(7.3), "5.7s shorter than the 13s estimated"},
		{"as estimated", ranged, s(13.02), "as the 13s estimated"},
		{"longer, inside the P90", ranged, s(15), "2s longer than the 13s estimated, within its P90 of 17s"},
		{"past the P90", ranged, s(20), "7s longer than the 13s estimated, past its P90 of 17s"},
		{"longer, no range", bare, s(20), "7s longer than the 13s estimated"},
		{"no estimate", nil, s(20), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, againstEstimate(tt.e, tt.outage))
		})
	}
}

// TestVerdictComparesWithTheEstimate: the verified headline, the sentence a
// manager forwards, says how the outage went against the estimate.
func TestVerdictComparesWithTheEstimate(t *testing.T) {
	dir := fixture(t, true, false)
	d, err := FromWork(dir)
	if !assert.NoError(t, err) || !assert.NotNil(t, d.Estimate) {
		return
	}
	assert.Contains(t, d.Verdict.Headline, "The outage took 7m03s, 2.6s longer than the 7m00s estimated, within its P90 of 8m25s.")

	// An estimate from the priors is not the window a calibration
	// promised: the sentence says where it came from.
	journalPath := filepath.Join(dir, "journal.jsonl")
	b, err := os.ReadFile(journalPath)
	require.NoError(t, err)
	b = bytes.Replace(b, []byte(`"estimate":{`), []byte(`"estimate":{"priors":true,`), 1)
	require.NoError(t, os.WriteFile(journalPath, b, 0o644))
	d, err = FromWork(dir)
	require.NoError(t, err)
	require.True(t, d.Estimate.Priors)
	assert.Contains(t, d.Verdict.Headline, "within its P90 of 8m25s (from the built-in priors, not a calibration of this machine).")
}

// TestEstimateFactSaysWhichWay: the facts' Estimate row says the way and
// the range before the percentage.
func TestEstimateFactSaysWhichWay(t *testing.T) {
	dir := fixture(t, true, false)
	d, err := FromWork(dir)
	if !assert.NoError(t, err) {
		return
	}
	for _, f := range facts(d) {
		if f[0] == "Estimate" {
			assert.Contains(t, f[1], "; the outage: 2.6s longer than the 7m00s estimated, within its P90 of 8m25s (error −1%)")
			return
		}
	}
	t.Fatal("no Estimate fact")
}
