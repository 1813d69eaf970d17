package gen

import (
	"strings"
)

// Archetypes shape a QAD-like table from the suffix of its name, the way
// QAD's own tables look: every index starts with the domain, masters are
// keyed by a code, details by header number and line, histories by a
// transaction number, cross-references by part + site + date, control
// tables hold one record and work files a user's scratch rows.
type archetype uint8

const (
	archMstr archetype = iota
	archDet
	archHist
	archCtrl
	archWkfl
	archXref
)

func archetypeOf(name string) archetype {
	switch {
	case strings.HasSuffix(name, "_det"), strings.HasSuffix(name, "_route"):
		return archDet
	case strings.HasSuffix(name, "_hist"):
		return archHist
	case strings.HasSuffix(name, "_ctrl"):
		return archCtrl
	case strings.HasSuffix(name, "_wkfl"):
		return archWkfl
	case strings.HasSuffix(name, "_xref"), strings.HasSuffix(name, "_ref"), strings.HasSuffix(name, "_rate"):
		return archXref
	}
	return archMstr
}

// prefixOf is the field prefix QAD derives from a table name: the part
// before the first underscore or dash ("sod" for sod_det).
func prefixOf(name string) string {
	if i := strings.IndexAny(name, "_-"); i > 0 {
		return name[:i]
	}
	return name
}

var (
	sites    = []string{"1000", "2000", "3000", "4100", "4200", "5000", "6000", "7000"}
	users    = []string{"mfg", "admin", "jsmith", "mbrown", "kwong", "batch", "edi", "rlopez", "tnguyen", "apatel"}
	ums      = []string{"EA", "KG", "LB", "M", "BX", "CS", "L", "FT", "PK", "ROL"}
	statuses = []string{"", "C", "X", "H", "P", "R"}
	trTypes  = []string{"ISS-SO", "RCT-PO", "ISS-WO", "RCT-WO", "ISS-TR", "RCT-TR", "CYC-CNT", "TAG-CNT", "ISS-UNP", "RCT-UNP", "ISS-PRV", "ORD-SO"}
	acctList = []string{"1000", "1200", "1300", "1410", "2000", "2100", "3000", "4000", "4100", "5000", "5100", "6000", "6100", "6200", "7000", "8000"}
	locs     = []string{"STOCK", "RCV", "SHIP", "QC", "MRB", "WIP", "A-01", "A-02", "B-01", "B-02", "C-10", "FG"}
	types    = []string{"", "A", "B", "M", "P", "S", "T"}
)

// estimate is the expected encoded size of a column, used to decide which
// optional columns fit in a record of the target mean size.
func (c col) estimate() int {
	switch c.kind {
	case kKeyInt, kRefInt:
		return 4
	case kKeyCode, kRefCode:
		if c.kind == kKeyCode && c.part > 0 {
			return 2 + len(c.list[0])
		}
		return 2 + len(c.prefix) + max(c.width, 5)
	case kKeyDate, kDate:
		return 4
	case kDomain:
		return 7
	case kEnum:
		return 2 + len(c.list[len(c.list)/2])
	case kDateTime:
		return 7
	case kAmount:
		return 9
	case kQty:
		return 3
	case kFlag:
		return 1
	case kEmpty:
		return 2
	case kText:
		return 3
	case kBlob:
		return 1700
	case kAmountArray:
		return 2 + 9*c.extent
	case kUnknownDate:
		return 3
	}
	return 4
}

