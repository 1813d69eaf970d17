package sim

import (
	"strings"

	"github.com/oedl/oedl/internal/sim/store"
)

// convcharQualifier: convchar convert CODEPAGE, the way a DBA changes a
// database's code page (single-user). oesim sets the code page describe
// prints and prodict/dump_df.p writes; its records are not re-encoded
// (the generated data is ASCII). analyze and charscan are not simulated.
func convcharQualifier(p *proc, dbArg string, args []string) int {
	if len(args) != 2 || !strings.EqualFold(args[0], "convert") || args[1] == "" {
		return p.usage("usage: proutil db-name -C convchar convert codepage (analyze and charscan are not simulated by oesim)")
	}
	p.banner()
	s, rc := p.open(dbArg, singleOnly)
	if rc != 0 {
		return rc
	}
	defer s.close()
	if err := s.db.Update(func(c *store.Control) error { c.Codepage = args[1]; return nil }); err != nil {
		return p.failErr(err)
	}
	p.msg("oesim.convchar.done", args[1])
	return exitOK
}
