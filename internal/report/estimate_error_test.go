package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorText(t *testing.T) {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	tests := []struct {
		name                      string
		estimated, actual, window time.Duration
		want                      string
	}{
		{"a phase of the window: a percentage", s(110), s(100), s(400), "+10%"},
		{"shorter than estimated", s(92), s(100), s(400), "−8%"},
		{"under a second: seconds, not +19560%", s(9.8), s(0.05), s(400), "+9.8s"},
		{"under 2% of the window: seconds", s(2), s(5), s(400), "−3s"},
		{"2% of the window and over a second: a percentage", s(12), s(8), s(400), "+50%"},
		{"no window (the window itself): only the second counts", s(26), s(2.7), 0, "+863%"},
		{"nothing happened", s(1), 0, s(400), "—"},
		{"off by less than the tenth shown: no sign", s(0.01), s(0.03), s(400), "0s"},
		{"over by less than the tenth shown: no sign", s(0.04), s(0.01), s(400), "0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorText(tt.estimated, tt.actual, tt.window))
		})
	}
}

// TestPriorsOnlyEstimate: an estimate from the built-in priors says so, in
// the facts and over its column, in both writers.
func TestPriorsOnlyEstimate(t *testing.T) {
	for _, priors := range []bool{false, true} {
		dir := fixture(t, true, false)
		d, err := FromWork(dir)
		require.NoError(t, err)
		require.NotNil(t, d.Estimate)
		d.Estimate.Priors = priors
		var md strings.Builder
		require.NoError(t, WriteMarkdown(&md, d))
		assert.Equal(t, priors, strings.Contains(md.String(), "| Estimated (priors only) |"), "markdown heading")
		assert.Equal(t, priors, strings.Contains(md.String(), "from the built-in priors only"), "markdown facts")
		assert.Equal(t, priors, strings.Contains(string(htmlTable(phaseColumnsOf(d), d.Phases)), "Estimated (priors only)"), "html heading")
	}
}
