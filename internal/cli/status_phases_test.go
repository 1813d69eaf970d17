package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/journal"
)

// TestStatusJSONPhases: `oedl status --json` has the phases a script
// wants, each with its start, time, state and invocation: a run stopped
// in idxbuild, then resumed to the end (status-polish: status had none,
// the journal keeps no phase event; the replay derives them from the jobs
// that entered them, as the live run does).
func TestStatusJSONPhases(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	job := func(s int, id, kind string, st journal.State) journal.Record {
		r := journal.Record{Time: at(s), Job: id, Kind: kind, State: st}
		if st == journal.Failed {
			r.Err, r.Reason = "interrupted", event.ReasonCancelled
		}
		return r
	}
	run := func(s int, st journal.State) journal.Record {
		r := journal.Record{Time: at(s), Job: journal.RunJob, State: st}
		if st == journal.Failed {
			r.Err, r.Reason = "interrupted", event.ReasonCancelled
		}
		return r
	}
	work := writeJournal(t,
		run(0, journal.Started),
		job(0, "preflight", "preflight", journal.Started), job(2, "preflight", "preflight", journal.Done),
		job(2, "serve:source", "serve", journal.Started), job(3, "serve:source", "serve", journal.Done),
		job(3, "dump:PUB.a", "dump", journal.Started), job(10, "dump:PUB.a", "dump", journal.Done),
		job(10, "load:PUB.a", "load", journal.Started), job(20, "load:PUB.a", "load", journal.Done),
		job(21, "idxbuild", "idxbuild", journal.Started), job(30, "idxbuild", "idxbuild", journal.Failed),
		run(30, journal.Failed),
		run(100, journal.Started),
		job(100, "preflight", "preflight", journal.Started), job(101, "preflight", "preflight", journal.Done),
		job(101, "idxbuild", "idxbuild", journal.Started), job(120, "idxbuild", "idxbuild", journal.Done),
		job(120, "verify", "verify", journal.Started), job(125, "verify", "verify", journal.Done),
		job(125, "post", "post", journal.Started), job(126, "post", "post", journal.Done),
		run(126, journal.Done),
	)
	_, out, errOut := runOEDL("status", "--work", work, "--json")
	var got struct {
		Phases json.RawMessage `json:"phases"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out+errOut)
	var b []byte
	var v any
	require.NoError(t, json.Unmarshal(got.Phases, &v), out)
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	golden.Assert(t, filepath.Join("testdata", "status-phases.json"), append(b, '\n'))

	_, text, _ := runOEDL("status", "--work", work)
	require.Contains(t, text, "phases: preflight 3s › dump+load 18s › idxbuild 9s (stopped) › preflight 1s › idxbuild 19s › verify 5s › post 1s\n")
}
