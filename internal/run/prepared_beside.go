package run

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// preparedProof waits for the prepared target's proof started beside the
// source's checks: decided is false when it left the proof to
// provePrepared (err is then nil).
type preparedProof func() (decided bool, err error)

// provePreparedBeside starts the prepared target's proof beside the
// source's checks. After them it was two utility start-ups more on the
// window's first, idle seconds (proutil -C holder and tabanalys of the
// target: 0.33 s of 1.9 s before the first dump on seed003 at 150 ms a
// start-up, docs/benchmarks/run.md, i12-gap2). It touches neither the
// source nor anything the source's checks read, and opens the target only
// after its files are proven as prepare left them. Only the usual case is
// decided here: the files untouched, nobody holding the target, its counts
// those prepare took. A holder (a killed run's broker to shut down, a
// single-user utility to wait for) or a call that could not run leaves
// the whole proof to provePrepared after the source's checks, which
// handles it as before. Its calls go to run.log when it is waited for,
// after the source's (the log stays one call after another). nil when
// there is no preparation to prove.
func (r *runner) provePreparedBeside(ctx context.Context, st *openedge.Structure) preparedProof {
	prep := r.prepared
	if prep == nil {
		return nil
	}
	var (
		log     bytes.Buffer
		decided bool
		err     error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err = r.preparedFilesUntouched(prep, st); err != nil {
			decided = true
			return
		}
		h, _, herr := r.holderTo(ctx, schedule.DBTarget, &log)
		if herr != nil || h != holderFree {
			return // provePrepared asks again and acts on the answer
		}
		err = r.preparedCountsUntouched(ctx, prep, &log)
		var nu *NotUntouchedError
		if err != nil && !errors.As(err, &nu) {
			err = nil // a tabanalys that failed: provePrepared runs it again and reports it
			return
		}
		decided = true
	}()
	var logged sync.Once
	return func() (bool, error) {
		<-done
		logged.Do(func() {
			if w := r.logWriter(); w != nil {
				_, _ = w.Write(log.Bytes())
			}
		})
		return decided, err
	}
}
