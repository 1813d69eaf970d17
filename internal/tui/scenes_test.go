package tui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// The scenes a DBA meets on a bad night, as the events of a real run send
// them (internal/run's order and fields), drawn at 80 and 120 columns:
// the goldens under testdata/scene_* are what the screen shows. tmux
// captures of the same scenes on real runs are in docs/recording/.

const sceneLog = "/srv/oedl/migrations/2026-11-prod/work/logs/"

// sceneStart is a run's start with its queue settings and its estimate,
// entering dump+load, with the first live ETA.
func sceneStart() []event.Event {
	rs := ev(0, event.RunStarted, "", "", "")
	rs.Since, rs.Attempt, rs.TotalBytes = at(0), 1, 40<<20
	rs.Settings = map[string]int64{"dump_jobs": 2, "load_jobs": 2, "loads_per_area": 1}
	rs.Estimate = &event.Estimate{Window: 10 * time.Minute, P50: 10 * time.Minute, P90: 12 * time.Minute}
	ph := ev(0, event.Phase, "", "", "")
	ph.Phase = "dump+load"
	pre := ev(0, event.Phase, "", "", "")
	pre.Phase = "preflight"
	pre.Time = at(-1)
	return []event.Event{rs, pre, ph, etaAt(0, 10*time.Minute, 10*time.Minute, 12*time.Minute+30*time.Second)}
}

func withAttempt(e event.Event, n int) event.Event { e.Attempt = n; return e }

func progressAt(s float64, job, kind, table string, bytes int64) event.Event {
	e := ev(s, event.JobProgress, job, kind, table)
	e.Bytes, e.Records = bytes, bytes/400
	return e
}

// hungDump: PUB.tr_hist's dump writes 1 MiB, then nothing; the screen
// flags it stalled; its timeout kills it; attempt 2 goes through.
func hungDump() (stalled, after []event.Event) {
	es := sceneStart()
	start := withAttempt(ev(0, event.JobStarted, "dump:PUB.tr_hist", "dump", "PUB.tr_hist"), 1)
	start.TotalBytes = 8 << 20
	es = append(es, start, progressAt(1, "dump:PUB.tr_hist", "dump", "PUB.tr_hist", 1<<20))
	for s := 2.0; s <= 25; s++ {
		es = append(es, progressAt(s, "dump:PUB.tr_hist", "dump", "PUB.tr_hist", 1<<20))
	}
	other := withAttempt(ev(0, event.JobStarted, "dump:PUB.gl_det", "dump", "PUB.gl_det"), 1)
	other.TotalBytes = 20 << 20
	es = append(es, other)
	for s := 1.0; s <= 25; s++ {
		es = append(es, progressAt(s, "dump:PUB.gl_det", "dump", "PUB.gl_det", int64(s*600)<<10))
	}
	for i := range 5 {
		q := ev(0, event.JobQueued, fmt.Sprintf("dump:PUB.t%d", i), "dump", fmt.Sprintf("PUB.t%d", i))
		es = append(es, q)
	}
	stalled = append([]event.Event(nil), es...)
	fail := withAttempt(ev(31, event.JobFailed, "dump:PUB.tr_hist", "dump", "PUB.tr_hist"), 1)
	fail.Err = "proutil dump hung: no end after 31s (the job's timeout), killed"
	fail.Reason, fail.Timeout, fail.Retrying, fail.Log = event.ReasonHang, 31*time.Second, true, sceneLog+"dump_PUB.tr_hist.log"
	retry := withAttempt(ev(31.5, event.JobRetry, "dump:PUB.tr_hist", "dump", "PUB.tr_hist"), 2)
	retry.Message = "attempt 2 of 3"
	start2 := withAttempt(ev(31.5, event.JobStarted, "dump:PUB.tr_hist", "dump", "PUB.tr_hist"), 2)
	done := withAttempt(ev(34, event.JobFinished, "dump:PUB.tr_hist", "dump", "PUB.tr_hist"), 2)
	done.Records, done.Bytes = 20480, 8<<20
	after = append(es, fail, retry, start2, done)
	return stalled, after
}

