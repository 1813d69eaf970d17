package plan

import (
	"fmt"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// minFixedBytes: below this a fixed extent saves nothing worth a line in
// the .st; the variable extent takes the data.
const minFixedBytes = units.MB

// maxExtentsPerArea is OpenEdge's limit on the extents of one area.
const maxExtentsPerArea = openedge.MaxExtentsPerArea

// dirRing hands out the data directories so that the disks share the
// work evenly (seed 000 §6.5, manual striping) whatever the area sizes: a
// fixed extent goes to the directory holding the fewest fixed bytes so far
// (the first of them on a tie), a variable extent to the next directory
// in turn. One turn for both put every fixed extent on the same disk
// whenever the directories were two and each area had one fixed extent and
// one variable one, the common case (dba-review).
type dirRing struct {
	dirs    []string
	fixedKB []int64 // per directory, the fixed extents given so far
	next    int     // the directory the next variable extent goes to
}

func newDirRing(dirs []string) *dirRing {
	return &dirRing{dirs: dirs, fixedKB: make([]int64, len(dirs))}
}

// variable is the directory of a variable extent.
func (r *dirRing) variable() string {
	d := r.dirs[r.next%len(r.dirs)]
	r.next++
	return d
}

// fixed is the directory of a fixed extent of sizeKB.
func (r *dirRing) fixed(sizeKB int64) string {
	best := 0
	for i, kb := range r.fixedKB {
		if kb < r.fixedKB[best] {
			best = i
		}
	}
	r.fixedKB[best] += sizeKB
	return r.dirs[best]
}

// extentUnitKB is the granularity of fixed extent sizes: the .st grammar
// wants a multiple of 16 database blocks (prostrct rounds up otherwise,
// and the plan should say what prostrct will really create).
func extentUnitKB(blockSize int) int64 { return int64(16 * blockSize / 1024) }

// layoutExtents sizes an area's extents: fixed extents holding the space
// the data takes (alloc: whole blocks and clusters, see spaceFor) plus the
// headroom, each at most MaxExtentBytes and all the same size (equal
// stripes), then one variable extent for growth. known=false (an index
// area without an index summary) gives the variable extent only. It
// returns the extents and a sentence for the area's reason.
func layoutExtents(dataBytes, alloc int64, known bool, o Options, ring *dirRing) ([]Extent, string, error) {
	if !known {
		return []Extent{{Path: ring.variable()}}, "size unknown (no index summary: run dbanalys for fixed index extents), so one variable extent", nil
	}
	space := units.FormatIEC(dataBytes)
	if alloc != dataBytes {
		space = fmt.Sprintf("%s of data in %s of whole blocks and clusters", units.FormatIEC(dataBytes), units.FormatIEC(alloc))
	}
	need := alloc + alloc*int64(o.HeadroomPct)/100
	if need < minFixedBytes {
		return []Extent{{Path: ring.variable()}}, fmt.Sprintf("%s with %d%% headroom is under %s, so one variable extent",
			space, o.HeadroomPct, units.FormatIEC(minFixedBytes)), nil
	}
	unit := extentUnitKB(o.BlockSize)
	needKB := ceilDiv(need, 1024)
	maxKB := o.maxExtentKB()
	n := ceilDiv(needKB, maxKB)
	if n >= maxExtentsPerArea {
		return nil, "", fmt.Errorf("%s + %d%% headroom needs %d extents of at most --max-extent %s; an area has at most %d: raise --max-extent",
			space, o.HeadroomPct, n+1, units.FormatIEC(o.MaxExtentBytes), maxExtentsPerArea)
	}
	sizeKB := ceilDiv(ceilDiv(needKB, n), unit) * unit
	var ext []Extent
	for i := int64(0); i < n; i++ {
		ext = append(ext, Extent{Path: ring.fixed(sizeKB), Fixed: true, SizeKB: sizeKB})
	}
	ext = append(ext, Extent{Path: ring.variable()})
	why := fmt.Sprintf("%s + %d%% headroom = %s in %d fixed extent(s) of %s (max %s), then a variable extent",
		space, o.HeadroomPct, units.FormatIEC(need), n,
		units.FormatIEC(sizeKB*1024), units.FormatIEC(maxKB*1024))
	return ext, why, nil
}

// spaceFor estimates the bytes a table's records take in an area: blocks
// are limited both by RPB (records / RPB) and by space (bytes / (B - H)),
// whichever needs more, and an object allocates whole clusters. For its
// indexes: their bytes in blocks, and at least one cluster per index.
func spaceFor(t *table, rpb, dataBPC, indexBPC, blockSize int) (data, index int64) {
	if t.records == 0 && t.bytes == 0 {
		return 0, 0
	}
	usable := int64(blockSize - BlockOverhead)
	blocks := max(ceilDiv(t.records, int64(rpb)), ceilDiv(t.bytes, usable))
	data = ceilDiv(blocks, int64(dataBPC)) * int64(dataBPC) * int64(blockSize)
	ixBlocks := ceilDiv(t.indexBytes, usable)
	ixClusters := max(ceilDiv(ixBlocks, int64(indexBPC)), int64(t.indexes))
	index = ixClusters * int64(indexBPC) * int64(blockSize)
	return data, index
}

// lobSpace is the space LOBs of that many bytes take in the LOB area: their
// chunks fill blocks (less the block header), allocated in whole clusters.
func lobSpace(bytes int64, blockSize int) int64 {
	blocks := ceilDiv(bytes, int64(blockSize-BlockOverhead))
	return ceilDiv(blocks, bpcLOB) * bpcLOB * int64(blockSize)
}

// Space is spaceFor of a placed table, in areas of dataBPC and indexBPC
// blocks a cluster: what the estimate counts a variable extent's growth
// by and calibrate sizes its scratch database's fixed extents by, the way
// the plan sizes the target's.
func (t Placement) Space(blockSize, dataBPC, indexBPC int) (data, index int64) {
	tb := &table{records: t.Records, bytes: t.Bytes, indexes: t.Indexes, indexBytes: t.IndexBytes}
	return spaceFor(tb, max(MinRPB, t.RPB), max(1, dataBPC), max(1, indexBPC), blockSize)
}

// LOBSpace is the space the table's LOBs take in its LOB area (lobSpace).
func (t Placement) LOBSpace(blockSize int) int64 {
	if t.LOBBytes <= 0 {
		return 0
	}
	return lobSpace(t.LOBBytes, blockSize)
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}
