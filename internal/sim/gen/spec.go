package gen

import (
	"strings"
	"time"

	"github.com/oedl/oedl/internal/openedge"
)

// A tableSpec describes a table to generate: its columns, indexes and
// size. Profiles build specs; compile turns one into a Table.
type tableSpec struct {
	name     string
	area     string // data area of the "before" structure
	idxArea  string // area of its indexes
	records  int64
	mean     int // target mean encoded record size
	key      keyShape
	cols     []col
	indexes  []idxSpec
	minSize  int // smallest record the size distribution may aim for
	sizeVary float64
}

// keyShape is the primary key as a tuple of up to three parts, numbered in
// mixed radix: row position k maps to (k / (r1·r2), (k / r2) % r1, k % r2).
// Part 0 is rendered through a monotonic, unevenly spaced function so that
// key ranges of equal width hold different numbers of records (which is
// what makes threaded dump brackets uneven); parts 1 and 2 are small
// counters (site, line, date step).
type keyShape struct {
	r1, r2 int64 // radices of parts 1 and 2; 1 when the part is absent
	base   int64 // first value of part 0
}

func (k keyShape) radix() int64 { return max(k.r1, 1) * max(k.r2, 1) }

// colKind says how a column's values are made.
type colKind uint8

const (
	kKeyInt      colKind = iota // part p of the key as an integer (part 0: spaced value; else counter+1)
	kKeyCode                    // part p of the key as a code: part 0 prefix+digits, else list[counter]
	kKeyDate                    // part p of the key as a date: epoch + counter×step days
	kDomain                     // QAD domain: "10USA" for most rows, then a second domain
	kRefInt                     // skewed reference to card values from base, integer
	kRefCode                    // skewed reference to card values, prefix+digits
	kEnum                       // skewed pick from list
	kDate                       // a date rising with the row position, with jitter
	kDateTime                   // a datetime rising with the row position
	kAmount                     // decimal with 2 decimals, log-spread
	kQty                        // small integer
	kFlag                       // logical, true with probability prob
	kText                       // free text: fills the record up to its target size
	kEmpty                      // character, usually "" (QAD user fields), sometimes a code
	kBlob                       // bytes, a few hundred to a few thousand
	kAmountArray                // decimal EXTENT n
	kUnknownDate                // a date that is ? for most rows (closed/ship dates)
)

// col is one column.
type col struct {
	name    string
	typ     string // openedge type: character, integer, int64, decimal, date, datetime, logical, blob, clob, raw, recid
	kind    colKind
	part    int      // key part, for kKey*
	prefix  string   // code prefix
	width   int      // digits of a code
	card    int64    // number of distinct values of a reference
	skew    float64  // exponent of the skew: index = card·u^skew
	list    []string // values of kEnum / kKeyCode parts 1-2
	prob    float64  // kFlag: probability of true; kUnknownDate: probability of a date
	weight  int      // kText: share of the free space (relative)
	maxLen  int      // kText: longest value (0 = no cap), as a FORMAT "x(24)" suggests
	extent  int
	step    int   // kKeyDate: days between values
	base    int64 // kRefInt: first value
	lobArea string
}

// idxSpec is one index.
type idxSpec struct {
	name    string
	fields  []string
	unique  bool
	primary bool
	word    bool
	desc    []bool // descending flags, parallel to fields (may be shorter)
}

// epoch is the date the generated history starts at.
var epoch = time.Date(2009, time.January, 1, 0, 0, 0, 0, time.UTC)

// historyDays is the span of dates over all rows of a table.
const historyDays = 15 * 365

// def builds the openedge view of the spec.
func (s *tableSpec) def() *openedge.DFTable {
	t := &openedge.DFTable{Name: s.name, Area: s.area}
	for i, c := range s.cols {
		f := &openedge.DFField{Name: c.name, Table: s.name, Type: c.typ, Extent: c.extent, Order: (i + 1) * 10}
		if c.typ == "blob" || c.typ == "clob" {
			f.LobArea = c.lobArea
		}
		if c.typ == "decimal" {
			f.Decimals = 2 // money and quantities, as in QAD and sports2000
		}
		t.Fields = append(t.Fields, f)
	}
	for _, ix := range s.indexes {
		di := &openedge.DFIndex{Name: ix.name, Table: s.name, Area: s.idxArea, Unique: ix.unique, Primary: ix.primary, Word: ix.word}
		for j, f := range ix.fields {
			di.Fields = append(di.Fields, openedge.DFIndexField{Name: f, Descending: j < len(ix.desc) && ix.desc[j]})
		}
		t.Indexes = append(t.Indexes, di)
	}
	return t
}

func equalFoldName(t *Table, name string) bool {
	if i := strings.IndexByte(name, '.'); i > 0 {
		if !strings.EqualFold(name[:i], t.Owner) {
			return false
		}
		name = name[i+1:]
	}
	return strings.EqualFold(name, t.Name)
}
