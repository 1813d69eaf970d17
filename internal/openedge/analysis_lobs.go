package openedge

import (
	"strconv"
	"strings"
)

// LOBStat is one row of a LOB SUMMARY (11.6 on, KB 000029044): one blob or
// clob field of a table, how many LOBs it holds and their bytes. LOB data
// is often most of a table's bytes and is not in its record Size.
type LOBStat struct {
	Area    string // the LOB area, from "LOB SUMMARY FOR AREA name: N"
	AreaNum int
	Owner   string
	Table   string
	Field   string // without the ":object" suffix
	// Tenancy is the text after "LOB SUMMARY FOR " of a tenant or group
	// heading; "" for the shared tables.
	Tenancy string `json:",omitempty"`
	LOBs    int64
	Bytes   int64 // the Size column converted to bytes
	MaxLOB  int64 // the Max column: the largest LOB
}

// lobState is where the parser is in a LOB SUMMARY.
type lobState struct {
	area         reportAreaKey
	tenancy      string
	owner, table string
	pendingField string // a field name wrapped alone on its line
}

// lobHeading reads a "LOB SUMMARY ..." title: "FOR AREA name: N" (the name
// unquoted in the releases seen, quoted accepted), "FOR SHARED TABLES:" or
// a tenant or group heading.
func (p *analysisParser) lobHeading(h string) error {
	p.inLOB = true
	p.lob.owner, p.lob.table, p.lob.pendingField = "", "", ""
	rest, ok := strings.CutPrefix(h, "LOB SUMMARY FOR ")
	switch {
	case !ok:
		return nil // the section's title
	case strings.HasPrefix(rest, "AREA "):
		k, ok := parseLOBAreaKey(strings.TrimSpace(rest[len("AREA "):]))
		if !ok {
			return p.errorf("malformed area heading %q (want AREA name: number)", h)
		}
		p.lob.area, p.lob.tenancy = k, ""
	case strings.HasPrefix(rest, "SHARED TABLES"):
		p.lob.tenancy = ""
	default:
		p.lob.tenancy = strings.TrimSuffix(rest, ":")
	}
	return nil
}

func parseLOBAreaKey(s string) (reportAreaKey, bool) {
	if strings.HasPrefix(s, `"`) {
		return parseAreaKey(s)
	}
	colon := strings.LastIndexByte(s, ':')
	if colon <= 0 {
		return reportAreaKey{}, false
	}
	num, err := strconv.Atoi(strings.TrimSpace(s[colon+1:]))
	if err != nil || num < 0 {
		return reportAreaKey{}, false
	}
	return reportAreaKey{name: strings.TrimSpace(s[:colon]), num: num}, true
}

// lobLine reads a line of a LOB SUMMARY: a table line ("PUB.Invoice:6"),
// a field row ("InvBlob1:17  147  20.3M  1.0B  976.6K  141.0K", indented
// or not), a field name alone with its numbers on the next line, or
// something else (column headers, dashes), which is skipped.
func (p *analysisParser) lobLine(text string) error {
	f := p.split(text)
	switch {
	case len(f) == 1 && isName(f[0]) && p.lob.pendingField == "" && strings.IndexByte(f[0], '.') > 0:
		p.lob.owner, p.lob.table = splitOwner(objectName(f[0]))
	case len(f) == 1 && isName(f[0]) && p.lob.table != "":
		p.lob.pendingField = objectName(f[0])
	case len(f) == 6 && isName(f[0]) && isNumberField(f[1]):
		return p.lobRow(objectName(f[0]), f[1:])
	case len(f) == 5 && isNumberField(f[0]) && p.lob.pendingField != "":
		name := p.lob.pendingField
		p.lob.pendingField = ""
		return p.lobRow(name, f)
	}
	return nil
}

// objectName drops the ":object number" suffix of a LOB table or field.
func objectName(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 && allDigits(s[i+1:]) {
		return s[:i]
	}
	return s
}

// lobRow adds a field's row: LOBs, Size, Min, Max, Mean.
func (p *analysisParser) lobRow(field string, f []string) error {
	if p.lob.table == "" {
		return p.errorf("LOB row %s before its table line", field)
	}
	n := numberReader{p: p, table: p.lob.owner + "." + p.lob.table, row: field}
	s := LOBStat{Area: p.lob.area.name, AreaNum: p.lob.area.num, Owner: p.lob.owner, Table: p.lob.table, Field: field,
		Tenancy: p.lob.tenancy, LOBs: n.int64("LOBs", f[0]), Bytes: n.size("Size", f[1])}
	n.size("Min", f[2])
	s.MaxLOB = n.size("Max", f[3])
	n.size("Mean", f[4])
	if n.err != nil {
		return n.err
	}
	p.a.LOBs = append(p.a.LOBs, s)
	return nil
}
