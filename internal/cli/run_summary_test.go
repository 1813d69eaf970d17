package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/verify"
)

// The summary names what the verify proved, the sequence values with the
// rest, and says nothing of them when they differ: the run failed then.
func TestRunSummarySaysTheSequencesVerified(t *testing.T) {
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		after string
		want  bool
	}{
		{"the same values", "\"NextCust\" 5\n\"NextOrd\" 7\n", true},
		{"one differs", "\"NextCust\" 0\n\"NextOrd\" 7\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &verify.Result{OK: true}
			seqs, err := verify.CompareSequenceFiles("before", "\"NextCust\" 5\n\"NextOrd\" 7\n", "after", tt.after)
			require.NoError(t, err)
			v.AddSequences(seqs)
			var b strings.Builder
			printRunSummary(&b, run.Config{Target: "/new/prod", Work: "/w"},
				&run.Result{Schedule: &schedule.Result{Start: start, End: start.Add(3 * time.Second)}, Verify: v})
			assert.Equal(t, tt.want, strings.Contains(b.String(), "verified: 2 sequence values before = after\n"), b.String())
		})
	}
}

// A --target spelled through "link/.." is shown as the run named it,
// cleaned and absolute: the shell resolves "a/link/../sports" through the
// link, which may lead into the source's directory, where `ls` or a
// `prodel` of the printed name finds the source (safety trial 10).
func TestRunSummaryNamesTheTargetTheRunMade(t *testing.T) {
	dir := t.TempDir()
	given := dir + "/a/link/../sports"
	want := "target:   " + dir + "/a/sports\n"
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	var b strings.Builder
	printRunSummary(&b, run.Config{Target: given, Work: "/w"},
		&run.Result{Schedule: &schedule.Result{Start: start, End: start.Add(time.Second)}})
	assert.Contains(t, b.String(), want)
	b.Reset()
	printNothingToDo(&b, run.Config{Target: given, Work: "/w"}, &run.Finished{At: start})
	assert.Contains(t, b.String(), "target: "+dir+"/a/sports\n")
}

// A run across hosts names its target with its host; the summary's
// "target:" line was empty (the hosts file names the databases, not
// --target), and so was a finished resume's.
func TestRunSummaryNamesTheTargetsHost(t *testing.T) {
	hf, err := hosts.Parse("hosts.yaml", []byte("hosts:\n  old:\n    role: source\n    ssh: old1\n    db: /db/prod\n    work: /w-old\n  new:\n    role: target\n    ssh: new1\n    db: /newdb/prod\n    work: /w-new\n"))
	require.NoError(t, err)
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		cfg  run.Config
		want string
	}{
		{run.Config{Target: "/new/prod", Work: "/w"}, "/new/prod"},
		{run.Config{Hosts: hf, Work: "/w"}, "/newdb/prod on new"},
	} {
		var b strings.Builder
		printRunSummary(&b, tt.cfg, &run.Result{Schedule: &schedule.Result{Start: start, End: start.Add(time.Second)}})
		assert.Contains(t, b.String(), "\ntarget:   "+tt.want+"\n")
		b.Reset()
		printNothingToDo(&b, tt.cfg, &run.Finished{At: start})
		assert.Contains(t, b.String(), "; target: "+tt.want+"\n")
	}
}

// A run that resumed in place said "run done in 0.2s (resumed: 16 job(s)
// already done)" of a 1 s run nobody resumed (lefts30): the last
// attempt's time and skips. The invocation's time, the restart as it was.
func TestRunSummaryAfterResumeInPlace(t *testing.T) {
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	var b strings.Builder
	printRunSummary(&b, run.Config{Target: "/new/prod", Work: "/w"},
		&run.Result{Schedule: &schedule.Result{Start: start.Add(8 * time.Second), End: start.Add(10 * time.Second)},
			Resumed: true, Skipped: 16, InPlace: 1, Began: start})
	assert.Contains(t, b.String(), "\nrun done in 10s (resumed in place once)\n")
	assert.NotContains(t, b.String(), "already done")
}
