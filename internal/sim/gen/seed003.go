package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// The seed003 profile is the database of the dump/load benchmark in
// shared/seeds/003-dump-load-benchmark.txt taken literally, where the erp
// profile only borrows its proportions: 873 tables at every scale, the
// four tables over 1 GB with the seed's record counts and sizes at full
// scale (14 GiB) and proportionally fewer records below it, hundreds of
// tables of about a kilobyte whatever the scale (a migration of a real ERP
// database pays a utility start-up for each of them: that is what this
// profile is for), and the seed's 18 table and 18 index areas, Type I,
// with the custom tables and the biggest one left in the Schema Area
// (the seed's Schema Area holds 20.6 M records, 4.5 GB).

// seed003FullScale is the size of the seed's database.
const seed003FullScale = 14 << 30

// seed003Tables is the seed's table count.
const seed003Tables = 873

// seedTable is a table of the seed's "Table over 1GB" slide.
type seedTable struct {
	name    string
	records int64 // at full scale
	bytes   int64 // at full scale
}

var seed003Big = []seedTable{
	{"xxext_xref", 18_535_331, 37 << 30 / 10},
	{"gltmp_det", 14_856_965, 13 << 30 / 10},
	{"gltr_hist", 5_145_602, 1 << 30},
	{"glec_det", 9_766_305, 1 << 30},
}

// seed003Tiny is how many tables hold about a kilobyte at every scale, and
// seed003TinyBytes that kilobyte.
const (
	seed003Tiny      = 420
	seed003TinyBytes = 1024
)

// seed003MidShare is the share of the bytes of erp's midTables here: less
// than in erp, so that tr_hist, the largest of them, stays under 1 GB at
// full scale (the seed lists four tables over 1 GB).
const seed003MidShare = 0.28

// seed003Areas are the 18 data areas; each has an _IDX area for its
// indexes. The first three are the seed's own ("Current Structure").
var seed003Areas = []string{
	areaTrans, areaStatic, areaHist, "GL", "GLTMP", "INVENTORY", "ORDERS", "PURCHASING", "MANUFACTURING",
	"FINANCE", "CUSTOMER", "SUPPLIER", "PLANNING", "QUALITY", "SERVICE", "SHIPPING", "PRICING", "MISC",
}

// seed003ST is the "before" structure: Schema Area 6, then each data area
// (64 records per block) followed by its index area (32), one block per
// cluster: Type I, as the seed's structure is.
func seed003ST() string {
	var b strings.Builder
	b.WriteString("#\nb .\n#\nd \"Schema Area\":6,64;1 .\n#\n")
	for i, a := range seed003Areas {
		fmt.Fprintf(&b, "d %q:%d,64;1 .\nd %q:%d,32;1 .\n", a, 7+2*i, a+"_IDX", 8+2*i)
	}
	return b.String()
}

func buildSeed003(scale int64, seed uint64) (*Database, error) {
	r := rand.New(rand.NewPCG(erpSchemaSeed, 3))
	f := float64(scale) / seed003FullScale
	used := map[string]bool{}
	var specs []*tableSpec
	add := func(name string, records int64, mean int, area string, word bool) {
		used[name] = true
		s := build(name, archetypeOf(name), mean, word)
		s.records = records
		s.area, s.idxArea = area, area
		if area != areaSchema {
			s.idxArea = area + "_IDX"
		}
		specs = append(specs, s)
	}
	total := float64(scale)
	var bigBytes float64
	for i, t := range seed003Big {
		area := areaSchema // xxext_xref: most of the seed's Schema Area
		if i > 0 {
			area = seed003AreaOf(t.name, r)
		}
		add(t.name, int64(math.Round(float64(t.records)*f)), int((t.bytes+t.records-1)/t.records), area, false)
		bigBytes += float64(t.bytes) * f
	}
	// The named next-in-line tables share seed003MidShare of the bytes, the
	// biggest of them under 1 GB at full scale as in the seed; the
	// tiny tables take their kilobyte each; the rest of the tail shares
	// what remains by heavy-tailed weights.
	var midSum float64
	for _, t := range midTables {
		midSum += t.share
	}
	for _, t := range midTables {
		bytes := t.share / midSum * seed003MidShare * total
		add(t.name, int64(math.Round(bytes/float64(t.mean))), t.mean, seed003AreaOf(t.name, r), t.name == "cmt_det")
	}
	var tail []string
	for _, name := range append(slices.Clone(awkwardTables), qadTables...) {
		if !used[name] && !slices.Contains(tail, name) {
			tail = append(tail, name)
		}
	}
	for len(used)+len(tail) < seed003Tables {
		name := stems[r.IntN(len(stems))] + suffixes[r.IntN(len(suffixes))]
		if r.IntN(4) == 0 {
			name = "xx" + name
		}
		if !used[name] && !slices.Contains(tail, name) {
			tail = append(tail, name)
		}
	}
	tail = tail[:seed003Tables-len(used)]
	rest := max(0, total-bigBytes-seed003MidShare*total-seed003Tiny*seed003TinyBytes)
	weights := make([]float64, len(tail))
	var wsum float64
	for i := seed003Tiny; i < len(tail); i++ {
		weights[i] = math.Exp(2 * min(max(r.NormFloat64(), -3), 2))
		wsum += weights[i]
	}
	for i, name := range tail {
		mean := tailMean(archetypeOf(name), r)
		records := max(1, int64(math.Round(seed003TinyBytes/float64(mean))))
		if i >= seed003Tiny {
			records = max(1, int64(math.Round(weights[i]/wsum*rest/float64(mean))))
		}
		add(name, records, mean, seed003AreaOf(name, r), r.IntN(25) == 0)
	}
	for _, s := range specs {
		limitIndexes(s, r)
	}
	db, err := assemble("seed003", seed003ST(), specs, seed)
	if err != nil {
		return nil, err
	}
	db.Sequences = erpSequences(db)
	return db.finish(), nil
}

// seed003AreaOf places a table: custom (xx) tables and one in eight of the
// others in the Schema Area (the seed's "Objects in Schema Area"), the
// rest spread over the 18 data areas.
func seed003AreaOf(name string, r *rand.Rand) string {
	if strings.HasPrefix(name, "xx") || r.IntN(8) == 0 {
		return areaSchema
	}
	return seed003Areas[r.IntN(len(seed003Areas))]
}
