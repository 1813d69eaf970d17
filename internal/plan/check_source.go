package plan

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// CheckSource holds a plan against the database it is about to read, from
// that database's schema as prodict/dump_df.p writes it (source): every
// table of the plan is one the source has and every table of the source is
// in the plan (a plan made from another database, or before the schema
// changed, fails here instead of in the dumps), and target (the plan's
// target.df) defines every table with the source's fields, since a binary
// load refuses a table whose definition differs, indexes included (the
// table's CRC covers them), and every sequence of the source, whose value
// the run loads. Tables of owners other
// than PUB are not in a .df and are not compared. It returns every
// disagreement, joined; the first names the database.
func CheckSource(p *Plan, target, source *openedge.DF, db string) error {
	var errs []error
	var missing, extra []string
	inPlan := map[string]bool{}
	for _, t := range p.Tables {
		if t.Owner != "" && !strings.EqualFold(t.Owner, "PUB") {
			continue
		}
		inPlan[strings.ToLower(t.Name)] = true
		if source.Table(t.Name) == nil {
			missing = append(missing, t.Table)
		}
	}
	for _, t := range source.Tables() {
		if !inPlan[strings.ToLower(t.Name)] {
			extra = append(extra, "PUB."+t.Name)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		msg := fmt.Sprintf("%s was not made from the source %s (or its schema changed since): ", FilePlan, db)
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, fmt.Sprintf("%d of its %d tables are not in the source (%s)", len(missing), len(p.Tables), listSome(missing)))
		}
		if len(extra) > 0 {
			parts = append(parts, fmt.Sprintf("the source has %d tables the plan does not place (%s)", len(extra), listSome(extra)))
		}
		errs = append(errs, errors.New(msg+strings.Join(parts, "; ")+": make the plan again from this source (oedl plan --source)"))
	}
	if target != nil {
		for _, t := range target.Tables() {
			if s := source.Table(t.Name); s != nil {
				if d := fieldDiff(t, s); d != "" {
					errs = append(errs, fmt.Errorf("%s:%d: table %q is not defined as in the source %s: %s (a binary load needs the same fields)",
						target.Name(), t.Line, t.Name, db, d))
				}
				if d := indexDiff(t, s); d != "" {
					errs = append(errs, fmt.Errorf("%s:%d: table %q is not indexed as in the source %s: %s (the table's CRC covers its indexes: a binary load of its dump would be refused, and the target would lack what the source has): make the plan again from this source (oedl plan --df with a new dump of its definitions)",
						target.Name(), t.Line, t.Name, db, d))
				}
			}
		}
		if missing := missingSequences(target, source); len(missing) > 0 {
			errs = append(errs, fmt.Errorf("%s: the source %s has sequences it does not define (%s): their values could not be loaded; make the plan again from this source (oedl plan --df with a new dump of its definitions)",
				target.Name(), db, listSome(missing)))
		}
	}
	return errors.Join(errs...)
}

// indexDiff says how the indexes of t differ from those of s in what a
// table's schema CRC covers (name, UNIQUE, PRIMARY, WORD, the fields in
// order and their direction), "" when they do not. The area and INACTIVE
// are left out: the plan moves indexes, and idxbuild activates them.
func indexDiff(t, s *openedge.DFTable) string {
	var parts []string
	for _, ix := range t.Indexes {
		si := s.Index(ix.Name)
		switch {
		case si == nil:
			parts = append(parts, fmt.Sprintf("index %q is not in the source", ix.Name))
		case indexShape(ix) != indexShape(si):
			parts = append(parts, fmt.Sprintf("index %q is %s here, %s in the source", ix.Name, indexShape(ix), indexShape(si)))
		}
	}
	for _, si := range s.Indexes {
		if t.Index(si.Name) == nil {
			parts = append(parts, fmt.Sprintf("the source's index %q %s is missing", si.Name, indexShape(si)))
		}
	}
	return listSome(parts)
}

// indexShape writes what of an index its table's CRC covers, as a DBA
// reads it: "unique primary (CustNum, Name desc)".
func indexShape(ix *openedge.DFIndex) string {
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{ix.Unique, "unique"}, {ix.Primary, "primary"}, {ix.Word, "word"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	cols := make([]string, len(ix.Fields))
	for i, f := range ix.Fields {
		cols[i] = strings.ToLower(f.Name)
		if f.Descending {
			cols[i] += " desc"
		}
	}
	return strings.TrimSpace(strings.Join(flags, " ") + " (" + strings.Join(cols, ", ") + ")")
}

// missingSequences are the sequences of source that target does not define.
// One target defines and the source has not is left alone: nothing of the
// source is lost, and the DBA may add it on purpose.
func missingSequences(target, source *openedge.DF) []string {
	have := map[string]bool{}
	for _, s := range target.Sequences() {
		have[strings.ToLower(s.Name)] = true
	}
	var missing []string
	for _, s := range source.Sequences() {
		if !have[strings.ToLower(s.Name)] {
			missing = append(missing, s.Name)
		}
	}
	return missing
}

// fieldDiff says how the fields of t differ from those of s (name, data
// type, extent), "" when they do not.
func fieldDiff(t, s *openedge.DFTable) string {
	var parts []string
	for _, f := range t.Fields {
		sf := s.Field(f.Name)
		switch {
		case sf == nil:
			parts = append(parts, fmt.Sprintf("field %q is not in the source", f.Name))
		case !strings.EqualFold(f.Type, sf.Type) || f.Extent != sf.Extent:
			parts = append(parts, fmt.Sprintf("field %q is %s here, %s in the source", f.Name, fieldType(f), fieldType(sf)))
		}
	}
	for _, sf := range s.Fields {
		if t.Field(sf.Name) == nil {
			parts = append(parts, fmt.Sprintf("the source's field %q is missing", sf.Name))
		}
	}
	return listSome(parts)
}

func fieldType(f *openedge.DFField) string {
	if f.Extent > 0 {
		return fmt.Sprintf("%s extent %d", strings.ToLower(f.Type), f.Extent)
	}
	return strings.ToLower(f.Type)
}

// listSome joins the first few of a list, sorted, and says how many more.
func listSome(items []string) string {
	items = append([]string(nil), items...)
	sort.Strings(items)
	const show = 5
	if len(items) <= show {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:show], ", "), len(items)-show)
}
