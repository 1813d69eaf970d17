package openedge

import (
	"fmt"
	"strconv"
	"strings"
)

// Description is what oedl needs of proutil -C describe: the figures the
// seed's "Watch out!" list says to compare between source and target, and
// what the post phase must restore (after-imaging, replication).
type Description struct {
	BlockSize   int    // database block size, bytes
	BIBlockSize int    // before-image block size, bytes
	BIClusterKB int    // before-image cluster size, KB
	AIBlockSize int    // after-image block size, bytes; 0 when after-imaging is off
	Codepage    string // database code page; "" when the release does not print it (before 12.x)
	Features    []Feature
}

// Feature is one row of the "Database Features" table.
type Feature struct {
	ID     int    // OpenEdge's feature number (1 is OpenEdge Replication)
	Name   string // as printed (translated)
	Active string // the Active column as printed (translated: Yes, Sim, ...)
}

// FeatureReplication is the number of "OpenEdge Replication" in the
// features table (_Database-Feature 1 since 10.1B).
const FeatureReplication = 1

// AI says whether after-imaging is enabled: describe prints its section
// only then.
func (d *Description) AI() bool { return d.AIBlockSize > 0 }

// Has says whether the features table lists id: a feature is listed once
// it has been enabled on the database.
func (d *Description) Has(id int) bool {
	for _, f := range d.Features {
		if f.ID == id {
			return true
		}
	}
	return false
}

// describeGroup is a run of "label : value" lines under a heading.
type describeGroup struct {
	line   int // of the first value
	values []string
}

// ParseDescribe reads proutil -C describe by its layout, never its labels,
// because PROMSGS translates the labels (and the section titles) but not
// the layout:
//
//   - a value line is "label : value" (split at the first " : "; a
//     trailing " :" is an empty value); consecutive value lines form a
//     group, whatever their indentation;
//   - group 1 is the database block: its 3rd value is the block size
//     (Database Name, Version, Block Size, ...);
//   - group 2 is before-imaging: block size (bytes), then the cluster size
//     in 16 KB units;
//   - after-imaging has a group only when it is enabled, placed right
//     after before-imaging; it is told from the backup group that follows
//     in every case by its first value, a block size (digits), where the
//     backup group starts with a date or a "not yet performed" marker;
//   - the group after the backup group, when there is one (12.x: collation
//     and character set), starts with the database code page;
//   - the features table follows a rule of dashes; each row starts with
//     the feature number, the Active column is where the rule's third run
//     of dashes is.
//
// A layout without the database or before-imaging figures is an error
// naming the line; anything else missing is left zero.
func ParseDescribe(out string) (Description, error) {
	var d Description
	var groups []describeGroup
	var rule []colSpan
	prevValue := false
	forEachLine(out, func(n int, line string) bool {
		trimmed := strings.TrimSpace(line)
		if rule != nil {
			if f, ok := featureRow(line, rule); ok {
				d.Features = append(d.Features, f)
			}
			return true
		}
		if isDashRule(trimmed) {
			rule = dashRuns(line)
			return true
		}
		_, value, ok := strings.Cut(trimmed, " : ")
		if !ok {
			_, ok = strings.CutSuffix(trimmed, " :")
		}
		if !ok {
			prevValue = false
			return true
		}
		if !prevValue {
			groups = append(groups, describeGroup{line: n})
		}
		g := &groups[len(groups)-1]
		g.values = append(g.values, strings.TrimSpace(value))
		prevValue = true
		return true
	})
	if len(groups) == 0 || len(groups[0].values) < 3 {
		return d, fmt.Errorf("describe: no database block (want at least 3 \"label : value\" lines, the 3rd the block size)")
	}
	var err error
	if d.BlockSize, err = describeNumber(groups[0], 2, "database block size", maxDescribedBlock); err != nil {
		return d, err
	}
	if len(groups) < 2 || len(groups[1].values) < 2 {
		return d, fmt.Errorf("describe: no before-imaging block after the database block of line %d (want its block size and cluster size)", groups[0].line)
	}
	if d.BIBlockSize, err = describeNumber(groups[1], 0, "before-image block size", maxDescribedBlock); err != nil {
		return d, err
	}
	units, err := describeNumber(groups[1], 1, "before-image cluster size", maxBIClusterUnits)
	if err != nil {
		return d, err
	}
	d.BIClusterKB = units * 16
	rest := groups[2:]
	if len(rest) > 0 && allDigits(rest[0].values[0]) {
		d.AIBlockSize, _ = strconv.Atoi(rest[0].values[0])
		rest = rest[1:]
	}
	if len(rest) > 1 { // rest[0] is the backup group
		d.Codepage = rest[1].values[0]
	}
	return d, nil
}

// The largest figures a describe can hold. OpenEdge's database blocks are 1-8
// KB and its BI blocks at most 16 KB; 64 KB leaves room for what a later
// version may allow while refusing what no database has. The BI cluster is
// printed in 16 KB units and is at most 256 MB (-bi 262128): 16384 units.
// Without the bounds a corrupt describe could overflow the cluster's KB (the
// fuzz test found one) and be compared as a negative size.
const (
	maxDescribedBlock = 64 * 1024
	maxBIClusterUnits = 16384
)

func describeNumber(g describeGroup, i int, what string, max int) (int, error) {
	v := g.values[i]
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("describe line %d: %s %q is not a positive number", g.line+i, what, v)
	}
	if n > max {
		return 0, fmt.Errorf("describe line %d: %s %d is over %d, more than any OpenEdge database has", g.line+i, what, n, max)
	}
	return n, nil
}

// colSpan is a column of the features table: [start, end) in bytes.
type colSpan struct{ start, end int }

func isDashRule(s string) bool {
	return strings.Count(s, "-") >= 4 && strings.Trim(s, "- ") == "" && strings.Contains(s, "  ")
}

func dashRuns(line string) []colSpan {
	var spans []colSpan
	for i := 0; i < len(line); {
		if line[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '-' {
			j++
		}
		spans = append(spans, colSpan{i, j})
		i = j
	}
	return spans
}

// featureRow reads "ID  Name  Active  Details": the number is the first
// word; the Active column is the word at the rule's third run of dashes.
// Rows are not aligned to the rule exactly (the documentation's sample
// indents the rule one more than the rows), so the word is the one the
// run's first column falls in, or the next one.
func featureRow(line string, rule []colSpan) (Feature, bool) {
	fields := strings.Fields(line)
	if len(fields) < 2 || !allDigits(fields[0]) {
		return Feature{}, false
	}
	id, _ := strconv.Atoi(fields[0])
	f := Feature{ID: id}
	nameStart := strings.Index(line, fields[0]) + len(fields[0])
	if len(rule) < 3 || rule[2].start >= len(line) || rule[2].start <= nameStart {
		f.Name = strings.TrimSpace(line[nameStart:])
		return f, true
	}
	at := rule[2].start
	for at > nameStart && line[at-1] != ' ' {
		at-- // back to the start of the word the column falls in
	}
	f.Name = strings.TrimSpace(line[nameStart:at])
	if fs := strings.Fields(line[at:]); len(fs) > 0 {
		f.Active = fs[0]
	}
	return f, true
}
