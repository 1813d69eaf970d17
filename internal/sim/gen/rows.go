package gen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// rowGen makes the rows of one table. It holds no rows: every value is a
// function of the row position and a PCG stream seeded by (seed, table
// number), so a table of any size streams in constant memory and
// restarting the stream restarts the data.
type rowGen struct {
	spec    *tableSpec
	seed    uint64
	stream  uint64
	spacing spacing
	width   int // digits of part-0 codes
	textW   int // sum of text weights
	texts   int // number of text columns
	freeW   int // sum of the weights of the text columns without a cap
}

// block is the run of rows whose key order is shuffled: rows come in key
// order from block to block but not inside one, as records created by
// concurrent sessions are.
const block = 64

func newRowGen(s *tableSpec, seed, stream uint64) *rowGen {
	g := &rowGen{spec: s, seed: seed, stream: stream}
	n0 := (s.records + s.key.radix() - 1) / s.key.radix()
	g.spacing = newSpacing(n0, s.key.base, mix(seed, stream, 0xa11ce))
	g.width = len(strconv.FormatInt(g.spacing.value(max(n0-1, 0)), 10))
	for _, c := range s.cols {
		if c.kind == kText {
			g.textW += max(c.weight, 1)
			g.texts++
			if c.maxLen == 0 {
				g.freeW += max(c.weight, 1)
			}
		}
		if c.kind == kKeyCode && c.part == 0 {
			g.width = max(g.width, c.width)
		}
	}
	return g
}

// rows is the iter.Seq of the table.
func (g *rowGen) rows(yield func(Row) bool) {
	r := rand.New(rand.NewPCG(g.seed, g.stream))
	var scratch []byte
	var codes []codeRef
	for i := int64(0); i < g.spec.records; i++ {
		var row Row
		row, scratch, codes = g.row(i, r, scratch[:0], codes[:0])
		if !yield(row) {
			return
		}
	}
}

// position is the key position of row i: a bijection inside each full
// block of 64 rows (odd multiplier mod 64), identity in the last one.
func (g *rowGen) position(i int64) int64 {
	b := i / block
	if (b+1)*block > g.spec.records {
		return i
	}
	h := mix(g.seed, g.stream, uint64(b))
	a := int64(h|1) & (block - 1)
	c := int64(h>>8) & (block - 1)
	return b*block + ((i%block)*a+c)&(block-1)
}

// codeRef remembers where a code column's text lies in the row's scratch
// buffer; all of a row's codes become one string and are sliced from it.
type codeRef struct {
	col        int
	start, end int
}

func (g *rowGen) row(i int64, r *rand.Rand, scratch []byte, codes []codeRef) (Row, []byte, []codeRef) {
	s := g.spec
	k := g.position(i)
	rad := s.key.radix()
	parts := [3]int64{k / rad, 0, 0}
	if s.key.r2 > 1 {
		parts[2] = k % s.key.r2
	}
	if s.key.r1 > 1 {
		parts[1] = (k / max(s.key.r2, 1)) % s.key.r1
	}
	row := make(Row, len(s.cols))
	size := 0
	for ci := range s.cols {
		c := &s.cols[ci]
		switch c.kind {
		case kKeyInt:
			if c.part == 0 {
				row[ci] = g.spacing.value(parts[0])
			} else {
				row[ci] = parts[c.part] + 1
			}
		case kKeyCode:
			start := len(scratch)
			switch {
			case c.part == 0 && c.list != nil: // a fixed list of keys (states, reps)
				scratch = append(scratch, c.list[int(parts[0])%len(c.list)]...)
			case c.part == 0:
				scratch = appendCode(scratch, c.prefix, g.spacing.value(parts[0]), g.width)
			default:
				scratch = append(scratch, c.list[int(parts[c.part])%len(c.list)]...)
			}
			codes = append(codes, codeRef{ci, start, len(scratch)})
		case kKeyDate:
			row[ci] = days(parts[c.part] * int64(max(c.step, 1)))
		case kDomain:
			if k < s.records*85/100 || s.records < 4 {
				row[ci] = "10USA"
			} else {
				row[ci] = "20CAN"
			}
		case kRefInt:
			row[ci] = c.base + skewed(r, c.card, c.skew)
		case kRefCode:
			start := len(scratch)
			scratch = appendCode(scratch, c.prefix, 1000+skewed(r, c.card, c.skew), c.width)
			codes = append(codes, codeRef{ci, start, len(scratch)})
		case kEnum:
			row[ci] = c.list[skewed(r, int64(len(c.list)), max(c.skew, 1))]
		case kDate:
			row[ci] = g.dateAt(k, r)
		case kDateTime:
			d := g.dateAt(k, r)
			row[ci] = d.Add(time.Duration(r.IntN(86400)) * time.Second)
		case kUnknownDate:
			if r.Float64() < c.prob {
				row[ci] = g.dateAt(k, r).Add(time.Duration(r.IntN(60)) * day)
			} else {
				row[ci] = nil
			}
		case kAmount:
			row[ci] = amount(r)
		case kQty:
			row[ci] = 1 + skewed(r, 1000, 3)
		case kFlag:
			row[ci] = r.Float64() < c.prob
		case kEmpty:
			if r.IntN(10) == 0 {
				start := len(scratch)
				scratch = appendCode(scratch, "U", int64(r.IntN(100)), 2)
				codes = append(codes, codeRef{ci, start, len(scratch)})
			} else {
				row[ci] = ""
			}
		case kBlob:
			row[ci] = []byte(corpusText(r, 200+r.IntN(2800)))
		case kAmountArray:
			a := make([]any, c.extent)
			for j := range a {
				if c.typ == "integer" {
					a[j] = 1000 * (1 + skewed(r, 100, 2)) // quotas in round thousands
				} else {
					a[j] = amount(r)
				}
			}
			row[ci] = a
		case kText:
			continue // filled below, once the size of the rest is known
		}
	}
	if len(codes) > 0 {
		all := string(scratch)
		for _, cr := range codes {
			row[cr.col] = all[cr.start:cr.end]
		}
	}
	if g.texts == 0 {
		return row, scratch, codes
	}
	for _, v := range row {
		size += valueSize(v)
	}
	// Share the free space by weight; what a capped column (a name, a
	// description of 24 characters) cannot take goes to the uncapped ones.
	free := max(g.target(r)-size-3*g.texts, 0) // 3: tag and length bytes of each text
	spill := 0
	for ci := range s.cols {
		c := &s.cols[ci]
		if c.kind == kText && c.maxLen > 0 {
			n := free * max(c.weight, 1) / g.textW
			// A capped text varies in length like a real name does.
			capped := min(n, c.maxLen/2+r.IntN(c.maxLen/2+1))
			spill += n - capped
			row[ci] = corpusText(r, capped)
		}
	}
	for ci := range s.cols {
		c := &s.cols[ci]
		if c.kind == kText && c.maxLen == 0 {
			w := max(c.weight, 1)
			row[ci] = corpusText(r, free*w/g.textW+spill*w/g.freeW)
		}
	}
	return row, scratch, codes
}

