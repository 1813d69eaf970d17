package report

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// assertGolden compares got with testdata/<name>, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", filepath.FromSlash(name)), got)
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func sampleBars() []Bar {
	return []Bar{
		{Label: "preflight", Group: "preflight", Kind: "preflight", Start: 0, End: sec(1.2), Critical: true},
		{Label: "create-target", Group: "create-target", Kind: "create-target", Start: sec(1.2), End: sec(9)},
		{Label: "dump PUB.orderline", Group: "dump", Kind: "dump", Start: sec(1.2), End: sec(140), Critical: true},
		{Label: "dump PUB.customer", Group: "dump", Kind: "dump", Start: sec(1.2), End: sec(30)},
		{Label: "load PUB.customer", Group: "load", Kind: "load", Start: sec(30), End: sec(61), Failed: true},
		{Label: "load PUB.orderline", Group: "load", Kind: "load", Start: sec(140), End: sec(260), Critical: true},
		{Label: "idxbuild", Group: "idxbuild", Kind: "idxbuild", Start: sec(260), End: sec(400), Critical: true},
		{Label: `odd <label> & "quotes"`, Group: "x", Kind: "custom", Start: sec(10), End: sec(10)},
	}
}

func TestGanttSVGGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, GanttSVG(&buf, "Actual run: sports2000", sampleBars()))
	assertGolden(t, "gantt_small.svg", buf.Bytes())
}

func TestGanttSVGMarksCriticalAndFailed(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, GanttSVG(&buf, "t", sampleBars()))
	out := buf.String()
	assert.Equal(t, 8, strings.Count(out, `<rect class="bar`))
	assert.Equal(t, 4, strings.Count(out, `class="bar critical"`))
	assert.Equal(t, 1, strings.Count(out, `class="bar failed"`))
	assert.Contains(t, out, `data-bars="8"`)
	assert.Contains(t, out, "odd &lt;label&gt; &amp; &quot;quotes&quot;", "labels are escaped")
	assert.NotContains(t, out, "<label>")
	assert.Contains(t, out, "8 jobs, 6m40s</text>", "the makespan is in the header")
}

// The chart of an estimate is read by a manager (nu-trial8): its legend
// listed "failed" for a run that has not happened, and the axis did not
// say what its times are.
func TestGanttSVGLegendListsOnlyWhatIsDrawn(t *testing.T) {
	bars := sampleBars()
	for i := range bars {
		bars[i].Failed = false
	}
	var buf bytes.Buffer
	require.NoError(t, GanttSVG(&buf, "oedl estimate: prod", bars))
	out := buf.String()
	assert.NotContains(t, out, ">failed</text>", "nothing failed: no legend entry")
	assert.Contains(t, out, ">critical path</text>")
	assert.Contains(t, out, ">elapsed time</text>", "the axis says what it measures")

	buf.Reset()
	require.NoError(t, GanttSVG(&buf, "Actual run", sampleBars()))
	assert.Contains(t, buf.String(), ">failed</text>", "a failed bar keeps its legend entry")
}

func TestGanttSVGGroupsBeyondMaxRows(t *testing.T) {
	var bars []Bar
	for i := range 3000 {
		kind := []string{"dump", "load"}[i%2]
		start := sec(float64(i))
		bars = append(bars, Bar{Label: fmt.Sprintf("%s PUB.t%04d", kind, i), Group: kind, Kind: kind, Start: start, End: start + sec(float64(1+i%7))})
	}
	bars[42].Failed = true // a dump of 1 s: short, but failed
	bars[2999].Critical = true
	var buf bytes.Buffer
	require.NoError(t, GanttSVG(&buf, "big", bars))
	out := buf.String()
	has := func(s string) bool { return strings.Contains(out, s) } // keeps a failure message short
	assert.True(t, has(`data-bars="3000"`))
	assert.True(t, has(`data-rows="80"`))
	assert.Regexp(t, `>dump: 1,4\d\d more jobs<`, out, "a grouped row per kind")
	assert.Regexp(t, `>load: 1,4\d\d more jobs<`, out, "a grouped row per kind")
	assert.True(t, has(`class="bar failed" data-kind="dump"`), "a failed job keeps its own row")
	assert.True(t, has(">dump PUB.t0006<"), "the longest jobs keep their own row")
	assert.False(t, has(">load PUB.t2999<"), "a short job is grouped")
	assert.True(t, has(`class="bar critical grouped" data-kind="load"`), "even grouped, the critical path shows")
	assert.Equal(t, 80, strings.Count(out, `class="row-label"`))
	assert.Less(t, buf.Len(), 200_000, "thousands of jobs stay a small file")
}

