package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestStatusAfterResumeInPlace: a run whose load failed on a target a
// no-integrity load damaged resumes in place (run.Run: the same oedl
// process starts again, its run record's process the first's). `oedl
// status` read it as two runs (lefts30): "phases: preflight › dump+load
// (failed) › preflight › dump+load › ...", and "run finished in" the
// restart's time alone. The restart is said once: the phase it happened
// in, marked, and the whole run's time. A --resume by the DBA (another
// process) is still told as a second pass through the phases.
func TestStatusAfterResumeInPlace(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	job := func(s int, id, kind string, st journal.State) journal.Record {
		r := journal.Record{Time: at(s), Job: id, Kind: kind, State: st}
		if st == journal.Failed {
			r.Err = "proutil load exited with code 1: (509)"
		}
		return r
	}
	first, other := sysproc.ID{PID: 100, Start: 5, Boot: "b"}, sysproc.ID{PID: 200, Start: 9, Boot: "b"}
	run := func(s int, st journal.State, proc *sysproc.ID) journal.Record {
		r := journal.Record{Time: at(s), Job: journal.RunJob, State: st, Proc: proc}
		if st == journal.Failed {
			r.Err = "1 job failed"
		}
		return r
	}
	tests := []struct {
		name       string
		second     sysproc.ID
		phases     string
		finished   string
		outage     string // the outage line's end (its start is in local time)
		jsonPhases int
		dumpLoad   string // how the first dump+load ended
	}{
		{name: "resumed in place", second: first,
			phases:   "phases: preflight 2s › dump+load 23s (restarted) › idxbuild 9s › verify 5s › post 1s\n",
			finished: "run finished in 40s\n", outage: ", resumed in place once\n", jsonPhases: 5, dumpLoad: "done"},
		{name: "resumed by the DBA", second: other,
			phases:   "phases: preflight 2s › dump+load 13s (failed) › preflight 1s › dump+load 9s › idxbuild 9s › verify 5s › post 1s\n",
			finished: "run finished in 25s\n", outage: ", over 2 invocations\n", jsonPhases: 7, dumpLoad: "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := writeJournal(t,
				run(0, journal.Started, &first),
				job(0, "preflight", "preflight", journal.Started), job(2, "preflight", "preflight", journal.Done),
				job(2, "dump:PUB.a", "dump", journal.Started), job(10, "dump:PUB.a", "dump", journal.Done),
				job(10, "load:PUB.a", "load", journal.Started), job(15, "load:PUB.a", "load", journal.Failed),
				run(15, journal.Failed, &first),
				run(15, journal.Started, &tt.second),
				job(15, "preflight", "preflight", journal.Started), job(16, "preflight", "preflight", journal.Done),
				job(16, "load:PUB.a", "load", journal.Started), job(25, "load:PUB.a", "load", journal.Done),
				job(25, "idxbuild", "idxbuild", journal.Started), job(34, "idxbuild", "idxbuild", journal.Done),
				job(34, "verify", "verify", journal.Started), job(39, "verify", "verify", journal.Done),
				job(39, "post", "post", journal.Started), job(40, "post", "post", journal.Done),
				run(40, journal.Done, &tt.second),
			)
			_, text, errOut := runOEDL("status", "--work", work)
			assert.Contains(t, text, tt.phases, errOut)
			assert.Contains(t, text, tt.finished)
			assert.Contains(t, text, tt.outage)

			_, out, _ := runOEDL("status", "--work", work, "--json")
			var got struct {
				Phases []struct {
					Name     string `json:"name"`
					State    string `json:"state"`
					Restarts int    `json:"restarts"`
				} `json:"phases"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
			require.Len(t, got.Phases, tt.jsonPhases, out)
			assert.Equal(t, tt.dumpLoad, got.Phases[1].State)
		})
	}
}
