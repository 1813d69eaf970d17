package store

import "math"

// TableStats is what tabanalys reports for one table, computed from the
// committed segments in its area.
type TableStats struct {
	Records, Bytes       int64
	Min, Max             int64
	Fragments            int64
	Blocks, UsedBlocks   int64
	Scatter              float64
	FirstBlock, EndBlock int64
}

// IndexStats is what the index block summary reports for one index.
type IndexStats struct {
	Entries, Bytes int64
	Blocks         int64 // leaf and non-leaf
	Levels         int
	Util           float64 // percent of the blocks' usable space holding entries
	Factor         float64
}

// TableStatsOf sums a table's segments.
func (d *DB) TableStatsOf(t *Table) (TableStats, error) {
	af, segs, err := d.ObjectSegments(t.Area, KindRecords, t.Number)
	if err != nil {
		return TableStats{}, err
	}
	var st TableStats
	bs := int64(af.BlockSize)
	for i, s := range segs {
		if s.Count == 0 {
			continue
		}
		if st.Records == 0 || s.MinRec < st.Min {
			st.Min = s.MinRec
		}
		if s.MaxRec > st.Max {
			st.Max = s.MaxRec
		}
		st.Records += s.Count
		st.Bytes += s.DataLen - s.Count*RecordFrameOverhead
		st.Fragments += s.Fragments
		st.Blocks += s.Blocks
		st.UsedBlocks += s.UsedBlocks
		if i == 0 {
			st.FirstBlock = s.Pos / bs
		}
		st.EndBlock = s.Pos/bs + s.Blocks
	}
	st.Scatter = 1.0
	if st.Blocks > 0 {
		// How far apart the table's blocks are: 1.0 when contiguous, growing
		// with the log of the span over the blocks it owns (Type I areas
		// where several tables were loaded together score higher).
		span := float64(st.EndBlock - st.FirstBlock)
		st.Scatter = math.Round((1+math.Log10(span/float64(st.Blocks)))*10) / 10
	}
	return st, nil
}

// IndexStatsOf sums an index's segments; an inactive or never built index
// has none.
func (d *DB) IndexStatsOf(ix *Index) (IndexStats, error) {
	af, segs, err := d.ObjectSegments(ix.Area, KindIndex, ix.Number)
	if err != nil {
		return IndexStats{}, err
	}
	var st IndexStats
	var leaves int64
	for _, s := range segs {
		st.Entries += s.Count
		st.Bytes += s.DataLen
		leaves += s.UsedBlocks
	}
	if leaves == 0 {
		return st, nil
	}
	hdr := int64(blockHeaderTypeI)
	if af.Area.TypeII() {
		hdr = blockHeaderTypeII
	}
	usable := int64(af.BlockSize) - hdr
	// A non-leaf entry is about a leaf entry (compressed key + block
	// pointer), so the fan-out is the number of entries a leaf holds.
	fanout := int64(2)
	if st.Entries > 0 {
		fanout = max(2, usable/max(1, st.Bytes/st.Entries+4))
	}
	st.Levels, st.Blocks = 1, leaves
	for level := leaves; level > 1; {
		level = (level + fanout - 1) / fanout
		st.Blocks += level
		st.Levels++
	}
	st.Util = math.Round(float64(st.Bytes)/float64(st.Blocks*usable)*1000) / 10
	st.Factor = 1.0
	if st.Blocks > 1 {
		st.Factor = math.Round((1+2*(1-st.Util/100))*10) / 10
	}
	return st, nil
}
