package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

// eventSchema is docs/events.schema.json, compiled once.
func eventSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	root, err := moduleRoot()
	require.NoError(t, err)
	path := filepath.Join(root, "docs", "events.schema.json")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(path, doc))
	s, err := c.Compile(path)
	require.NoError(t, err, "the schema itself is valid JSON Schema")
	return s
}

// ev is the part of an event the invariants look at.
type ev struct {
	Kind     string           `json:"kind"`
	Job      string           `json:"job"`
	JobKind  string           `json:"job_kind"`
	Attempt  int              `json:"attempt"`
	Reason   string           `json:"reason"`
	ExitCode int              `json:"exit_code"`
	Signal   string           `json:"signal"`
	Retrying bool             `json:"retrying"`
	Status   string           `json:"status"`
	Message  string           `json:"message"`
	Records  *int64           `json:"records"`
	Bytes    *int64           `json:"bytes"`
	Elapsed  int64            `json:"elapsed_ns"`
	Batch    string           `json:"batch"`
	Settings map[string]int64 `json:"settings"`
	Estimate *struct {
		Window int64 `json:"window_ns"`
	} `json:"estimate"`
	ETA *struct {
		Remaining int64 `json:"remaining_ns"`
		P50       int64 `json:"p50_ns"`
		P90       int64 `json:"p90_ns"`
	} `json:"eta"`
	Verify *struct {
		OK     bool `json:"ok"`
		Tables int  `json:"tables"`
	} `json:"verify"`
}

// checkEvents validates every line of a --json stdout against the schema
// and the life of a job as docs/events.md tells it, and returns the events.
func checkEvents(t *testing.T, schema *jsonschema.Schema, stdout string) []ev {
	t.Helper()
	var out []ev
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		require.NoError(t, err, "line %d is not JSON: %s", n, line)
		if err := schema.Validate(inst); err != nil {
			t.Errorf("line %d does not keep the schema: %v\n%s", n, err, line)
		}
		var e ev
		require.NoError(t, json.Unmarshal(line, &e))
		out = append(out, e)
	}
	require.NotEmpty(t, out, "no events on stdout")
	assert.Equal(t, "run_started", out[0].Kind, "the first event")
	assert.Equal(t, "run_finished", out[len(out)-1].Kind, "the last event")

	// A failure followed by another attempt says so, and the attempt
	// comes: job_failed (retrying) -> job_retry -> job_started. A job
	// queued again has ended before (failed, or done and undone by a
	// repair). Attempts only go up.
	ended := map[string]bool{}
	pendingRetry := map[string]bool{}
	attempt := map[string]int{}
	for i, e := range out {
		switch e.Kind {
		case "job_failed":
			ended[e.Job] = true
			if e.Retrying {
				pendingRetry[e.Job] = true
			}
		case "job_finished", "job_cancelled":
			ended[e.Job] = true
		case "job_retry":
			assert.True(t, ended[e.Job], "event %d: job_retry of %s before it ended", i, e.Job)
			delete(pendingRetry, e.Job)
		case "job_started":
			assert.GreaterOrEqual(t, e.Attempt, attempt[e.Job], "event %d: %s attempt %d after %d", i, e.Job, e.Attempt, attempt[e.Job])
			attempt[e.Job] = e.Attempt
			ended[e.Job] = false
		}
	}
	assert.Empty(t, pendingRetry, "a job_failed said retrying and no job_retry came")
	return out
}

