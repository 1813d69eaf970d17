package run

import (
	"cmp"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

func prepRec(job string, state journal.State) journal.Record {
	r := journal.Record{Job: job, State: state, Time: time.Unix(100, 0)}
	if job == journal.PrepareJob && state == journal.Started {
		r.Plan, r.Source, r.Target = "hash", "/db/src", "/db/tgt"
	}
	if job == string(schedule.KindCreateTarget) {
		r.Kind = job
	}
	return r
}

// A prepare journal folds into: finished or not, for which plan and
// databases, and whether its create-target stands.
func TestFoldPrepare(t *testing.T) {
	create := string(schedule.KindCreateTarget)
	tests := []struct {
		name       string
		recs       []journal.Record
		finished   bool
		createDone bool
		wantErr    string // from matches, for plan "hash", /db/src -> /db/tgt
		plan       string
		// source and target given, when not those prepared
		source, target string
	}{
		{name: "none", plan: "hash"},
		{name: "killed before create-target", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started)}, plan: "hash"},
		{name: "killed while creating", plan: "hash", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started),
			prepRec(create, journal.Started), prepRec(create, journal.Running)}},
		{name: "created, not checked", plan: "hash", createDone: true, recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started),
			prepRec(create, journal.Started), prepRec(create, journal.Done)}},
		{name: "finished", plan: "hash", createDone: true, finished: true, recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started),
			prepRec(create, journal.Started), prepRec(create, journal.Done), prepRec(journal.PrepareJob, journal.Done)}},
		{name: "prepared again with --force: the earlier one is gone until it finishes", plan: "hash", recs: []journal.Record{
			prepRec(journal.PrepareJob, journal.Started), prepRec(create, journal.Done), prepRec(journal.PrepareJob, journal.Done),
			prepRec(journal.PrepareJob, journal.Started), prepRec(create, journal.Started)}},
		{name: "another plan", plan: "other", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started)},
			wantErr: "gives another --plan"},
		{name: "another source", plan: "hash", source: "/db/other", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started)},
			wantErr: "gives --source /db/other, not /db/src"},
		{name: "another target", plan: "hash", target: "/db/other", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started)},
			wantErr: "gives --target /db/other, not /db/tgt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := foldPrepare(tt.recs)
			assert.Equal(t, tt.finished, s.done != nil, "finished")
			assert.Equal(t, tt.createDone, s.createDone, "create-target stands")
			c := &Config{Work: "/w", Source: cmp.Or(tt.source, "/db/src"), Target: cmp.Or(tt.target, "/db/tgt")}
			err := s.matches(c, tt.plan)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			var ue *UsageError
			require.ErrorAs(t, err, &ue, "other inputs are bad usage, exit 2")
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// readPrepared: nothing, a finished preparation, or exit 3 for one that
// did not finish.
func TestReadPrepared(t *testing.T) {
	create := string(schedule.KindCreateTarget)
	tests := []struct {
		name    string
		recs    []journal.Record
		want    bool
		wantErr string
	}{
		{name: "no preparation"},
		{name: "unfinished", recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started), prepRec(create, journal.Started)},
			wantErr: "did not finish"},
		{name: "finished", want: true, recs: []journal.Record{prepRec(journal.PrepareJob, journal.Started), prepRec(create, journal.Started),
			prepRec(create, journal.Done), prepRec(journal.PrepareJob, journal.Done)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			if tt.recs != nil {
				w, _, err := journal.Open(filepath.Join(work, journal.PrepareFileName))
				require.NoError(t, err)
				for _, r := range tt.recs {
					require.NoError(t, w.Append(r))
				}
				require.NoError(t, w.Close())
			}
			got, err := readPrepared(&Config{Work: work, Source: "/db/src", Target: "/db/tgt"}, "hash")
			if tt.wantErr != "" {
				var pe *PreconditionError
				require.ErrorAs(t, err, &pe)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got != nil)
		})
	}
}

func analysisOf(counts map[string]int64) *openedge.Analysis {
	a := &openedge.Analysis{}
	for name, n := range counts {
		a.Tables = append(a.Tables, openedge.TableStat{Owner: "PUB", Name: name, Records: n})
	}
	return a
}

// The counts of a prepared target against those the preparation took.
func TestCountsDiffer(t *testing.T) {
	prepared := map[string]int64{"Customer": 0, "Order": 0}
	tests := []struct {
		name string
		now  map[string]int64
		want []string
	}{
		{"untouched", map[string]int64{"Customer": 0, "Order": 0}, nil},
		{"loaded into", map[string]int64{"Customer": 12, "Order": 0}, []string{"table PUB.Customer holds 12 records, not 0"}},
		{"a table dropped", map[string]int64{"Customer": 0}, []string{"table PUB.Order is gone"}},
		{"a table added", map[string]int64{"Customer": 0, "Order": 0, "Extra": 3}, []string{"table PUB.Extra was added (3 records)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, countsDiffer(analysisOf(prepared), analysisOf(tt.now)))
		})
	}
}

// The preparation's own check: every planned table there, none holding
// a record; records are a precondition (someone wrote), a missing table
// the preparation's failure.
func TestCheckPreparedAnalysis(t *testing.T) {
	p := &plan.Plan{Tables: []plan.Placement{{Table: "PUB.Customer"}, {Table: "PUB.Order"}}}
	tests := []struct {
		name         string
		counts       map[string]int64
		wantErr      string
		precondition bool
	}{
		{name: "as made", counts: map[string]int64{"Customer": 0, "Order": 0}},
		{name: "records in it", counts: map[string]int64{"Customer": 5, "Order": 0}, wantErr: "PUB.Customer holds 5 records", precondition: true},
		{name: "a table the .df did not make", counts: map[string]int64{"Customer": 0}, wantErr: "PUB.Order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPreparedAnalysis(analysisOf(tt.counts), p, "prepared.tba")
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			var pe *PreconditionError
			assert.Equal(t, tt.precondition, errors.As(err, &pe))
		})
	}
}
