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
// load refuses a table whose definition differs. Tables of owners other
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
			}
		}
	}
	return errors.Join(errs...)
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
