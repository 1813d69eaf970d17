package openedge

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// CheckSchema checks a .df that builds a whole schema into an empty
// database (the plan's target.df, loaded by prodict/load_df.p right after
// prostrct create) against the structure it is loaded into, and returns
// every problem as "file:line: problem", joined (nil when there is none):
//
//   - every statement is one the Data Dictionary knows (ADD FEILD is not);
//   - every ADD FIELD and ADD INDEX names a table the file adds (OF "x");
//   - every INDEX-FIELD is a field of its table;
//   - every table AREA, index AREA and LOB-AREA is a data area of st (or
//     the Schema Area, which every database has);
//   - no RENAME or DROP (the schema moved is the source's, as dumped);
//   - no ENCRYPTION YES unless st has an Encryption Policy Area.
//
// The load would stop at the first of these, after the outage began;
// finding them all before it is the point.
func CheckSchema(d *DF, st *Structure) error {
	var errs []lineError
	add := func(line int, format string, a ...any) {
		errs = append(errs, lineError{line, fmt.Errorf("%s:%d: %s", d.name, line, fmt.Sprintf(format, a...))})
	}
	for _, s := range d.stmts {
		if s.kind != dfOther {
			continue
		}
		if head, ok := unknownStatement(s); !ok {
			add(s.lines[0].line, "%q is not a .df statement (ADD, UPDATE, RENAME or DROP, then TABLE, FIELD, INDEX, SEQUENCE, DATABASE or CONSTRAINT)", head)
		}
	}
	for _, f := range d.orphanFields {
		add(f.Line, "field %q is added OF %q, a table this file does not add", f.Name, f.Table)
	}
	for _, i := range d.orphanIndexes {
		add(i.Line, "index %q is added ON %q, a table this file does not add", i.Name, i.Table)
	}
	areas := map[string]bool{foldName(SchemaAreaName): true}
	var names []string
	if st != nil {
		for _, a := range st.Areas {
			if a.Type == AreaData {
				areas[foldName(a.Name)] = true
				names = append(names, a.Name)
			}
		}
	}
	sort.Strings(names)
	area := func(line int, what, name string) {
		if st != nil && name != "" && !areas[foldName(name)] {
			add(line, "%s names area %q, which %s does not have (its data areas: %s)", what, name, st.Source, strings.Join(names, ", "))
		}
	}
	for _, t := range d.tables {
		area(t.Line, fmt.Sprintf("table %q", t.Name), t.Area)
		for _, f := range t.Fields {
			area(f.Line, fmt.Sprintf("LOB field %q of %q", f.Name, t.Name), f.LobArea)
		}
		for _, i := range t.Indexes {
			area(i.Line, fmt.Sprintf("index %q of %q", i.Name, t.Name), i.Area)
			for _, f := range i.Fields {
				if t.Field(f.Name) == nil {
					add(i.Line, "index %q of %q is on field %q, which the table does not have", i.Name, t.Name, f.Name)
				}
			}
		}
	}
	for _, c := range d.changes {
		if c.Verb == "RENAME" || c.Verb == "DROP" {
			add(c.Line, "%s changes the schema this file builds: a full dump (prodict/dump_df.p) has no RENAME or DROP, so this is an incremental .df or has one appended, and the target would not have the source's schema (the dump's tables and fields); give the source's full .df, and change the schema before or after the migration", c.head())
		}
	}
	where := "oedl's target"
	if st != nil {
		where = st.Source
	}
	if !hasEncryptionArea(st) {
		for _, c := range d.changes {
			if v, ok := c.Options["ENCRYPTION"]; ok && (strings.EqualFold(v, "yes") || strings.EqualFold(v, "true")) {
				add(c.Line, "%s sets ENCRYPTION YES: %s has no Encryption Policy Area, and encryption cannot be set on a database without it (oedl does not set up transparent data encryption: drop the ENCRYPTION statements from the .df, then encrypt the target after the load)", c.head(), where)
			}
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].line < errs[j].line })
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e.err
	}
	return errors.Join(out...)
}

// unknownStatement returns the head of a statement the typed views did not
// take, and whether the Data Dictionary's loader knows it (UPDATE TABLE,
// DROP INDEX, ADD DATABASE, RENAME FILE, ...): its action and object words,
// with their synonyms (dfVerb, dfObject).
func unknownStatement(s *dfStmt) (string, bool) {
	raw := s.lines[0].raw
	toks, err := lexOne(raw, nil)
	if err != nil || len(toks) < 2 {
		return strings.TrimSpace(string(raw)), false
	}
	h := dfHead{raw: raw, toks: toks, line: s.lines[0].line}
	words := 2
	obj, at := dfObject(h, 1)
	if obj != "" {
		words = at
	}
	head := make([]string, 0, words)
	for i := 0; i < words && i < len(toks); i++ {
		if !toks[i].quoted {
			head = append(head, strings.ToUpper(toks[i].text(raw)))
		}
	}
	return strings.Join(head, " "), dfVerb(h) != "" && obj != ""
}

// hasEncryptionArea tells whether the structure has the Encryption Policy
// Area that transparent data encryption needs (a full dump of an
// encrypted database sets ENCRYPTION YES on its objects with UPDATE
// statements, prodict/dump/_dmpdefs.p).
func hasEncryptionArea(st *Structure) bool {
	if st == nil {
		return false
	}
	for _, a := range st.Areas {
		if a.Type == AreaEncryption {
			return true
		}
	}
	return false
}
