package sim

import (
	"fmt"
	"github.com/oedl/oedl/internal/sim/msg"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/sim/store"
)

// dumpSpecifiedQualifier: dumpspecified [owner.]table.field OP value
// [AND OP value] directory [-preferidx index]. The records whose field
// satisfies the condition are dumped to table.bd in the order of an index
// led by the field (-preferidx first), else the primary index.
func dumpSpecifiedQualifier(p *proc, dbArg string, args []string) int {
	fs, err := parseFlags(args, "-preferidx", "-Cipher")
	if err != nil {
		return p.usage("%v", err)
	}
	pos := dropWords(fs.pos, "stopaftererror")
	if len(pos) != 4 && len(pos) != 7 {
		return p.usage("usage: proutil db-name -C dumpspecified [owner.]table.field operator value [AND operator value] directory")
	}
	p.banner()
	s, rc := p.open(dbArg, client)
	if rc != 0 {
		return rc
	}
	defer s.close()
	i := strings.LastIndexByte(pos[0], '.')
	if i < 0 {
		return p.usage("%q is not table.field", pos[0])
	}
	t := s.db.Ctl.Table(pos[0][:i])
	if t == nil {
		return p.fail("oesim.table.notfound.db", pos[0][:i], s.paths.Base)
	}
	fpos := t.FieldPos(pos[0][i+1:])
	if fpos < 0 {
		return p.fail("oesim.field.notfound", pos[0][i+1:], t.Name)
	}
	field := t.Fields[fpos]
	conds := []cond{}
	for _, c := range [][2]string{{pos[1], pos[2]}} {
		cd, err := parseCond(c[0], c[1], field.Type)
		if err != nil {
			return p.failErr(msg.E("oesim.internal", err))
		}
		conds = append(conds, cd)
	}
	dir := pos[3]
	if len(pos) == 7 {
		if !strings.EqualFold(pos[3], "AND") {
			return p.usage("expected AND, got %q", pos[3])
		}
		cd, err := parseCond(pos[4], pos[5], field.Type)
		if err != nil {
			return p.failErr(msg.E("oesim.internal", err))
		}
		conds = append(conds, cd)
		dir = pos[6]
	}
	ix := t.PrimaryIndex()
	for _, cand := range t.Indexes {
		if !cand.Word && cand.Active && len(cand.Fields) > 0 && cand.Fields[0].Pos == fpos {
			if ix == nil || ix.Fields[0].Pos != fpos || strings.EqualFold(cand.Name, fs.values["-preferidx"]) {
				ix = cand
			}
		}
	}
	fp := p.env.fault(p, "dumpspecified", t.QualifiedName())
	if rc := applyEarlyFault(p, fp); rc >= 0 {
		return rc
	}
	// Through an index bracket when an index led by the field can serve
	// the range (bracket.go), else a table scan filtered record by record.
	kept, order, ok, err := bracketRead(s.db, t, ix, fpos, conds, p.env)
	if err != nil {
		return p.failErr(err)
	}
	if !ok {
		if kept, order, err = scanSpecified(s.db, t, ix, fpos, conds, p.env); err != nil {
			return p.failErr(err)
		}
	}
	if ix != nil {
		p.msg("17813", ix.Name, ix.Number, t.Name)
	}
	if _, rc := writeBrackets(p, s, t, kept, order, []int64{int64(len(order))}, dir, false, false, fp); rc != 0 {
		return rc
	}
	p.msg("13932", len(order))
	p.msg("6254")
	s.log(fmt.Sprintf("Binary dumpspecified of table %s: %d records. (13932)", t.QualifiedName(), len(order)))
	return exitOK
}

// cond is one "OP value" of dumpspecified.
type cond struct {
	op  string
	val any
}

func parseCond(op, raw, typ string) (cond, error) {
	op = strings.ToUpper(op)
	switch op {
	case "EQ", "GT", "GE", "LT", "LE":
	default:
		return cond{}, fmt.Errorf("operator %q is not EQ, GT, GE, LT or LE", op)
	}
	var v any
	var err error
	switch strings.ToLower(typ) {
	case "integer", "int64", "recid":
		v, err = strconv.ParseInt(raw, 10, 64)
	case "decimal":
		v, err = strconv.ParseFloat(raw, 64)
	case "logical":
		switch strings.ToLower(raw) {
		case "yes", "true":
			v = true
		case "no", "false":
			v = false
		default:
			err = fmt.Errorf("%q is not a logical", raw)
		}
	case "date", "datetime", "datetime-tz":
		v, err = parseDate(raw)
	default:
		v = raw
	}
	if err != nil {
		return cond{}, fmt.Errorf("value %q for a %s field: %v", raw, typ, err)
	}
	return cond{op: op, val: v}, nil
}

// parseDate accepts mm-dd-yyyy, mm/dd/yyyy (the default -d mdy) and ISO
// yyyy-mm-dd.
func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{"01-02-2006", "01/02/2006", "2006-01-02", "1-2-2006", "1/2/2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date")
}

func (c cond) match(v any) bool {
	cmp, ok := compareValues(v, c.val)
	return ok && c.matchCmp(cmp)
}

// scanSpecified reads the whole table (charged as a table scan) and keeps
// the records whose field satisfies conds, in the order of ix.
func scanSpecified(db *store.DB, t *store.Table, ix *store.Index, fpos int, conds []cond, env *environment) (*tableImage, []int32, error) {
	img, err := readTable(db, t, env)
	if err != nil {
		return nil, nil, err
	}
	kept := &tableImage{rpb: img.rpb, blockSize: img.blockSize}
	var fields [][]byte
	for k, rec := range img.recs {
		if fields, err = store.FieldSlices(rec, fpos+1, fields); err != nil || len(fields) <= fpos {
			return nil, nil, fmt.Errorf("table %s: bad record", t.Name)
		}
		v, err := store.DecodeValue(fields[fpos])
		if err != nil {
			return nil, nil, err
		}
		ok := true
		for _, c := range conds {
			ok = ok && c.match(v)
		}
		if ok {
			kept.recs = append(kept.recs, rec)
			kept.crcs = append(kept.crcs, img.crcs[k])
			kept.recids = append(kept.recids, img.recids[k])
		}
	}
	order, _, err := indexOrder(kept, ix, 2)
	return kept, order, err
}

// compareValues compares a stored value with a condition value; the
// unknown value matches nothing.
func compareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return cmpOrdered(x, y), ok
	case float64:
		switch y := b.(type) {
		case float64:
			return cmpOrdered(x, y), true
		case int64:
			return cmpOrdered(x, float64(y)), true
		}
	case string:
		y, ok := b.(string)
		return strings.Compare(strings.ToUpper(strings.TrimRight(x, " ")), strings.ToUpper(y)), ok
	case bool:
		y, ok := b.(bool)
		bi := func(v bool) int {
			if v {
				return 1
			}
			return 0
		}
		return bi(x) - bi(y), ok
	case time.Time:
		y, ok := b.(time.Time)
		return x.Compare(y), ok
	}
	return 0, false
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
