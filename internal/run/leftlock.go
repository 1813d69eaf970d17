package run

import (
	"context"
	"strings"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/schedule"
)

// refuseLeftLock refuses a source whose DB.lk nobody holds: the broker or
// single-user session that wrote it died without shutting the database
// down (a crash, kill -9, a reboot), so its BI may hold transactions that
// were open. OpenEdge runs crash recovery at the next open of it by a
// broker or a single-user session (Progress KB P102046, "When does crash
// recovery occur?": the (5326)(7161) redo and (7162) undo phases in DB.lg),
// which writes the source's BI and data extents, and the preflight's
// session is such an open. oedl never changes the source's files unasked:
// the DBA starts and shuts down the database himself, reads its log, and
// runs oedl again (safety trial 14). A lock a killed run of this work
// directory left, by a broker of its own on the source, is the resume's
// to handle as before (checkHolder, killedRunServes): that broker only
// read the source.
func (r *runner) refuseLeftLock(ctx context.Context) error {
	c := r.cfg
	db := c.db(schedule.DBSource)
	lk := strings.TrimSuffix(db, ".db") + ".lk"
	infos, err := c.machine(c.atDB(schedule.DBSource).host).fs.Lstat(ctx, lk)
	if err != nil {
		return err
	}
	if _, ok := infos[lk]; !ok || r.servedByUs[schedule.DBSource] {
		return nil
	}
	h, _, err := r.holder(ctx, schedule.DBSource)
	if err != nil || h != holderFree {
		return err // a live holder: checkHolder's to answer
	}
	q := execx.ShellQuote(db)
	return precondition("%s%s is there but nobody holds %s: it was not shut down (a crash, kill -9 or a reboot), and its next open runs OpenEdge's crash recovery, which writes the source's BI and data extents; oedl changes nothing of the source unasked: start and shut it down yourself (proserve %s, then proshut %s -by), read %s.lg for its crash recovery, then run oedl again",
		lk, r.onHost(schedule.DBSource), db, q, q, strings.TrimSuffix(db, ".db"))
}