// build makes the spec of a table of the given archetype. Columns beyond
// the key are added from an ordered list while they fit in 3/4 of the mean
// record size, leaving the rest to free text; a mean too small for the key
// and one text column is raised to what they need.
func build(name string, a archetype, mean int, word bool) *tableSpec {
	p := prefixOf(name)
	f := func(s string) string { return p + "_" + s }
	code := strings.ToUpper(p)
	if len(code) > 3 {
		code = code[:3]
	}
	s := &tableSpec{name: name, mean: mean}
	domain := col{name: f("domain"), typ: "character", kind: kDomain}
	var must, opt []col
	var idx []idxSpec
	textCol := col{name: f("desc"), typ: "character", kind: kText, weight: 3}
	switch a {
	case archMstr:
		key := col{name: f("code"), typ: "character", kind: kKeyCode, prefix: code, width: 6}
		// The indexed description is short (x(24)); remarks take the bulk.
		must = []col{domain, key, {name: f("rmks"), typ: "character", kind: kText, weight: 1}}
		opt = []col{
			{name: f("type"), typ: "character", kind: kEnum, list: types, skew: 2},
			{name: f("status"), typ: "character", kind: kEnum, list: statuses, skew: 3},
			{name: f("site"), typ: "character", kind: kEnum, list: sites, skew: 2},
			{name: f("mod_date"), typ: "date", kind: kDate},
			{name: f("userid"), typ: "character", kind: kEnum, list: users, skew: 2},
			{name: f("group"), typ: "character", kind: kRefCode, prefix: "G", card: 60, skew: 2, width: 4},
			{name: f("um"), typ: "character", kind: kEnum, list: ums, skew: 3},
			{name: f("price"), typ: "decimal", kind: kAmount},
			{name: f("active"), typ: "logical", kind: kFlag, prob: 0.92},
			{name: f("acct"), typ: "character", kind: kEnum, list: acctList, skew: 2},
			{name: f("user1"), typ: "character", kind: kEmpty},
			{name: f("user2"), typ: "character", kind: kEmpty},
			{name: f("added"), typ: "date", kind: kDate},
			{name: f("cost"), typ: "decimal", kind: kAmount},
			{name: f("__chr01"), typ: "character", kind: kEmpty},
			{name: f("__dec01"), typ: "decimal", kind: kAmount},
			{name: f("__log01"), typ: "logical", kind: kFlag, prob: 0.1},
			{name: f("hist_amt"), typ: "decimal", kind: kAmountArray, extent: 12},
		}
		textCol.name, textCol.maxLen = f("desc1"), 24
		idx = []idxSpec{
			{name: f("code"), fields: []string{f("domain"), f("code")}, unique: true, primary: true},
			{name: f("desc1"), fields: []string{f("domain"), f("desc1")}},
			{name: f("type"), fields: []string{f("domain"), f("type"), f("code")}},
			{name: f("group"), fields: []string{f("domain"), f("group"), f("code")}},
			{name: f("site"), fields: []string{f("domain"), f("site"), f("status")}},
		}
	case archDet:
		must = []col{domain,
			{name: f("nbr"), typ: "character", kind: kKeyCode, prefix: code, width: 7},
			{name: f("line"), typ: "integer", kind: kKeyInt, part: 1},
		}
		s.key.r1 = 6
		opt = []col{
			{name: f("part"), typ: "character", kind: kRefCode, prefix: "P", card: 20000, skew: 2.5, width: 6},
			{name: f("site"), typ: "character", kind: kEnum, list: sites, skew: 2},
			{name: f("qty"), typ: "decimal", kind: kAmount},
			{name: f("due_date"), typ: "date", kind: kDate},
			{name: f("status"), typ: "character", kind: kEnum, list: statuses, skew: 3},
			{name: f("price"), typ: "decimal", kind: kAmount},
			{name: f("acct"), typ: "character", kind: kEnum, list: acctList, skew: 2},
			{name: f("loc"), typ: "character", kind: kEnum, list: locs, skew: 2},
			{name: f("um"), typ: "character", kind: kEnum, list: ums, skew: 3},
			{name: f("confirm"), typ: "logical", kind: kFlag, prob: 0.8},
			{name: f("per_date"), typ: "date", kind: kUnknownDate, prob: 0.3},
			{name: f("user1"), typ: "character", kind: kEmpty},
			{name: f("mod_userid"), typ: "character", kind: kEnum, list: users, skew: 2},
			{name: f("disc_pct"), typ: "decimal", kind: kAmount},
			{name: f("__chr01"), typ: "character", kind: kEmpty},
			{name: f("cmtindx"), typ: "integer", kind: kQty},
		}
		textCol.name = f("cmmt")
		idx = []idxSpec{
			{name: f("nbrln"), fields: []string{f("domain"), f("nbr"), f("line")}, unique: true, primary: true},
			{name: f("part"), fields: []string{f("domain"), f("part"), f("due_date")}},
			{name: f("site"), fields: []string{f("domain"), f("site"), f("part")}},
			{name: f("status"), fields: []string{f("domain"), f("status"), f("due_date")}, desc: []bool{false, false, true}},
		}
	case archHist:
		must = []col{domain, {name: f("trnbr"), typ: "integer", kind: kKeyInt}}
		s.key.base = 100000
		opt = []col{
			{name: f("part"), typ: "character", kind: kRefCode, prefix: "P", card: 20000, skew: 2.5, width: 6},
			{name: f("effdate"), typ: "date", kind: kDate},
			{name: f("type"), typ: "character", kind: kEnum, list: trTypes, skew: 2},
			{name: f("site"), typ: "character", kind: kEnum, list: sites, skew: 2},
			{name: f("qty"), typ: "decimal", kind: kAmount},
			{name: f("amt"), typ: "decimal", kind: kAmount},
			{name: f("nbr"), typ: "character", kind: kRefCode, prefix: "SO", card: 200000, skew: 1, width: 7},
			{name: f("userid"), typ: "character", kind: kEnum, list: users, skew: 2},
			{name: f("loc"), typ: "character", kind: kEnum, list: locs, skew: 2},
			{name: f("acct"), typ: "character", kind: kEnum, list: acctList, skew: 2},
			{name: f("time"), typ: "integer", kind: kQty},
			{name: f("batch"), typ: "character", kind: kRefCode, prefix: "B", card: 5000, skew: 1, width: 5},
			{name: f("created"), typ: "datetime", kind: kDateTime},
			{name: f("curr_amt"), typ: "decimal", kind: kAmount},
			{name: f("lot"), typ: "character", kind: kEmpty},
			{name: f("posted"), typ: "logical", kind: kFlag, prob: 0.97},
			{name: f("user1"), typ: "character", kind: kEmpty},
			{name: f("__chr01"), typ: "character", kind: kEmpty},
		}
		textCol.name = f("rmks")
		idx = []idxSpec{
			{name: f("trnbr"), fields: []string{f("domain"), f("trnbr")}, unique: true, primary: true},
			{name: f("part_eff"), fields: []string{f("domain"), f("part"), f("effdate")}},
			{name: f("eff_trnbr"), fields: []string{f("domain"), f("effdate"), f("trnbr")}},
			{name: f("type"), fields: []string{f("domain"), f("type"), f("effdate")}},
			{name: f("nbr_eff"), fields: []string{f("domain"), f("nbr"), f("effdate")}},
			{name: f("batch"), fields: []string{f("domain"), f("batch")}},
			{name: f("site_loc"), fields: []string{f("domain"), f("site"), f("loc"), f("part")}},
		}
	case archCtrl:
		must = []col{{name: f("domain"), typ: "character", kind: kKeyCode, prefix: "D", width: 2}}
		opt = []col{
			{name: f("active"), typ: "logical", kind: kFlag, prob: 0.5},
			{name: f("nbr"), typ: "integer", kind: kQty},
			{name: f("pre"), typ: "character", kind: kEnum, list: types},
			{name: f("acct"), typ: "character", kind: kEnum, list: acctList},
			{name: f("mod_date"), typ: "date", kind: kDate},
			{name: f("userid"), typ: "character", kind: kEnum, list: users},
			{name: f("auto"), typ: "logical", kind: kFlag, prob: 0.5},
			{name: f("site"), typ: "character", kind: kEnum, list: sites},
			{name: f("user1"), typ: "character", kind: kEmpty},
			{name: f("__qadc01"), typ: "character", kind: kEmpty},
		}
		textCol.name = f("hdr")
		idx = []idxSpec{{name: f("index1"), fields: []string{f("domain")}, unique: true, primary: true}}
	case archWkfl:
		must = []col{domain,
			{name: f("key1"), typ: "character", kind: kKeyCode, prefix: "K", width: 6},
			{name: f("key2"), typ: "character", kind: kKeyCode, part: 1, list: users},
		}
		s.key.r1 = int64(len(users))
		opt = []col{
			{name: f("key3"), typ: "character", kind: kEmpty},
			{name: f("decfld"), typ: "decimal", kind: kAmountArray, extent: 4},
			{name: f("intfld"), typ: "integer", kind: kQty},
			{name: f("datefld"), typ: "date", kind: kDate},
			{name: f("logfld"), typ: "logical", kind: kFlag, prob: 0.5},
		}
		textCol.name = f("charfld")
		idx = []idxSpec{
			{name: f("index1"), fields: []string{f("domain"), f("key1"), f("key2")}, unique: true, primary: true},
			{name: f("index2"), fields: []string{f("domain"), f("key2"), f("key1")}},
		}
	case archXref:
		must = []col{domain,
			{name: f("part"), typ: "character", kind: kKeyCode, prefix: "P", width: 6},
			{name: f("site"), typ: "character", kind: kKeyCode, part: 1, list: sites},
			{name: f("eff_date"), typ: "date", kind: kKeyDate, part: 2, step: 7},
		}
		s.key.r1, s.key.r2 = 3, 8
		opt = []col{
			{name: f("ref"), typ: "character", kind: kRefCode, prefix: "R", card: 50000, skew: 2, width: 6},
			{name: f("qty"), typ: "decimal", kind: kAmount},
			{name: f("type"), typ: "character", kind: kEnum, list: types, skew: 2},
			{name: f("active"), typ: "logical", kind: kFlag, prob: 0.9},
			{name: f("amt"), typ: "decimal", kind: kAmount},
			{name: f("userid"), typ: "character", kind: kEnum, list: users, skew: 2},
			{name: f("exp_date"), typ: "date", kind: kUnknownDate, prob: 0.2},
		}
		textCol.name = f("rmks")
		idx = []idxSpec{
			{name: f("part_site"), fields: []string{f("domain"), f("part"), f("site"), f("eff_date")}, unique: true, primary: true},
			{name: f("ref"), fields: []string{f("domain"), f("ref")}},
			{name: f("site_eff"), fields: []string{f("domain"), f("site"), f("eff_date")}},
		}
	}
	budget := mean * 3 / 4
	used := textCol.estimate()
	for _, c := range must {
		used += c.estimate()
	}
	s.cols = append(s.cols, must...)
	s.cols = append(s.cols, textCol)
	for _, c := range opt {
		if used+c.estimate() > budget {
			continue
		}
		used += c.estimate()
		s.cols = append(s.cols, c)
	}
	// Keep the indexes whose fields all exist; the primary always does.
	have := map[string]bool{}
	for _, c := range s.cols {
		have[c.name] = true
	}
	for _, ix := range idx {
		ok := true
		for _, fn := range ix.fields {
			ok = ok && have[fn]
		}
		if ok {
			s.indexes = append(s.indexes, ix)
		}
	}
	if word {
		s.indexes = append(s.indexes, idxSpec{name: textCol.name + "_wd", fields: []string{textCol.name}, word: true})
	}
	if need := used + 8; s.mean < need {
		s.mean = need
	}
	s.minSize = used
	return s
}
