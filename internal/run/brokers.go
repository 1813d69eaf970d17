package run

import (
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/sysproc"
)

// startedBrokers are the brokers the journal's serve jobs started and no
// shutdown stopped, by database, as their done records identify them
// (journal.Record.Broker).
func startedBrokers(recs []journal.Record) map[string]sysproc.ID {
	out := map[string]sysproc.ID{}
	for _, r := range recs {
		if db, ok := strings.CutPrefix(r.Job, schedule.ServeID("")); ok && r.State == journal.Done && r.Broker != nil {
			out[db] = *r.Broker
		}
		if db, ok := strings.CutPrefix(r.Job, schedule.ShutdownID("")); ok && r.State == journal.Done {
			delete(out, db)
		}
	}
	return out
}

// killedRunServes says whether the broker serving database which is the
// one a killed run started, which the resume may shut down. The journal's
// serve is not enough: after the kill the DBA may have shut that broker
// down and served the database again himself, for his users, and a
// proshut -by would disconnect them without notice. So a broker the
// journal identifies must still be that process (its PID and start time);
// one it does not (a journal from before oedl recorded brokers, a kill
// between proserve and the record, another host) is taken for the killed
// run's, as before. When the killed run's broker is gone the run forgets
// it, and the database counts as served by someone else.
func (r *runner) killedRunServes(which string) bool {
	if !r.servedByUs[which] {
		return false
	}
	id, known := r.brokers[which]
	if !known || id.Alive() {
		return true
	}
	r.servedByUs[which] = false
	r.notice(fmt.Sprintf("the broker the killed run started on %s (pid %d) is gone: the one serving it now is someone else's, and oedl leaves it up",
		r.cfg.db(which), id.PID))
	return false
}
