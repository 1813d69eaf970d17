package sim

import (
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/fault"
	"github.com/oedl/oedl/internal/sim/store"
)

// dump_security.p -param DIR writes the database's users, SQL grants and
// views into DIR as _user.d, _sysauth.d and _sysviews.d (the contents
// layout, openedge.WriteSecurity), as the ABL procedure oedl ships does.
func dumpSecurityProcedure(p *proc, s *session, param string) int {
	if param == "" {
		return p.fail("oesim.security.param", "dump_security.p")
	}
	ldb := filepath.Base(s.paths.Base)
	if err := openedge.WriteSecurity(param, ldb, s.db.Ctl.Security, time.Now()); err != nil {
		return p.failErr(err)
	}
	return exitOK
}

// load_security.p -param DIR adds the rows of DIR's three files to the
// database. A row whose key is there already (a user id, a grantee and
// object, a view name) is replaced, not refused: the real procedure FINDs
// before it CREATEs, so that a load run again after a crash ends the same.
//
// Fault injection: truncate-after=N on table _User, _sysauth or _sysviews
// (`_progres:_User:truncate-after=1`) stores only that file's first N rows
// and still succeeds, the silent loss oedl's verify must name; exit, crash,
// hang and delay on _User strike before anything is loaded.
func loadSecurityProcedure(p *proc, s *session, param string) int {
	if param == "" {
		return p.fail("oesim.security.param", "load_security.p")
	}
	if rc := applyEarlyFault(p, p.env.fault(p, "", "_User")); rc >= 0 {
		return rc
	}
	in, err := openedge.ReadSecurity(param)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return p.fail("43", pe.Path, 2)
		}
		return p.failErr(err)
	}
	in.Users = keepFirst(p, "_User", in.Users)
	in.Grants = keepFirst(p, "_sysauth", in.Grants)
	in.Views = keepFirst(p, "_sysviews", in.Views)
	if err := p.takeSchema(s, param); err != nil {
		return p.failErr(err)
	}
	err = s.db.Update(func(c *store.Control) error {
		mergeSecurity(&c.Security, in)
		return nil
	})
	if err != nil {
		return p.failErr(err)
	}
	return exitOK
}

func keepFirst[T any](p *proc, table string, rows []T) []T {
	fp := p.env.fault(p, "", table)
	if fp.is(fault.TruncateAfter) && int64(len(rows)) > fp.n() && fp.strike() {
		return rows[:fp.n()]
	}
	return rows
}

// mergeSecurity adds in's rows to have, replacing rows of the same key.
func mergeSecurity(have *openedge.Security, in openedge.Security) {
	have.Users = upsert(have.Users, in.Users, func(u openedge.User) string { return u.ID })
	have.Grants = upsert(have.Grants, in.Grants, openedge.Grant.Key)
	have.Views = upsert(have.Views, in.Views, openedge.View.Key)
	have.Sort()
}

func upsert[T any](have, in []T, key func(T) string) []T {
	at := map[string]int{}
	for i, h := range have {
		at[key(h)] = i
	}
	for _, r := range in {
		if i, ok := at[key(r)]; ok {
			have[i] = r
			continue
		}
		at[key(r)] = len(have)
		have = append(have, r)
	}
	return have
}
