package estimate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A comparison is read by whoever promises the window (nu-trial8): the
// text and the page say on which machine, that each row is one
// simulation, what the window spans and what every column means (ε was a
// bare Greek letter), not only the numbers.
func TestComparisonSaysWhatItsColumnsMean(t *testing.T) {
	hw := Hardware{Cores: 8, DiskIOPS: 20000, DiskLatencyMs: 2}
	c, err := Compare(context.Background(), Input{Plan: testPlan(200e6, 200e6), Hardware: hw}, Strategies(Strategy{DumpJobs: 2, LoadJobs: 2}))
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, WriteComparison(&text, c))
	page := filepath.Join(t.TempDir(), "compare.html")
	require.NoError(t, c.WriteHTMLFile(page, "compare"))
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	for name, out := range map[string]string{"text": text.String(), "html": string(html)} {
		for _, want := range []string{
			hw.String(),                    // the machine every row was simulated on
			"one simulation",               // not a P50: no spread
			"from the source stopped",      // what the window spans
			"to the target verified",       //
			"ε: how far the loads overlap", // the column a manager cannot guess
			"from the first dump to the last load",
		} {
			assert.Contains(t, out, want, name)
		}
	}
}

// A "winner" whose gain the table rounds to nothing is a tie: it read
// "8 dump / 4 load jobs saves 0s over as planned: its dump+load span is 0s
// shorter; that is 0% of the window" (nu-trial8, a calibrated 30 MB erp).
func TestWhyCallsARoundedTieATie(t *testing.T) {
	base := Candidate{Strategy: Strategy{Name: "as planned"}, Window: Seconds(2900 * time.Millisecond), DumpLoad: Seconds(1500 * time.Millisecond), Idxbuild: Seconds(1200 * time.Millisecond)}
	best := Candidate{Strategy: Strategy{Name: "8 dump / 4 load jobs"}, Window: Seconds(2880 * time.Millisecond), DumpLoad: Seconds(1480 * time.Millisecond), Idxbuild: Seconds(1200 * time.Millisecond)}
	got := why(best, base, Hardware{Cores: 2})
	assert.NotContains(t, got, "saves 0s")
	assert.True(t, strings.HasPrefix(got, "as planned is as fast as any of these on 2 cores"), got)
	assert.True(t, strings.HasSuffix(got, "(the fastest, 8 dump / 4 load jobs, is less than 0.1s shorter)"), got)
}

// sec is one second of Seconds, for candidates written by hand.
const sec = Seconds(time.Second)
