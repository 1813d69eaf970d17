package sim

import (
	"os"

	"github.com/oedl/oedl/internal/openedge"

	"github.com/oedl/oedl/internal/sim/fault"
	"github.com/oedl/oedl/internal/sim/store"
)

// diskRoom is a diskfull-after fault on a utility that writes a database
// without proutil's loads: prostrct (the fixed extents it formats),
// procopy (the blocks it copies) and _progres (what a load procedure
// writes to the schema). It holds the bytes the call may still write; the
// write that passes them gets OpenEdge's (6091), "bkioWrite:Insufficient
// disk space during write", naming the extent, as a load's extent write
// does (store.NoRoomError): those utilities write through the same block
// I/O. The rule's firings are counted as a load's are: once spent, the
// disk has room again.
type diskRoom struct {
	left int64
	fp   *faultPlan
}

// roomFor is the call's diskRoom when its fault rule is diskfull-after,
// else nil.
func roomFor(fp *faultPlan) *diskRoom {
	if !fp.is(fault.DiskFullAfter) {
		return nil
	}
	return &diskRoom{left: fp.n(), fp: fp}
}

// full reports whether n more bytes pass the call's room (using one
// firing of the rule).
func (r *diskRoom) full(n int64) bool {
	if r == nil || r.left < 0 {
		return false
	}
	if n <= r.left {
		r.left -= n
		return false
	}
	if !r.fp.strike() {
		r.left = -1
		return false
	}
	r.left = 0
	return true
}

// Take is store.Room: n bytes of f at offset.
func (r *diskRoom) Take(f *os.File, offset, n int64) error {
	if r.full(n) {
		return &store.NoRoomError{FD: f.Fd(), Len: n, Offset: offset, Path: f.Name()}
	}
	return nil
}

// takeArea is n bytes written at the end of area af.
func (r *diskRoom) takeArea(af *store.AreaFile, n int64) error {
	if r.full(n) {
		return af.NoRoom(n)
	}
	return nil
}

// storeRoom is the call's room as store.Create and store.Format take it:
// nil (the filesystem's own) without a diskfull-after fault.
func (p *proc) storeRoom() store.Room {
	if p.room == nil {
		return nil
	}
	return p.room
}

// takeSchema is a _progres load procedure's writes against the call's
// room: its input's bytes (a file, or a directory's files), written to
// the Schema Area, where OpenEdge keeps the schema and the security rows.
func (p *proc) takeSchema(s *session, input string) error {
	if p.room == nil {
		return nil
	}
	af, err := s.db.Area(openedge.SchemaAreaNum)
	if err != nil {
		return err
	}
	return p.room.takeArea(af, inputBytes(input))
}

// inputBytes is the size of a file, or of a directory's files.
func inputBytes(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !st.IsDir() {
		return st.Size()
	}
	var n int64
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}
