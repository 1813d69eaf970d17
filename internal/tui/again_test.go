package tui

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// TestDoneAgainLabel: a done job's line says why it ran once more. A
// resume's run of a job the interrupt stopped is "again after the stop",
// whether the picture saw the stop (oedl status replays the journal) or
// only the runner's reason on job_started (the live screen of the
// resume); a repair's is "again after a repair"; a failure's "recovered"
// (nu-trial9: a resumed idxbuild read "done again after a repair").
func TestDoneAgainLabel(t *testing.T) {
	idx := func(s float64, k event.Kind, attempt int) event.Event {
		return withAttempt(ev(s, k, "idxbuild", "idxbuild", ""), attempt)
	}
	resumed := func(s float64) event.Event { e := ev(s, event.RunStarted, "", "", ""); e.Attempt = 2; return e }
	startStopped := idx(3, event.JobStarted, 2)
	startStopped.Reason = event.ReasonCancelled
	retry := withAttempt(ev(2, event.JobRetry, "load:PUB.a", "load", "PUB.a"), 2)
	retry.Message = "loaded again: area A was truncated (repair:A:1)"
	failed := withAttempt(ev(1, event.JobFailed, "load:PUB.a", "load", "PUB.a"), 1)
	failed.Retrying = true
	tests := []struct {
		name string
		es   []event.Event
		want string
	}{
		{"stop seen (status)", []event.Event{ev(0, event.RunStarted, "", "", ""), idx(1, event.JobStarted, 1), idx(2, event.JobCancelled, 1),
			resumed(3), idx(3, event.JobStarted, 2), idx(4, event.JobFinished, 2)}, "(attempt 2: done again after the stop)"},
		{"stop told by the runner (live resume)", []event.Event{resumed(3), startStopped, idx(4, event.JobFinished, 2)},
			"(attempt 2: done again after the stop)"},
		{"repair", []event.Event{ev(0, event.RunStarted, "", "", ""), withAttempt(ev(0, event.JobStarted, "load:PUB.a", "load", "PUB.a"), 1),
			withAttempt(ev(1, event.JobFinished, "load:PUB.a", "load", "PUB.a"), 1), retry,
			withAttempt(ev(3, event.JobStarted, "load:PUB.a", "load", "PUB.a"), 2), withAttempt(ev(4, event.JobFinished, "load:PUB.a", "load", "PUB.a"), 2)},
			"(attempt 2: done again after a repair)"},
		{"own failure", []event.Event{ev(0, event.RunStarted, "", "", ""), withAttempt(ev(0, event.JobStarted, "load:PUB.a", "load", "PUB.a"), 1), failed,
			withAttempt(ev(3, event.JobStarted, "load:PUB.a", "load", "PUB.a"), 2), withAttempt(ev(4, event.JobFinished, "load:PUB.a", "load", "PUB.a"), 2)},
			"(recovered on attempt 2)"},
		{"why unknown: a killed run's, a preflight's", []event.Event{resumed(3), idx(3, event.JobStarted, 2), idx(4, event.JobFinished, 2)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := NewPlain(&buf, 0)
			for _, e := range tt.es {
				p.Emit(e)
			}
			require.NoError(t, p.Close())
			_, printed := sceneView(t, tt.es, at(5), 120, 30)
			if tt.want == "" {
				assert.NotContains(t, buf.String(), "again", "plain lines")
				assert.NotContains(t, printed, "again", "screen")
				return
			}
			assert.Contains(t, buf.String(), tt.want, "plain lines")
			assert.Contains(t, printed, tt.want, "screen")
		})
	}
}
