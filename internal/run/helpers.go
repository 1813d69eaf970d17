package run

import (
	"bytes"
	"context"
	"os"
	"sync"

	"github.com/oedl/oedl/internal/schedule"
)

// runHelpers starts the broker's helpers (probiw, proapw: step.speedOnly)
// beside each other. Each is a client of the broker that starts its
// process and returns, and none needs another (Progress documents no order
// among them, only that the broker runs first), so one after another they
// were start-ups on the window's chain: an unprepared window's loads wait
// for the target's broker and its helpers, three of them 0.47 s at 150 ms
// a start-up on oesim (docs/benchmarks/run.md, "i12-window"). Each writes
// its call into a buffer of its own, copied into the job's log in the
// steps' order, so the log reads as before. A helper that fails is a
// warning (runStep); only what stops the run (a cancelled context) is
// returned.
func (e *Executor) runHelpers(ctx context.Context, j *schedule.Job, steps []step, log *os.File) error {
	outs := make([]bytes.Buffer, len(steps))
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	for i, s := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.runStep(ctx, j.ID, s, e.cfg.timeout(j), &outs[i], nil)
		}()
	}
	wg.Wait()
	for i := range outs {
		if log == nil {
			break
		}
		if _, err := log.Write(outs[i].Bytes()); err != nil {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
