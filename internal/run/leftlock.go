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
// runs oedl again (safety trial 14). A resume is not asked: the lock may
// be its killed run's own (its broker on the source, or a single-user dump
// that died with it: oesim's leaves DB.lk as a killed proutil does), which
// only read the source; the holder check handles it as before, and a
// source changed since the freeze is refused by its transaction id.
func (r *runner) refuseLeftLock(ctx context.Context) error {
	c := r.cfg
	if c.Resume {
		return nil
	}
	db := c.db(schedule.DBSource)
	lk := strings.TrimSuffix(db, ".db") + ".lk"
	infos, err := c.machine(c.atDB(schedule.DBSource).host).fs.Lstat(ctx, lk)
	if err != nil {
		return err
	}
	if _, ok := infos[lk]; !ok {
		return nil
	}
	h, _, err := r.holder(ctx, schedule.DBSource)
	if err != nil || h != holderFree {
		return err // a live holder: checkHolder's to answer
	}
	return precondition("%s", openedge.LeftLockRefusal(db, r.cfg.atDB(schedule.DBSource).host))
}
