package run

import (
	"context"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/schedule"
)

// refuseLeftLock refuses a source whose DB.lk nobody holds, before the
// preflight's session opens it and so runs OpenEdge's crash recovery on it
// (openedge.LeftLockRefusal). oedl never changes the source's files unasked:
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
	return precondition("%s", openedge.LeftLockRefusal(db, r.cfg.atDB(schedule.DBSource).host))
}
