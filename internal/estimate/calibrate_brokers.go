package estimate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
)

// servedScratchDir names the directories whose database a calibration
// serves (scratchPath): scratch0, scratch1, ...
var servedScratchDir = regexp.MustCompile(`^scratch[0-9]+$`)

// stopEarlierBrokers shuts down the brokers an earlier calibration left on
// its scratch databases, before this one clears WORK/calibrate. A
// calibration killed (kill -9, a lost session) never runs its deferred
// proshut: its brokers go on serving databases whose files the next
// calibration removes, holding their memory (on OpenEdge, shared memory and
// semaphores the machine's production brokers draw on) until the machine
// restarts, and nothing would ever shut them down (safety trial 12). A
// database there is the calibration's own (CheckScratch proved the
// directory holds nothing else), so its broker is stopped with proshut
// -by, named on the log; one that does not stop refuses the calibration
// (ErrPrecondition), nothing cleared.
func (c *calibrator) stopEarlierBrokers(ctx context.Context) error {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil // no earlier calibration: nothing served
	}
	for _, e := range entries {
		if !e.IsDir() || !servedScratchDir.MatchString(e.Name()) {
			continue
		}
		db := filepath.Join(c.dir, e.Name(), "scratch")
		if _, err := os.Stat(db + ".db"); err != nil {
			continue
		}
		env := []string{"DLC=" + c.cfg.DLC}
		res, _ := c.cfg.Runner.Run(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: openedge.HolderArgs(db), Env: env})
		if use, err := openedge.HolderState(res.ExitCode); err != nil || use != openedge.DBMultiUser {
			continue
		}
		c.logf("shutting down the broker an earlier calibration left on %s (its scratch database, about to be cleared)", db)
		if res, err := c.cfg.Runner.Run(ctx, execx.Cmd{Path: c.bin(openedge.ToolProshut), Args: openedge.ProshutArgs(db), Env: env}); err != nil {
			return fmt.Errorf("%w: the broker an earlier calibration left on %s did not shut down (%v: %s): shut it down with proshut %s -by, then calibrate again",
				ErrPrecondition, db, err, tail(res.Output), execx.ShellQuote(db))
		}
	}
	return nil
}
