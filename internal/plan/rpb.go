package plan

import "fmt"

// BlockOverhead (H) is the part of a data block that records cannot use.
// The documented Type II block header is 64 bytes (80 in the first and last
// block of a cluster); a few free bytes always stay behind because records
// do not pack exactly. Koufalis uses about 150, forum practice 100; the
// estimator of performance-model §3.1 settles on 100.
const BlockOverhead = 100

// rowDirEntry is the per-record directory entry of a data block (the +2 in
// the documented formula; the mean size from tabanalys already includes
// the record's own overhead).
const rowDirEntry = 2

// MaxRPB and MinRPB bound records per block.
const (
	MinRPB = 1
	MaxRPB = 256
)

// RPB is the records-per-block setting for records of the given mean size:
//
//	RPB = (B − H) / (mean + 2), then the next power of two, within 1..256
//
// Rounding goes up: since 10.1B rowids are 64-bit, so unused row slots cost
// nothing, while a lower RPB leaves the rest of every block empty for good.
// A table whose records grow after they are created (fragmentation) is the
// exception a DBA may round down for; the reason text says so.
func RPB(blockSize int, mean int64) int {
	if mean < 0 {
		mean = 0
	}
	usable := int64(blockSize - BlockOverhead)
	per := mean + rowDirEntry
	rpb := MinRPB
	// Smallest power of two p with p*per >= usable, i.e. p >= raw.
	for rpb < MaxRPB && int64(rpb)*per < usable {
		rpb *= 2
	}
	return rpb
}

// rawRPB is the unrounded quotient, for the reason text.
func rawRPB(blockSize int, mean int64) float64 {
	return float64(blockSize-BlockOverhead) / float64(mean+rowDirEntry)
}

// DefaultRPB is what OpenEdge itself uses when a .st gives none: 64 on 8K
// blocks, 32 on smaller ones. Empty tables, whose mean size is unknown,
// get it.
func DefaultRPB(blockSize int) int {
	if blockSize >= 8192 {
		return 64
	}
	return 32
}

// rpbReason explains an RPB in one line.
func rpbReason(blockSize int, mean int64, rpb int) string {
	raw := rawRPB(blockSize, mean)
	how := "next power of two"
	switch {
	case raw > MaxRPB:
		how = "capped at 256"
	case raw < MinRPB:
		how = "one record per block at least"
	}
	return fmt.Sprintf("RPB %d from mean %d B: (%d-%d)/(%d+2) = %.1f, %s",
		rpb, mean, blockSize, BlockOverhead, mean, raw, how)
}
