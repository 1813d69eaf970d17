package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// erpSchemaSeed fixes the shape of the erp profile (names, areas, sizes,
// indexes) independently of the data seed.
const erpSchemaSeed = 0x5eed_003

// erpTableCount grows with the logarithm L of the scale in MB: 150 tables
// up to 1 MB (a floor, so that a small test database still has a long
// tail), about 470 at 200 MB and the seed's 873 at 14 GB and over
// (150 + 30·L + 1.6·L², capped).
func erpTableCount(scale int64) int {
	mb := float64(scale) / (1 << 20)
	if mb <= 1 {
		return 150
	}
	l := math.Log2(mb)
	return min(150+int(30*l+1.6*l*l), 873)
}

// The "before" areas: Type I (one block per cluster), as in the seed's
// "Current Structure", with the custom tables and a third of the others
// left in the Schema Area.
const (
	areaSchema = "Schema Area"
	areaTrans  = "TRANSACTION"
	areaStatic = "STATIC"
	areaHist   = "HISTORY"
)

const erpST = `#
b .
#
d "Schema Area":6,64;1 .
#
d "TRANSACTION":7,64;1 .
d "TRANSACTION_IDX":8,32;1 .
d "STATIC":9,64;1 .
d "STATIC_IDX":10,32;1 .
d "HISTORY":11,64;1 .
d "HISTORY_IDX":12,32;1 .
`

func buildERP(scale int64, seed uint64) (*Database, error) {
	r := rand.New(rand.NewPCG(erpSchemaSeed, 1))
	n := erpTableCount(scale)
	used := map[string]bool{}
	var specs []*tableSpec
	add := func(name string, bytes float64, mean int, word bool) *tableSpec {
		used[name] = true
		s := build(name, archetypeOf(name), mean, word)
		s.records = int64(math.Round(bytes / float64(s.mean)))
		s.area = erpArea(name, r)
		s.idxArea = s.area
		if s.area != areaSchema {
			s.idxArea = s.area + "_IDX"
		}
		specs = append(specs, s)
		return s
	}
	total := float64(scale)
	for _, t := range topTables {
		add(t.name, t.share*total, t.mean, false)
	}
	var midSum float64
	for _, t := range midTables {
		midSum += t.share
	}
	for _, t := range midTables {
		add(t.name, t.share/midSum*midShare*total, t.mean, t.name == "cmt_det")
	}
	// The long tail: real names, two awkward ones, then invented names.
	var tail []string
	for _, name := range append(slices.Clone(awkwardTables), qadTables...) {
		if !used[name] && !slices.Contains(tail, name) {
			tail = append(tail, name)
		}
	}
	for len(used)+len(tail) < n {
		name := stems[r.IntN(len(stems))] + suffixes[r.IntN(len(suffixes))]
		if r.IntN(4) == 0 {
			name = "xx" + name
		}
		if !used[name] && !slices.Contains(tail, name) {
			tail = append(tail, name)
		}
	}
	tail = tail[:n-len(used)]
	// Control tables hold one record, most work files and a few other
	// tables are empty (work files are cleared between runs, some modules
	// were never used); the others share the tail's bytes by heavy-tailed
	// weights (log-normal, σ = 2, clipped at 2σ above so that no tail table
	// outgrows the named big ones): most end up with a handful to a few
	// hundred records, a few with thousands.
	type tailTable struct {
		name   string
		mean   int
		weight float64 // 0: one record (control) or none
		empty  bool
		word   bool
	}
	tts := make([]tailTable, len(tail))
	var wsum float64
	for i, name := range tail {
		a := archetypeOf(name)
		tt := tailTable{name: name, mean: tailMean(a, r), word: r.IntN(25) == 0}
		w := math.Exp(2 * min(max(r.NormFloat64(), -3), 2))
		switch {
		case a == archCtrl:
		case a == archWkfl && r.IntN(3) > 0, r.IntN(30) == 0:
			tt.empty = true
		default:
			tt.weight = w
			wsum += w
		}
		tts[i] = tt
	}
	for _, tt := range tts {
		bytes := tt.weight / wsum * tailShare * total
		if tt.weight == 0 && !tt.empty {
			bytes = float64(tt.mean) // a control table's one record
		}
		s := add(tt.name, bytes, tt.mean, tt.word)
		if !tt.empty && s.records == 0 {
			s.records = 1 // in use, if barely
		}
	}
	for _, s := range specs {
		limitIndexes(s, r)
		if s.name == "xxdoc_mstr" {
			s.cols = append(s.cols, col{name: "xxdoc_image", typ: "blob", kind: kBlob, lobArea: areaSchema})
		}
		if s.name == "xxedi_det" {
			s.cols = append(s.cols, col{name: "xxedi_payload", typ: "clob", kind: kText, weight: 6, lobArea: areaSchema})
		}
	}
	db, err := assemble("erp", erpST, specs, seed)
	if err != nil {
		return nil, err
	}
	db.Sequences = erpSequences(db)
	return db.finish(), nil
}

// erpArea places a table in the "before" structure: custom (xx) tables and
// a third of the rest in the Schema Area, histories in HISTORY, masters and
// references in STATIC, details and work files in TRANSACTION.
func erpArea(name string, r *rand.Rand) string {
	if strings.HasPrefix(name, "xx") || r.IntN(3) == 0 {
		return areaSchema
	}
	switch archetypeOf(name) {
	case archHist:
		return areaHist
	case archDet, archWkfl:
		return areaTrans
	}
	return areaStatic
}

// tailMean draws a mean record size for a long-tail table by archetype,
// log-uniform between bounds seen in QAD databases.
func tailMean(a archetype, r *rand.Rand) int {
	lo, hi := 60.0, 700.0
	switch a {
	case archMstr:
		lo, hi = 120, 1400
	case archHist:
		lo, hi = 100, 600
	case archCtrl:
		lo, hi = 150, 1200
	case archWkfl:
		lo, hi = 80, 500
	case archXref:
		lo, hi = 40, 250
	}
	return int(lo * math.Exp(r.Float64()*math.Log(hi/lo)))
}

// limitIndexes keeps the primary and a random number of the secondary
// indexes an archetype offers, so that the database averages the seed's
// 3.6 indexes per table (3140 / 873) with the spread of a real schema.
func limitIndexes(s *tableSpec, r *rand.Rand) {
	var keep []idxSpec
	extra := 0
	for _, ix := range s.indexes {
		switch {
		case ix.primary, ix.word:
			keep = append(keep, ix)
		case extra < 1 || r.IntN(5) > 0:
			keep = append(keep, ix)
			extra++
		}
	}
	s.indexes = keep
}

// erpSequences are the number sequences of the big transaction tables, at
// the last key value generated.
func erpSequences(db *Database) []Sequence {
	var seqs []Sequence
	for _, name := range []string{"tr_hist", "gltr_hist", "idh_hist", "ih_hist", "prh_hist"} {
		t := db.Table(name)
		if t == nil {
			continue
		}
		seqs = append(seqs, Sequence{Name: prefixOf(name) + "_sq01", Current: t.lastKey})
	}
	for _, sq := range [][2]string{{"so_sq01", "so_mstr"}, {"po_sq01", "po_mstr"}, {"wo_sq01", "wo_mstr"}, {"abs_sq01", "abs_mstr"}, {"mrp_sq01", "mrp_det"}} {
		if t := db.Table(sq[1]); t != nil {
			seqs = append(seqs, Sequence{Name: sq[0], Current: 1000 + t.Records})
		}
	}
	return seqs
}
