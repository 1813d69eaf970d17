package estimate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

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