func kinds(events []ev, kind string) []ev {
	var out []ev
	for _, e := range events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// The --json stream of real runs keeps the documented contract: a
// verified run, a failed one (a hung dump retried, a killed load repaired,
// a load that always fails), a cancelled one and its resume.
// assertETAsInTheirRange: every eta event's ETA is its range's P50, and
// its P90 is no less (a manager reading "ETA 10s (P50–P90 12s–15s)" could
// not tell which figure to promise).
func assertETAsInTheirRange(t *testing.T, events []ev) {
	t.Helper()
	for i, e := range kinds(events, "eta") {
		assert.Equal(t, e.ETA.Remaining, e.ETA.P50, "eta event %d", i+1)
		assert.GreaterOrEqual(t, e.ETA.P90, e.ETA.Remaining, "eta event %d", i+1)
	}
}

func TestEventsKeepTheSchema(t *testing.T) {
	schema := eventSchema(t)

	t.Run("verified", func(t *testing.T) {
		e := newEnv(t, "sports")
		r := e.oedl(nil, e.runArgs("--json")...)
		require.Equal(t, 0, r.code, r.stderr)
		events := checkEvents(t, schema, r.stdout)
		fin := events[len(events)-1]
		assert.Equal(t, "verified", fin.Status)
		require.NotNil(t, fin.Verify)
		assert.True(t, fin.Verify.OK)
		assert.Positive(t, fin.Verify.Tables)
		var phases []string
		for _, p := range kinds(events, "phase") {
			phases = append(phases, p.Message+p.Kind)
		}
		assert.Len(t, phases, 5, "preflight, dump+load, idxbuild, verify, post")
		for _, f := range kinds(events, "job_finished") {
			if f.JobKind == "load" {
				assert.NotNil(t, f.Records, "%s: the jq example of docs/events.md reads .records", f.Job)
			}
		}
		assert.Contains(t, r.stderr, "run started", "a person sees the run on stderr while the events go to stdout")
		// The run estimated its own graph before it started, and re-ran
		// the estimate over what was left as it went (at least when its
		// first job started).
		require.NotNil(t, events[0].Estimate, "run_started carries the estimate")
		assert.Positive(t, events[0].Estimate.Window)
		require.NotEmpty(t, kinds(events, "eta"))
		assertETAsInTheirRange(t, events)
	})

	// Started at one dump and one load, tuned: the run serves the source
	// and the target for the tuner's ceiling, ends verified, and every
	// move of a limit it made keeps the contract.
	t.Run("tuned", func(t *testing.T) {
		e := newEnv(t, "sports")
		r := e.oedl(nil, e.runArgs("--json", "--tune", "auto", "--dump-jobs", "1", "--load-jobs", "1")...)
		require.Equal(t, 0, r.code, r.stderr)
		events := checkEvents(t, schema, r.stdout)
		assert.Equal(t, "verified", events[len(events)-1].Status)
		assert.Equal(t, int64(1), events[0].Settings["tune"], "journalled for a resume")
		for _, te := range kinds(events, "tune") {
			assert.NotEmpty(t, te.Message)
		}
		assertETAsInTheirRange(t, events) // the forecasts after a tune queue through its limits
	})

	t.Run("batched", func(t *testing.T) {
		e := newEnv(t, "sports")
		r := e.oedl(nil, e.runArgs("--json", "--batch-loads")...)
		require.Equal(t, 0, r.code, r.stderr)
		events := checkEvents(t, schema, r.stdout)
		elapsed := map[string]int64{} // by batch: every table of it says the call's time
		tables := map[string]int{}
		for _, f := range kinds(events, "job_finished") {
			if f.Batch == "" {
				continue
			}
			assert.Equal(t, "load", f.JobKind, f.Job)
			assert.NotNil(t, f.Records, "%s: its own count", f.Job)
			assert.NotNil(t, f.Bytes, "%s: its own bytes", f.Job)
			assert.Positive(t, f.Elapsed, "%s: the batch's call", f.Job)
			if was, seen := elapsed[f.Batch]; seen {
				assert.Equal(t, was, f.Elapsed, "%s: the same call as the other tables of %s", f.Job, f.Batch)
			}
			elapsed[f.Batch] = f.Elapsed
			tables[f.Batch]++
		}
		require.NotEmpty(t, tables, "no table was loaded in a batch")
		for b, n := range tables {
			assert.GreaterOrEqual(t, n, 2, "%s: a batch is of two tables or more", b)
		}
	})

	t.Run("failed", func(t *testing.T) {
		e := newEnv(t, "sports")
		faults := "dump:PUB.Order:hang,once; load:PUB.Item:crash-after=1,once; load:PUB.Customer:exit=3"
		// Crash-safe: each failed load's own events and its area repair
		// (under -i the first failure rebuilds the whole target).
		r := e.oedl([]string{"OESIM_FAULTS=" + faults}, e.runArgs("--json", "--job-timeout", "3s", crashSafe)...)
		require.Equal(t, 1, r.code, r.stderr)
		events := checkEvents(t, schema, r.stdout)
		fin := events[len(events)-1]
		assert.Equal(t, "failed", fin.Status)
		assert.NotEqual(t, "verified", fin.Message, "a failed run never says verified")

		var hung, killed, exited []ev
		for _, f := range kinds(events, "job_failed") {
			switch {
			case f.Job == "dump:PUB.Order":
				hung = append(hung, f)
			case f.Job == "load:PUB.Item":
				killed = append(killed, f)
			case f.Job == "load:PUB.Customer":
				exited = append(exited, f)
			}
		}
		require.Len(t, hung, 1)
		assert.Equal(t, "hang", hung[0].Reason)
		assert.True(t, hung[0].Retrying)
		require.Len(t, killed, 1)
		assert.Equal(t, "signal", killed[0].Reason)
		assert.Equal(t, "SIGKILL", killed[0].Signal)
		require.NotEmpty(t, exited)
		last := exited[len(exited)-1]
		assert.Equal(t, "exit", last.Reason)
		assert.Equal(t, 3, last.ExitCode)
		assert.False(t, last.Retrying, "the last attempt is the end")
		assert.Greater(t, last.Attempt, 1, "the same job ID, a later attempt")
		assert.Contains(t, r.stderr, "1 job failed (load:PUB.Customer)")
	})

	t.Run("cancelled and resumed", func(t *testing.T) {
		e := newEnv(t, "sports")
		cmd := exec.Command(filepath.Join(e.fx.bin, "oedl"), e.runArgs("--json")...)
		cmd.Env = append(append(os.Environ(), e.extra...), "OESIM_FAULTS=*:delay=150ms")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Start())
		waitForLoads(t, filepath.Join(e.work, journal.FileName), 2)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "exit non-zero: %v", err)
		require.Equal(t, 130, ee.ExitCode(), stderr.String())
		events := checkEvents(t, schema, stdout.String())
		fin := events[len(events)-1]
		assert.Equal(t, "interrupted", fin.Status)
		assert.NotEmpty(t, kinds(events, "job_cancelled"), "the jobs the interrupt stopped are cancelled")
		for _, f := range kinds(events, "job_failed") {
			assert.NotEqual(t, "cancelled", f.Reason, "a cancel is not a failure")
		}
		assert.Equal(t, 1, strings.Count(stderr.String(), "interrupted"), "stderr says interrupted once:\n%s", stderr.String())

		r := e.oedl(nil, e.runArgs("--json", "--resume")...)
		require.Equal(t, 0, r.code, r.stderr)
		events = checkEvents(t, schema, r.stdout)
		assert.Equal(t, 2, events[0].Attempt, "run_started of the second invocation")
		assert.NotEmpty(t, kinds(events, "job_skipped"))
		assert.Equal(t, "verified", events[len(events)-1].Status)
		e.verified()
	})
}

// waitForLoads polls another process's journal until n loads started.
func waitForLoads(t *testing.T, jpath string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		recs, _ := journal.Read(jpath)
		loads := 0
		for _, r := range recs {
			if r.Kind == "load" && r.State == journal.Started {
				loads++
			}
		}
		if loads >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "no loads started")
		time.Sleep(20 * time.Millisecond) // polling the journal of another process
	}
}
