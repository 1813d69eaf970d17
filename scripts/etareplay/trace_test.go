package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/eta"
	"github.com/oedl/oedl/internal/event"
)

func TestCompareTrace(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ev := func(s float64, kind event.Kind, job string) event.Event {
		return event.Event{Time: at(s), Kind: kind, Job: job}
	}
	events := []event.Event{
		{Time: at(0), Kind: event.RunStarted},
		ev(0, event.JobStarted, "dump:A"), ev(10, event.JobFinished, "dump:A"),
		// A batch is told as its tables.
		ev(6, event.JobStarted, "load:x"), ev(6, event.JobStarted, "load:y"),
		ev(11, event.JobFinished, "load:x"), ev(12, event.JobFinished, "load:y"),
		ev(12, event.JobStarted, "idxbuild"), ev(20, event.JobFinished, "idxbuild"),
		{Time: at(20), Kind: event.RunFinished},
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	trace := []eta.TraceLine{{Time: at(4), Running: map[string]estimate.Running{"dump:A": {Elapsed: sec(4), Fraction: 0.5}},
		Jobs: []estimate.JobForecast{
			{Job: "dump:A", Kind: "dump", End: sec(5), Running: true},
			{Job: "load-batch:small:1", Kind: "load-batch", Start: sec(5), End: sec(6), Loads: []string{"load:x", "load:y"}},
			{Job: "idxbuild", Kind: "idxbuild", Start: sec(6), End: sec(10)},
		}}}
	points := []Point{{Fraction: 0.25, Elapsed: 5}}
	var out bytes.Buffer
	require.NoError(t, compareTrace(json.NewEncoder(&out), events, trace, points, at(0), 1))
	var kinds []KindError
	var worst []JobError
	dec := json.NewDecoder(&out)
	for dec.More() {
		var raw map[string]any
		require.NoError(t, dec.Decode(&raw))
		data, _ := json.Marshal(raw)
		if _, ok := raw["kind"]; ok {
			var k KindError
			require.NoError(t, json.Unmarshal(data, &k))
			kinds = append(kinds, k)
		} else {
			var j JobError
			require.NoError(t, json.Unmarshal(data, &j))
			worst = append(worst, j)
		}
	}
	// From the forecast at 4 s: the dump had 6 s left (forecast 5), the
	// batch 2 to 8 s from then (1 s), idxbuild 8 to 16 (4).
	assert.Equal(t, []KindError{
		{Fraction: 0.25, Kind: "dump", Jobs: 1, Running: 1, Predicted: 5, Actual: 6, LastEnd: 5, LastActual: 6},
		{Fraction: 0.25, Kind: "load-batch", Jobs: 1, Predicted: 1, Actual: 6, LastEnd: 6, LastActual: 8},
		{Fraction: 0.25, Kind: "idxbuild", Jobs: 1, Predicted: 4, Actual: 8, LastEnd: 10, LastActual: 16},
	}, kinds)
	require.Len(t, worst, 1)
	assert.Equal(t, "idxbuild", worst[0].Job, "its end missed by 6 s, the most")
}
