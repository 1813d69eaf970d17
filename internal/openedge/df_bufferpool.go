package openedge

import "strings"

// AlternatePoolObject is a table, index or LOB field a .df assigns to the
// Alternate Buffer Pool (BUFFER-POOL "Alternate").
type AlternatePoolObject struct {
	Object string // TABLE, INDEX or FIELD
	Table  string // the table, or the table of the index or field
	Name   string // the index or field; "" for a table
	Line   int
}

// AlternatePool lists the objects the file assigns to the Alternate Buffer
// Pool, in file order: the Data Dictionary writes each assignment as an
// UPDATE TABLE / INDEX / FIELD statement with BUFFER-POOL "Alternate" after
// the ADD statements (testdata/df/multitenant_bufferpool_11.7.df); an ADD
// statement carrying the option is read too. Area-level assignments
// (proutil -C enableB2 on an area) are not in a .df.
func (d *DF) AlternatePool() []AlternatePoolObject {
	var out []AlternatePoolObject
	for _, s := range d.steps {
		switch {
		case s.Change != nil:
			c := s.Change
			if c.Verb != "UPDATE" || !isAlternate(c.Options["BUFFER-POOL"]) {
				continue
			}
			switch c.Object {
			case "TABLE":
				out = append(out, AlternatePoolObject{Object: "TABLE", Table: c.Name, Line: c.Line})
			case "INDEX", "FIELD":
				out = append(out, AlternatePoolObject{Object: c.Object, Table: c.Table, Name: c.Name, Line: c.Line})
			}
		case s.Table != nil && d.addsAlternate(s.Table):
			out = append(out, AlternatePoolObject{Object: "TABLE", Table: s.Table.Name, Line: s.Table.Line})
		case s.Index != nil && d.addsAlternate(s.Index):
			out = append(out, AlternatePoolObject{Object: "INDEX", Table: s.Index.Table, Name: s.Index.Name, Line: s.Index.Line})
		case s.Field != nil && d.addsAlternate(s.Field):
			out = append(out, AlternatePoolObject{Object: "FIELD", Table: s.Field.Table, Name: s.Field.Name, Line: s.Field.Line})
		}
	}
	return out
}

// addsAlternate tells an ADD statement with a BUFFER-POOL "Alternate" line.
func (d *DF) addsAlternate(obj any) bool {
	for _, l := range d.OptionLines(obj) {
		w := strings.Fields(l)
		if len(w) >= 2 && strings.EqualFold(w[0], "BUFFER-POOL") && isAlternate(w[1]) {
			return true
		}
	}
	return false
}

func isAlternate(v string) bool { return strings.EqualFold(strings.Trim(v, `"`), "Alternate") }
