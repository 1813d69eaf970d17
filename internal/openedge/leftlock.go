package openedge

import (
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/execx"
)

// LeftLockRefusal says why a database whose DB.lk nobody holds is not
// opened, and what the DBA does first: the broker or single-user session
// that wrote the lock died without shutting the database down (a crash,
// kill -9, a reboot), and OpenEdge runs crash recovery at the next open by
// a broker or a single-user session (Progress KB P102046, "When does crash
// recovery occur?": the (5326)(7161) redo and (7162) undo phases in DB.lg),
// which writes the database's BI and data extents. host is "" for this
// machine (safety trial 14).
func LeftLockRefusal(db, host string) string {
	db = strings.TrimSuffix(db, ".db")
	on := ""
	if host != "" {
		on = " on " + host
	}
	q := execx.ShellQuote(db)
	return fmt.Sprintf("%s.lk%s is there but nobody holds %s: it was not shut down (a crash, kill -9 or a reboot), and its next open runs OpenEdge's crash recovery, which writes the database's BI and data extents; oedl changes nothing of the source unasked: start and shut it down yourself (proserve %s, then proshut %s -by), read %s.lg for its crash recovery, then run oedl again",
		db, on, db, q, q, db)
}
