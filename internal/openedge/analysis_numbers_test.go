package openedge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseAnalysisLocalisedNumbers: real reports print their numbers one
// way in every language (a plain whole count, a "." decimal, a B/K/M/G/T
// size; the Brazilian reports and logs seen do, docs/decisions.md
// "(real-lang)"). A row whose numbers are written otherwise (digit groups,
// a decimal comma) is refused at its line, never read with a count a
// thousand times too small or a column shifted.
func TestParseAnalysisLocalisedNumbers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "analysis", "old_spacing_10.1.tabanalys"))
	require.NoError(t, err)
	const row = "PUB.OrderLine             91023    3.9M    38    49    45  91144    1.0     1.9"
	require.Contains(t, string(b), row)
	tests := []struct {
		name, row, wantErr string
	}{
		{"dot groups", "PUB.OrderLine            91.023    3.9M    38    49    45  91144    1.0     1.9", `x:31: PUB.OrderLine Records "91.023" is not a whole number`},
		{"comma groups", "PUB.OrderLine         1,091,023    3.9M    38    49    45  91144    1.0     1.9", `x:31: PUB.OrderLine Records "1,091,023" is not a whole number`},
		{"blank groups", "PUB.OrderLine            91 023    3.9M    38    49    45  91144    1.0     1.9", "x:31: table row PUB.OrderLine has 9 numbers, want 8"},
		{"no-break space groups", "PUB.OrderLine            91\u00a0023    3.9M    38    49    45  91144    1.0     1.9", "x:31: "},
		{"decimal comma size", "PUB.OrderLine             91023    3,9M    38    49    45  91144    1.0     1.9", `x:31: PUB.OrderLine Size: malformed size "3,9M"`},
		{"decimal comma factors", "PUB.OrderLine             91023    3.9M    38    49    45  91144    1,0     1,9", `x:31: PUB.OrderLine fragment Factor "1,0" is not a decimal number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAnalysis(strings.NewReader(strings.Replace(string(b), row, tt.row, 1)), "x")
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