func TestGanttSVGEmptyAndInvalid(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, GanttSVG(&buf, "nothing", nil))
	assert.Contains(t, buf.String(), "no jobs")

	err := GanttSVG(&buf, "bad", []Bar{{Label: "load PUB.x", Start: sec(5), End: sec(2)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "load PUB.x")
}

func TestTickStepAndFormat(t *testing.T) {
	tests := []struct {
		total time.Duration
		step  time.Duration
	}{
		{0, time.Second},
		{sec(8), time.Second},
		{sec(95), 10 * time.Second},
		{6 * time.Hour, time.Hour},
		{26 * time.Hour, 3 * time.Hour},
		{30 * 24 * time.Hour, 3 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.total.String(), func(t *testing.T) {
			assert.Equal(t, tt.step, tickStep(tt.total))
		})
	}
	for d, want := range map[time.Duration]string{
		sec(4.24): "4.2s", sec(4): "4s", sec(42): "42s", sec(185): "3m05s", sec(120): "2m",
		time.Hour + 2*time.Minute + 20*time.Second: "1h02m", 3 * time.Hour: "3h",
	} {
		assert.Equal(t, want, formatTick(d), d.String())
	}
}

func TestBarsFromSpansAndCriticalSpans(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	pre := &schedule.Job{ID: "preflight", Kind: schedule.KindPreflight}
	dc := &schedule.Job{ID: "dump:PUB.customer", Kind: schedule.KindDump, Table: "PUB.customer", Deps: []string{"preflight"}}
	do := &schedule.Job{ID: "dump:PUB.order", Kind: schedule.KindDump, Table: "PUB.order", Deps: []string{"preflight"}}
	lo := &schedule.Job{ID: "load:PUB.order:2", Kind: schedule.KindLoad, Table: "PUB.order", Section: 2, Deps: []string{"dump:PUB.order"}}
	idx := &schedule.Job{ID: "idxbuild", Kind: schedule.KindIdxbuild, Deps: []string{"load:PUB.order:2", "dump:PUB.customer"}}
	at := func(s float64) time.Time { return t0.Add(sec(s)) }
	res := &schedule.Result{Start: t0, End: at(100), Spans: []schedule.Span{
		{Job: pre, Start: at(0), End: at(1)},
		{Job: dc, Start: at(1), End: at(20)},
		{Job: do, Start: at(1), End: at(50)},
		{Job: lo, Start: at(50), End: at(70), Err: errors.New("exit 1")},
		{Job: lo, Start: at(71), End: at(80)}, // the retry
		{Job: idx, Start: at(80), End: at(100)},
	}}
	crit := CriticalSpans(res)
	assert.Equal(t, map[string]bool{"preflight": true, "dump:PUB.order": true, "load:PUB.order:2": true, "idxbuild": true}, crit)

	bars := BarsFromSpans(res, crit)
	require.Len(t, bars, 6)
	assert.Equal(t, Bar{Label: "load PUB.order #2", Group: "load", Kind: "load", Start: sec(50), End: sec(70), Critical: true, Failed: true}, bars[3])
	assert.Equal(t, "dump PUB.customer", bars[1].Label)
	assert.False(t, bars[1].Critical)
	assert.Equal(t, "idxbuild", bars[5].Label)
	assert.Equal(t, sec(100), bars[5].End)

	assert.Nil(t, BarsFromSpans(nil, nil))
	assert.Empty(t, CriticalSpans(&schedule.Result{}))
}

func TestThousandsAndBytes(t *testing.T) {
	assert.Equal(t, "0", units.Thousands(0))
	assert.Equal(t, "999", units.Thousands(999))
	assert.Equal(t, "1,000", units.Thousands(1000))
	assert.Equal(t, "-1,234,567", units.Thousands(-1234567))
	assert.Equal(t, "848 B", units.FormatIEC(848))
	assert.Equal(t, "6.2 KiB", units.FormatIEC(6349))
	assert.Equal(t, "1.5 GiB", units.FormatIEC(3<<29))
}
