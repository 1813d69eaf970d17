package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// --no-integrity: the target's broker gets -i, or, when nothing serves
// the target, each load; never the source's broker, never without it.
func TestNoIntegrityCommands(t *testing.T) {
	p := &plan.Plan{BlockSize: 4096, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10)}}
	bin := func(n string) string { return filepath.Join("/dlc/bin", n) }
	load := &schedule.Job{Kind: schedule.KindLoad, Table: "PUB.customer"}
	batch := &schedule.Job{ID: "load-batch:Small:1", Kind: schedule.KindLoadBatch, Area: "Small", Members: []schedule.Member{{Table: "PUB.state"}}}
	tests := []struct {
		name     string
		noInt    bool
		loadJobs int
		job      *schedule.Job
		want     []string
	}{
		{"served target: its broker", true, 2, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBTarget}, []string{bin("proserve"), "/new/tgt", "-i"}},
		{"served target: not the source's broker", true, 2, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBSource}, []string{bin("proserve"), "/db/src"}},
		{"served target: a load as its client", true, 2, load, []string{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.customer/customer.bd"}},
		{"single-user: each load", true, 1, load, []string{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.customer/customer.bd", "-i"}},
		{"single-user: a batch", true, 1, batch, []string{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.state/state.bd", "-dumplist", "/w/batches/load-batch_Small_1.lst", "-i"}},
		{"without the flag", false, 1, load, []string{bin("proutil"), "/new/tgt", "-C", "load", "/w/dump/PUB.customer/customer.bd"}},
		{"without the flag: the broker", false, 2, &schedule.Job{Kind: schedule.KindServe, DB: schedule.DBTarget}, []string{bin("proserve"), "/new/tgt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{DLC: "/dlc", Source: "/db/src", Target: "/new/tgt", PlanDir: "/plan", Work: "/w", Plan: p,
				DumpJobs: 2, LoadJobs: tt.loadJobs, NoIntegrity: tt.noInt}
			assert.Equal(t, [][]string{tt.want}, Commands(cfg, tt.job))
		})
	}
}

// When a resume must rebuild the target: only in a no-integrity run, and
// only when a load failed or died, or a client writing through the -i
// broker was killed.
func TestNoIntegrityDamage(t *testing.T) {
	ld := func(job, area string, s journal.State) journal.Record {
		return journal.Record{Job: job, Kind: "load", Table: job, Area: area, State: s}
	}
	seq := func(s journal.State, signal string) journal.Record {
		return journal.Record{Job: "load-sequences", Kind: "load-sequences", State: s, Signal: signal, Err: "killed"}
	}
	tests := []struct {
		name  string
		noInt bool
		recs  []journal.Record
		want  bool
	}{
		{"all loads done", true, []journal.Record{ld("load:a", "D", journal.Started), ld("load:a", "D", journal.Done)}, false},
		{"a load failed", true, []journal.Record{ld("load:a", "D", journal.Started), ld("load:a", "D", journal.Failed)}, true},
		{"a load killed with oedl", true, []journal.Record{ld("load:a", "D", journal.Started)}, true},
		{"a load failed, integrity kept: an area repair will do", false, []journal.Record{ld("load:a", "D", journal.Failed)}, false},
		{"the sequences killed with oedl", true, []journal.Record{seq(journal.Started, "")}, true},
		{"the sequences killed by a signal", true, []journal.Record{seq(journal.Started, ""), seq(journal.Failed, "SIGKILL")}, true},
		{"the sequences failed on their own: retried", true, []journal.Record{seq(journal.Started, ""), seq(journal.Failed, "")}, false},
		{"the sequences done", true, []journal.Record{seq(journal.Started, ""), seq(journal.Done, "")}, false},
		{"idxbuild refused the target: its broker died under -i", true, []journal.Record{
			{Job: "idxbuild", Kind: "idxbuild", State: journal.Started},
			{Job: "idxbuild", Kind: "idxbuild", State: journal.Failed, Err: (&JobError{Reason: "proutil idxbuild exited with code 1", Message: "** Your database cannot be repaired. You must restore a backup copy. (510)"}).Error()}}, true},
		{"idxbuild failed otherwise", true, []journal.Record{
			{Job: "idxbuild", Kind: "idxbuild", State: journal.Failed, Err: "proutil idxbuild exited with code 1: ** Cannot find or open file /x/(510)/y, errno = 2. (43)"}}, false},
		{"a refusal before the target was created again", true, []journal.Record{
			{Job: "idxbuild", Kind: "idxbuild", State: journal.Failed, Err: "x: ** The last session was run with the no integrity (-i) parameter. (509)"},
			{Job: "create-target", Kind: "create-target", State: journal.Done}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := noIntegrityDamage(&Config{NoIntegrity: tt.noInt}, journal.Replay(tt.recs))
			assert.Equal(t, tt.want, why != "", why)
		})
	}
}

// A resume takes -i from the journal: a journal begun before -i was the
// default (no such setting, or no settings at all) resumes crash-safe
// though the command line now defaults to -i; one begun with it, or
// with --no-integrity=false, resumes as it began.
func TestResumeTakesIntegrityFromJournal(t *testing.T) {
	tests := []struct {
		name     string
		settings string // the run record's settings, as an oedl wrote them
		want     bool
	}{
		{"an old journal without the setting", `"settings":{"dump_jobs":4,"load_jobs":2,"tune_target":1}`, false},
		{"an older journal without settings", ``, false},
		{"begun with -i", `"settings":{"dump_jobs":4,"load_jobs":2,"no_integrity":1}`, true},
		{"begun crash-safe", `"settings":{"dump_jobs":4,"load_jobs":2,"no_integrity":0}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"time":"2026-01-02T03:04:05Z","job":"run","state":"started"`
			if tt.settings != "" {
				line += "," + tt.settings
			}
			path := filepath.Join(t.TempDir(), journal.FileName)
			require.NoError(t, os.WriteFile(path, []byte(line+"}\n"), 0o644))
			recs, err := journal.Read(path)
			require.NoError(t, err)
			c := &Config{Work: filepath.Dir(path), NoIntegrity: true} // today's command-line default
			require.NoError(t, c.adoptSettings(journal.Replay(recs), "plan-hash"))
			assert.Equal(t, tt.want, c.NoIntegrity)
		})
	}
}
