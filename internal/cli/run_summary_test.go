package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/verify"
)

// The summary names what the verify proved, the sequence values with the
// rest, and says nothing of them when they differ: the run failed then.
func TestRunSummarySaysTheSequencesVerified(t *testing.T) {
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		after string
		want  bool
	}{
		{"the same values", "\"NextCust\" 5\n\"NextOrd\" 7\n", true},
		{"one differs", "\"NextCust\" 0\n\"NextOrd\" 7\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &verify.Result{OK: true}
			seqs, err := verify.CompareSequenceFiles("before", "\"NextCust\" 5\n\"NextOrd\" 7\n", "after", tt.after)
			require.NoError(t, err)
			v.AddSequences(seqs)
			var b strings.Builder
			printRunSummary(&b, run.Config{Target: "/new/prod", Work: "/w"},
				&run.Result{Schedule: &schedule.Result{Start: start, End: start.Add(3 * time.Second)}, Verify: v})
			assert.Equal(t, tt.want, strings.Contains(b.String(), "verified: 2 sequence values before = after\n"), b.String())
		})
	}
}
