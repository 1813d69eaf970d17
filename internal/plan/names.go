package plan

import (
	"fmt"
	"strings"
)

// maxAreaName is the longest area name written. OpenEdge keeps area names
// in _Area._Area-name, displayed as x(32); staying within 32 keeps every
// name whole in promon and in the reports.
const maxAreaName = 32

// areaNamer hands out readable area names, unique without regard to case
// (OpenEdge compares area names case-insensitively) and never "Schema Area".
type areaNamer struct {
	used map[string]bool
}

func newAreaNamer() *areaNamer {
	return &areaNamer{used: map[string]bool{strings.ToLower(schemaAreaName): true}}
}

const schemaAreaName = "Schema Area"

// name returns base+suffix made safe, shortened to fit and de-duplicated
// with _2, _3, ... when taken.
func (n *areaNamer) name(base, suffix string) string {
	base = sanitize(base)
	for i := 1; ; i++ {
		tag := suffix
		if i > 1 {
			tag = fmt.Sprintf("_%d%s", i, suffix)
		}
		b := base
		if len(b)+len(tag) > maxAreaName {
			b = strings.TrimRight(b[:maxAreaName-len(tag)], "_")
		}
		cand := b + tag
		if !n.used[strings.ToLower(cand)] {
			n.used[strings.ToLower(cand)] = true
			return cand
		}
	}
}

// sanitize maps a table name to letters, digits and underscores. Dashes
// (cust-order), dots, '#', '$', '%', '&' and non-ASCII letters are legal in
// OpenEdge table names but awkward in a shell, in a .st, in file names of
// logs; an area name made of [A-Za-z0-9_] needs no quoting anywhere.
func sanitize(s string) string {
	var b strings.Builder
	lastUnderscore := false
	for _, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			r = '_'
		}
		if r == '_' && lastUnderscore {
			continue
		}
		lastUnderscore = r == '_'
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "table"
	}
	return out
}
