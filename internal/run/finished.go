package run

import (
	"context"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// Finished is a run whose last invocation ended verified: a resume of it
// has nothing to do.
type Finished struct {
	At     time.Time // the end record's time
	Verify string    // the verify step's summary ("25 tables, 37344 records; sha256 ...")
}

// finishedRun tells whether the journal's run is over and verified. A
// resume of it changes nothing: no journal record, no report, no timings
// (a report rebuilt from a second invocation would stretch the run's span
// to the moment of the resume). Its target must still be there: a run
// whose database is gone is not finished, and a new run needs a new work
// directory.
func finishedRun(ctx context.Context, c *Config, rp *journal.Replayed) (*Finished, error) {
	runs := rp.Runs
	if len(runs) == 0 || runs[len(runs)-1].State != journal.Done {
		return nil, nil
	}
	if !c.targetExists(ctx) {
		return nil, precondition("the run in %s finished verified at %s, but its target %s.db is gone: a new run needs a new --work directory",
			c.Work, runs[len(runs)-1].Time.Format(time.RFC3339), c.Target)
	}
	f := &Finished{At: runs[len(runs)-1].Time}
	if v := rp.Jobs[string(schedule.KindVerify)]; v != nil && v.Done != nil {
		f.Verify = v.Done.Message
	}
	return f, nil
}

// IsFinished tells, without taking the work directory's lock, whether the
// run journalled in work is over and verified (the screen is not worth
// starting for a resume that has nothing to do; Run decides for sure).
func IsFinished(work string) bool {
	recs, err := journal.Read(filepath.Join(work, journal.FileName))
	if err != nil {
		return false
	}
	runs := journal.Replay(recs).Runs
	return len(runs) > 0 && runs[len(runs)-1].State == journal.Done
}
