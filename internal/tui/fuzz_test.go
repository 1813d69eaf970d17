package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/oedl/oedl/internal/event"
)

// FuzzStateApply feeds arbitrary event streams (JSON lines, as `oedl run
// --json` writes and a monitor might replay) to State and the renderers:
// nothing may panic, and the counts must always add up to the jobs seen.
func FuzzStateApply(f *testing.F) {
	var seed bytes.Buffer
	j := NewJSON(&seed)
	// A short stream: the fuzzer minimises every interesting input, and
	// that is slow on tens of kilobytes.
	for i, e := range synthRun(f, 2, "load:PUB.t0001") {
		if i%3 == 0 || e.Kind != event.JobProgress {
			j.Emit(e)
		}
	}
	j.Close()
	f.Add(seed.Bytes())
	f.Add([]byte(`{"kind":"job_finished","job":"x","job_kind":"load","table":"T","total_bytes":-5}` + "\n" +
		`{"kind":"job_progress","job":"x","job_kind":"load","bytes":-1}` + "\n" + `{"kind":"job_failed","job":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewState()
		jobs := map[string]bool{}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			var e event.Event
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			s.Apply(e)
			switch e.Kind {
			case event.JobQueued, event.JobStarted, event.JobProgress, event.JobFinished, event.JobFailed, event.JobRetry, event.JobSkipped:
				jobs[e.Job] = true
			}
		}
		c := s.Counts()
		if n := c.Done + c.Running + c.Queued + c.Failed + c.Skipped; n != len(jobs) {
			t.Fatalf("counts %+v add up to %d, want %d jobs", c, n, len(jobs))
		}
		if o := s.Overall(); o < 0 || o > 1 {
			t.Fatalf("overall %v out of [0,1]", o)
		}
		_ = RenderStatus(&bytes.Buffer{}, s, 80)
		_ = SummaryLine(s)
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	})
}