// failedLoad: PUB.pt_mstr's load is killed three times; its area is
// repaired twice, then the run gives up.
func failedLoad() []event.Event {
	es := sceneStart()
	for a := 1; a <= 3; a++ {
		s := float64(a * 5)
		st := withAttempt(ev(s, event.JobStarted, "load:PUB.pt_mstr", "load", "PUB.pt_mstr"), a)
		st.Area = "Medium8_Data"
		f := withAttempt(ev(s+1, event.JobFailed, "load:PUB.pt_mstr", "load", "PUB.pt_mstr"), a)
		f.Area = "Medium8_Data"
		f.Err = "proutil load was killed by signal 9 (SIGKILL): starting with record 1, section 1. (6204)"
		f.Reason, f.Signal, f.Log = event.ReasonSignal, "SIGKILL", sceneLog+"load_PUB.pt_mstr.log"
		f.Retrying = a < 3
		if a == 3 {
			f.Err += `; area "Medium8_Data" was already repaired twice in this run, giving up`
		}
		es = append(es, st, f)
		if a < 3 {
			w := ev(s+1, event.Warning, "", "", "")
			w.Message = `load:PUB.pt_mstr failed; area "Medium8_Data" will be truncated and every table placed in it loaded again`
			r := withAttempt(ev(s+2, event.JobRetry, "load:PUB.pt_mstr", "load", "PUB.pt_mstr"), a+1)
			r.Message = "loaded again: area Medium8_Data was truncated"
			es = append(es, w, r)
		}
	}
	for i := range 3 {
		q := ev(1, event.JobQueued, fmt.Sprintf("load:PUB.s%d", i), "load", fmt.Sprintf("PUB.s%d", i))
		q.Area = "Small64_Data"
		es = append(es, ev(0, event.JobSkipped, fmt.Sprintf("dump:PUB.s%d", i), "dump", fmt.Sprintf("PUB.s%d", i)), q)
	}
	fin := ev(17, event.RunFinished, "", "", "")
	fin.Status, fin.Err, fin.Message = event.StatusFailed, "1 job failed (load:PUB.pt_mstr); 3 jobs not run because of it", "1 job failed (load:PUB.pt_mstr); 3 jobs not run because of it"
	return append(es, fin)
}

// cancelled: Ctrl-C while two dumps and a load run.
func cancelled() []event.Event {
	es := sceneStart()
	for _, j := range [][3]string{{"dump:PUB.a", "dump", "PUB.a"}, {"dump:PUB.b", "dump", "PUB.b"}, {"load:PUB.c", "load", "PUB.c"}} {
		st := withAttempt(ev(1, event.JobStarted, j[0], j[1], j[2]), 1)
		st.TotalBytes = 4 << 20
		es = append(es, st, progressAt(3, j[0], j[1], j[2], 1<<20))
	}
	for _, j := range [][3]string{{"dump:PUB.a", "dump", "PUB.a"}, {"dump:PUB.b", "dump", "PUB.b"}, {"load:PUB.c", "load", "PUB.c"}} {
		c := withAttempt(ev(4, event.JobCancelled, j[0], j[1], j[2]), 1)
		c.Reason, c.Err = event.ReasonCancelled, "stopped: the run was interrupted"
		es = append(es, c)
	}
	fin := ev(4, event.RunFinished, "", "", "")
	fin.Status, fin.Err = event.StatusInterrupted, "interrupted"
	return append(es, fin)
}

// wideFailure: a failure whose text and log path are wider than the
// terminal.
func wideFailure() []event.Event {
	es := sceneStart()
	st := withAttempt(ev(1, event.JobStarted, "load:PUB.customer_address_history_archive", "load", "PUB.customer_address_history_archive"), 1)
	f := withAttempt(ev(2, event.JobFailed, "load:PUB.customer_address_history_archive", "load", "PUB.customer_address_history_archive"), 1)
	f.Err = "proutil load ran out of disk space (errno 28, exit code 1): ** Error writing /srv/openedge/databases/production/new/prod_42.d17, errno = 28: no space left on device. (oesim)"
	f.Reason, f.ExitCode, f.Retrying = event.ReasonDiskFull, 1, true
	f.Log = "/srv/oedl/migrations/2026-11-production-reorganisation/work/logs/load_PUB.customer_address_history_archive.log"
	return append(es, st, f)
}