// target draws the size a record should have: spread around the mean
// (uniform ±sizeVary), never below the spec's minimum.
func (g *rowGen) target(r *rand.Rand) int {
	v := g.spec.sizeVary
	if v == 0 {
		v = 0.5
	}
	t := float64(g.spec.mean) * (1 - v + 2*v*r.Float64())
	return max(int(t), g.spec.minSize)
}

// dateAt is a date rising with the key position over historyDays, with a
// jitter of a month so that a date index is not the primary order.
func (g *rowGen) dateAt(k int64, r *rand.Rand) time.Time {
	d := int64(0)
	if g.spec.records > 1 {
		d = k * historyDays / g.spec.records
	}
	d += int64(r.IntN(31)) - 15
	return days(max(d, 0))
}

const day = 24 * time.Hour

// days is the date n days after epoch. UTC has no daylight saving, so
// adding hours is exact and much cheaper than AddDate.
func days(n int64) time.Time { return epoch.Add(time.Duration(n) * day) }

// skewed picks 0..card-1, small values far more often: card·u^skew.
func skewed(r *rand.Rand, card int64, skew float64) int64 {
	if card <= 1 {
		return 0
	}
	u := r.Float64()
	switch skew {
	case 0, 1:
	case 2:
		u *= u
	case 3:
		u *= u * u
	default:
		u = math.Pow(u, skew)
	}
	return min(int64(u*float64(card)), card-1)
}

// amount is a money value, log-uniform from 0.01 to 1e6, one in ten
// negative (credits), rounded to cents.
func amount(r *rand.Rand) float64 {
	v := math.Exp(r.Float64()*math.Log(1e8)) / 100
	v = math.Round(v*100) / 100
	if r.IntN(10) == 0 {
		v = -v
	}
	return v
}

// appendCode appends prefix and v zero-padded to width digits.
func appendCode(b []byte, prefix string, v int64, width int) []byte {
	b = append(b, prefix...)
	var d [20]byte
	s := strconv.AppendInt(d[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// spacing maps key counters 0..n-1 to rising values whose gaps differ by
// stretch: eight segments of equal counts whose steps range from 1 to 40,
// so equal-width key ranges hold very different numbers of records.
type spacing struct {
	base   int64
	segLen int64
	steps  [8]int64
	offs   [8]int64
}

func newSpacing(n, base int64, h uint64) spacing {
	sp := spacing{base: base, segLen: max((n+7)/8, 1)}
	steps := [8]int64{1, 1, 1, 2, 3, 5, 10, 40}
	// Shuffle the steps by the hash (Fisher-Yates with the hash's bits).
	for i := 7; i > 0; i-- {
		j := int(h % uint64(i+1))
		h /= uint64(i + 1)
		steps[i], steps[j] = steps[j], steps[i]
	}
	sp.steps = steps
	for i := 1; i < 8; i++ {
		sp.offs[i] = sp.offs[i-1] + sp.segLen*steps[i-1]
	}
	return sp
}

func (sp spacing) value(x int64) int64 {
	s := min(x/sp.segLen, 7)
	return sp.base + sp.offs[s] + (x-s*sp.segLen)*sp.steps[s]
}

// mix is splitmix64 over three words: a stateless hash for per-block and
// per-table choices.
func mix(a, b, c uint64) uint64 {
	x := a ^ b*0x9e3779b97f4a7c15 ^ c*0xc2b2ae3d27d4eb4f
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
