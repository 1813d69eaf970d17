package run

import (
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// FrozenBaseline tells whether report is the source's tabanalys that a run
// in the same work directory took of a source no one else could write
// (journal.Record.Frozen), unchanged since (same path and size as its
// record). Such a report carries (2486) from the broker the run itself
// started for its dumps, yet its counts are the frozen source's: the run
// verified against it, and standalone `oedl verify` says so instead of
// calling it approximate. It returns the record's sequence number; false
// when there is no such journal or record, or the file changed.
func FrozenBaseline(report string) (int64, bool) {
	abs, err := filepath.Abs(report)
	if err != nil {
		return 0, false
	}
	recs, err := journal.Read(filepath.Join(filepath.Dir(abs), journal.FileName))
	if err != nil {
		return 0, false
	}
	st, err := os.Stat(abs)
	if err != nil {
		return 0, false
	}
	// The last analysis of the source decides: a resume that analysed it
	// again overwrote the file.
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Job != string(schedule.KindAnalyzeSource) || r.State != journal.Done {
			continue
		}
		for _, f := range r.Files {
			if f.Host == "" && f.Path == abs {
				return r.Seq, r.Frozen && f.Size == st.Size()
			}
		}
		return 0, false
	}
	return 0, false
}
