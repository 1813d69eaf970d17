package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumeInPlaceSaidOnce: a run that resumed in place (the same oedl
// process started again after a failure only a resume repairs) read
// "Outage 3s over 2 invocations (interrupted and resumed)" under an
// "Interrupted and resumed" heading, though nobody interrupted or resumed
// it (lefts30). A resume by the DBA is still told so.
func TestResumeInPlaceSaidOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	inv := func(s, e int, outcome string, inPlace bool) Invocation {
		return Invocation{Start: t0.Add(time.Duration(s) * time.Second), End: t0.Add(time.Duration(e) * time.Second), Outcome: outcome, InPlace: inPlace}
	}
	tests := []struct {
		name    string
		invs    []Invocation
		want    []string
		wantNot string
	}{
		{"resumed in place", []Invocation{inv(0, 2, "failed", false), inv(2, 3, "verified", true)},
			[]string{"| Outage | 3s, resumed in place once |", "## Resumed in place", "2. started again in place by the same oedl"}, "interrupted"},
		{"resumed by the DBA", []Invocation{inv(0, 2, "interrupted", false), inv(60, 63, "verified", false)},
			[]string{"| Outage | 1m03s over 2 invocations (interrupted and resumed) |", "## Interrupted and resumed"}, "in place"},
		{"both", []Invocation{inv(0, 2, "failed", false), inv(2, 3, "interrupted", true), inv(60, 63, "verified", false)},
			[]string{"over 2 invocations (interrupted and resumed), resumed in place once", "## Interrupted and resumed"}, "Resumed in place"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Data{Invocations: tt.invs, Started: tt.invs[0].Start, Ended: tt.invs[len(tt.invs)-1].End}
			var b strings.Builder
			require.NoError(t, WriteMarkdown(&b, d))
			for _, w := range tt.want {
				assert.Contains(t, b.String(), w)
			}
			assert.NotContains(t, b.String(), tt.wantNot)
		})
	}
}
