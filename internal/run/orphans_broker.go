package run

import (
	"context"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
)

// brokerRaceTries bounds how often a resume asks the holder again when
// proshut found no server (1423) where the holder had just found one
// (276); brokerRacePause is the pause between two tries, as checkHolder's.
var (
	brokerRaceTries = 3
	brokerRacePause = 250 * time.Millisecond
)

// shutDownKilledBroker shuts down the broker serving database which when
// it is proven the one a killed run started (killedRunServes), and says
// whether it did. A database nobody serves is no longer counted as
// served by this run; one served by a broker not proven the killed run's
// is left up (the preflight decides on it).
//
// The holder's answer and proshut's are two calls apart: a broker dying,
// or started by the killed run's proserve and not yet listening, makes
// the holder say served (276) and proshut say there is no server (1423).
// Then the holder is asked again, and the broker proven again, up to
// brokerRaceTries times: a database now free goes on, a broker listening
// by then is shut down, one no longer the killed run's is left up.
func (r *runner) shutDownKilledBroker(ctx context.Context, which string) (bool, error) {
	db := r.cfg.db(which)
	for try := 1; ; try++ {
		h, held, err := r.holder(ctx, which)
		if err != nil {
			return false, err
		}
		if h != holderMulti {
			r.servedByUs[which] = false
			return false, nil
		}
		if ours, err := r.killedRunServes(ctx, which); err != nil || !ours {
			return false, err
		}
		r.ownProc(r.brokers[which].PID) // proven the killed run's: its log lines are the run's
		out, err := r.callOutput(ctx, r.cfg.shutdownStep(which))
		if err == nil {
			r.servedByUs[which] = false
			return true, nil
		}
		if !openedge.HasMessage(out, openedge.MsgNoServer) || try == brokerRaceTries {
			return false, precondition("the broker a killed run left on %s%s did not shut down (%v)%s: shut it down with proshut %s -by, then resume again",
				db, r.onHost(which), err, holderText(held), execx.ShellQuote(db))
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(brokerRacePause):
		}
	}
}
