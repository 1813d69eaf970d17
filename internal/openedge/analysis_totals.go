package openedge

import "math"

// tableTotals accumulates a Subtotals: or Totals: line of the record summary.
type tableTotals struct {
	records, bytes, frags int64
	lo, max               int64
	scatterWeighted       float64 // sum of ScatterFactor × Records
}

func (s *tableTotals) add(t *TableStat) {
	if t.Records > 0 {
		if s.records == 0 || t.MinRecord < s.lo {
			s.lo = t.MinRecord
		}
		s.max = max(s.max, t.MaxRecord)
	}
	s.records += t.Records
	s.bytes = addSizes(s.bytes, t.Bytes)
	s.frags += t.Fragments
	s.scatterWeighted += t.ScatterFactor * float64(t.Records)
}

func (s *tableTotals) merge(o *tableTotals) {
	if o.records > 0 {
		if s.records == 0 || o.lo < s.lo {
			s.lo = o.lo
		}
		s.max = max(s.max, o.max)
	}
	s.records += o.records
	s.bytes = addSizes(s.bytes, o.bytes)
	s.frags += o.frags
	s.scatterWeighted += o.scatterWeighted
}

func (s *tableTotals) min() int64 { return s.lo }

func (s *tableTotals) mean() int64 {
	if s.records == 0 {
		return 0
	}
	return int64(math.Round(float64(s.bytes) / float64(s.records)))
}

func (s *tableTotals) fragFactor() float64 {
	if s.records == 0 {
		return 0
	}
	return float64(s.frags) / float64(s.records)
}

// scatter is the record-weighted mean; an empty area prints 1.0, as the
// index-only "Cust_Index" area of the sports2000 report does.
func (s *tableTotals) scatter() float64 {
	if s.records == 0 {
		return 1
	}
	return s.scatterWeighted / float64(s.records)
}

// indexTotals accumulates a Subtotals: or Totals: line of the index summary.
type indexTotals struct {
	blocks, bytes int64
	utilWeighted  float64 // sum of Util × Blocks, for reports without a block size
}

func (s *indexTotals) add(ix *IndexStat) {
	s.blocks += ix.Blocks
	s.bytes = addSizes(s.bytes, ix.Bytes)
	s.utilWeighted += ix.Util * float64(ix.Blocks)
}

func (s *indexTotals) merge(o *indexTotals) {
	s.blocks += o.blocks
	s.bytes = addSizes(s.bytes, o.bytes)
	s.utilWeighted += o.utilWeighted
}

// util is the share of the index blocks in use: 248.0B in 2 blocks of 4K
// prints 3.0, which is what the sports2000 Control Area shows.
func (s *indexTotals) util(blockSize int) float64 {
	if s.blocks == 0 {
		return 0
	}
	if blockSize > 0 {
		return float64(s.bytes) * 100 / (float64(s.blocks) * float64(blockSize))
	}
	return s.utilWeighted / float64(s.blocks)
}

// addSizes saturates instead of wrapping: a total printed as a negative
// size would be unreadable, by a DBA and by ParseSize.
func addSizes(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
