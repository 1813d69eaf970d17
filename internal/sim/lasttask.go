package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/atomicfile"
)

// dumpLastTaskProcedure is dump_lasttask.p: it writes the master block's
// _MstrBlk-Lasttask, the last transaction id, as one decimal line.
// OpenEdge gives every transaction that changes the database a new id and
// keeps the last in the master block; reading (a dump, a tabanalys) starts
// none, and opening or closing the database (a broker's start or stop,
// which rewrite the master block's open dates and every extent header's)
// changes it neither. oesim keeps no transaction counter: its model of the
// value is a number drawn from everything a change writes and nothing a
// read or an open does: the bytes of DB.db (schema, sequences, users;
// oesim writes no open date into it) and each area header's count of
// changes (store.AreaFile.Changes). Like the real value it differs after
// any committed change and stays the same otherwise; unlike it, it is not
// ordered (oedl only ever compares it for equality), and a write that
// leaves every byte as it was (the same users loaded again) leaves it too,
// where a real transaction would take a new id: the real value refuses
// more resumes, never fewer.
func dumpLastTaskProcedure(p *proc, s *session, param string) int {
	if param == "" {
		return p.fail("oesim.lasttask.param")
	}
	h := sha256.New()
	ctl, err := os.ReadFile(s.paths.Base + ".db")
	if err != nil {
		return p.failErr(err)
	}
	h.Write(ctl)
	for _, a := range s.db.Ctl.Areas {
		if a.Type != 'd' {
			continue
		}
		af, err := s.db.Area(a.Number)
		if err != nil {
			return p.failErr(err)
		}
		segs, gen, err := af.Changes()
		if err != nil {
			return p.failErr(err)
		}
		var b [20]byte
		binary.LittleEndian.PutUint32(b[:], uint32(a.Number))
		binary.LittleEndian.PutUint64(b[4:], uint64(segs))
		binary.LittleEndian.PutUint64(b[12:], gen)
		h.Write(b[:])
	}
	// A positive int64, as the real field's INTEGER/INT64 prints.
	task := binary.LittleEndian.Uint64(h.Sum(nil)) >> 1
	if err := atomicfile.WriteFileNoSync(param, []byte(fmt.Sprintf("%d\n", task))); err != nil {
		return p.failErr(err)
	}
	return exitOK
}

// dumpLastTaskDFProcedure is dump_lasttask_df.p, oedl's preflight's one
// single-user session on the source: dump_lasttask.p's line into
// DIR/source.lasttask, then RUN prodict/dump_df.p ("ALL", DIR/source.df,
// "") in the same session, as the real procedure does. One session, one
// start-up: the two were two in a row before the window's first dump.
func dumpLastTaskDFProcedure(p *proc, s *session, dir string) int {
	if dir == "" {
		return p.fail("oesim.lasttaskdf.param")
	}
	if rc := dumpLastTaskProcedure(p, s, filepath.Join(dir, "source.lasttask")); rc != exitOK {
		return rc
	}
	return writeSchemaDF(p, s, "ALL", filepath.Join(dir, "source.df"))
}
