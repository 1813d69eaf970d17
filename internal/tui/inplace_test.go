package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// TestResumeInPlaceTellsThePhasesOnce: a run resumes in place (run.Run,
// run_started in_place, no run_finished between): the live screen's
// strip read "preflight › dump+load › preflight › dump+load › idxbuild"
// and the plain lines printed "phase preflight" and "phase dump+load"
// twice (lefts30). The phase the attempt failed in goes on through the
// restart, marked once; the run's clock counts from its first start.
func TestResumeInPlaceTellsThePhasesOnce(t *testing.T) {
	phase := func(s float64, name string) event.Event {
		e := ev(s, event.Phase, "", "", "")
		e.Phase = name
		return e
	}
	start := ev(0, event.RunStarted, "", "", "")
	start.Attempt = 1
	again := ev(10, event.RunStarted, "", "", "")
	again.Attempt, again.InPlace = 2, true
	warn := ev(10, event.Warning, "", "", "")
	warn.Message = "load:PUB.a failed: resuming in place as --resume would (1 of 2)"
	done := ev(30, event.RunFinished, "", "", "")
	done.Status = event.StatusVerified
	es := []event.Event{start, phase(0, "preflight"), phase(2, "dump+load"), warn, again,
		phase(10, "preflight"), phase(11, "dump+load"), phase(20, "idxbuild"), phase(25, "verify"), done}

	var buf bytes.Buffer
	p := NewPlain(&buf, 0)
	for _, e := range es {
		p.Emit(e)
	}
	require.NoError(t, p.Close())
	for _, name := range []string{"preflight", "dump+load", "idxbuild"} {
		assert.Equal(t, 1, strings.Count(buf.String(), "phase "+name+"\n"), "%s\n%s", name, buf.String())
	}
	assert.Contains(t, buf.String(), "run resumed in place (invocation 2")
	assert.Contains(t, buf.String(), "run finished in 30s")

	s := apply(NewState(), es...)
	var status bytes.Buffer
	require.NoError(t, RenderStatus(&status, s, 100))
	assert.Contains(t, status.String(), "phases: preflight 2s › dump+load 18s (restarted) › idxbuild 5s › verify 5s\n")

	view, _ := sceneView(t, es[:len(es)-2], at(22), 120, 30)
	assert.Contains(t, view, "dump+load 18s (restarted) › idxbuild 2s")
	assert.Equal(t, 1, strings.Count(view, "preflight"), view)
	assert.NotContains(t, view, "outage", "the elapsed time is the outage's")
}