// sceneView draws the events at a terminal size and returns the live area
// and the lines printed above it.
func sceneView(t *testing.T, es []event.Event, now time.Time, w, h int) (view, printed string) {
	t.Helper()
	q := newQueue()
	m := newModel(testOptions(&now, nil), q)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	var above []string
	for _, e := range es {
		m.st.Apply(e)
		if l := m.paint(m.finishedLine(e)); l != "" { // as frame prints it
			above = append(above, l)
		}
	}
	if m.st.Finished {
		m.over = true
	}
	m.st.Advance(now)
	m.dirty = true
	m.rebuild()
	for i, line := range strings.Split(m.View().Content, "\n") {
		assert.LessOrEqual(t, lipgloss.Width(line), w, "live line %d wider than %d: %q", i, w, line)
	}
	for _, line := range strings.Split(strings.Join(above, "\n"), "\n") {
		assert.LessOrEqual(t, lipgloss.Width(line), w, "printed line wider than %d: %q", w, line)
	}
	assert.LessOrEqual(t, strings.Count(m.View().Content, "\n")+1, h-1, "the live area fits the terminal")
	return m.View().Content, strings.Join(above, "\n")
}

func TestScenes(t *testing.T) {
	stalled, recovered := hungDump()
	scenes := []struct {
		name string
		es   []event.Event
		now  time.Time
		want []string
		not  []string
	}{
		{"hung_dump_stalled", stalled, at(25), []string{"stalled 24s", "1 stalled"}, []string{"failed"}},
		{"hung_dump_retried", recovered, at(34), []string{"recovered on attempt 2", "1 recovered", "hung: no end after 31s"}, []string{"failed"}},
		{"failed_load", failedLoad(), at(17), []string{"1 failed (1 table)", "killed by signal 9 (SIGKILL)", "attempt 3", "giving up"}, []string{"3 failed"}},
		{"cancelled", cancelled(), at(4), []string{"cancelled after", "3 stopped", "oedl run --resume continues"}, []string{"failed", "context canceled"}},
		{"wide_failure", wideFailure(), at(3), []string{"will retry", "load_PUB.customer_address_history_archive.log"}, nil},
	}
	for _, sc := range scenes {
		for _, size := range [][2]int{{80, 24}, {120, 30}} {
			t.Run(fmt.Sprintf("%s_%d", sc.name, size[0]), func(t *testing.T) {
				view, printed := sceneView(t, sc.es, sc.now, size[0], size[1])
				all := view + "\n" + printed
				for _, w := range sc.want {
					assert.Contains(t, all, w)
				}
				for _, n := range sc.not {
					assert.NotContains(t, all, n)
				}
				assertGolden(t, fmt.Sprintf("scene_%s_%d.golden", sc.name, size[0]),
					[]byte("-- printed above the live area --\n"+printed+"\n-- live area --\n"+view+"\n"))
			})
		}
	}
}

// A log path is never split over two lines: it is whole on a line of its
// own, or, wider than the terminal, cut at its start so the file name
// stays.
func TestWideFailureKeepsTheLogPathWhole(t *testing.T) {
	es := wideFailure()
	path := es[len(es)-1].Log
	for _, w := range []int{80, 120, 200} {
		view, printed := sceneView(t, es, at(3), w, 30)
		for _, text := range []string{view, printed} {
			var logLines []string
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, "log: ") {
					logLines = append(logLines, strings.TrimSpace(l))
				}
			}
			require.NotEmpty(t, logLines, "width %d: the log is shown", w)
			for _, l := range logLines {
				shown := strings.TrimPrefix(l, "log: ")
				if strings.HasPrefix(shown, "…") {
					assert.True(t, strings.HasSuffix(path, strings.TrimPrefix(shown, "…")), "width %d: %q is the end of the path", w, shown)
				} else {
					assert.Equal(t, path, shown, "width %d: the whole path", w)
				}
			}
		}
	}
}

// The real program at 80 columns: the failure printed above the live area
// fits the terminal (a wider line would wrap and leave stale text when the
// live area is redrawn).
func TestTeatestWideFailureFitsTheTerminal(t *testing.T) {
	es := wideFailure()
	now := at(3)
	opts := testOptions(&now, nil)
	opts.Interval = 10 * time.Millisecond
	p := New(opts)
	tm := teatest.NewTestModel(t, newModel(p.opts, p.q), teatest.WithInitialTermSize(80, 24))
	for _, e := range es {
		p.Emit(e)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("will retry")) },
		teatest.WithDuration(5*time.Second))
	p.Close()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	for _, line := range strings.Split(final.View().Content, "\n") {
		assert.LessOrEqual(t, lipgloss.Width(line), 80, "%q", line)
	}
	assertGolden(t, "program_wide_failure_80x24.golden", []byte(final.View().Content+"\n"))
}
