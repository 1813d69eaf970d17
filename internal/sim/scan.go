package sim

import "github.com/oedl/oedl/internal/sim/store"

// What an analysis reads, area by area (docs/oesim.md, "Virtual disk"):
//
//   - A Type I area holds the rows of several tables and their indexes in
//     shared blocks: which blocks are a table's is only known by reading
//     them, so every analysis reads the area whole, up to its high-water
//     mark (KB P122741: one pass, each block's records noted as it is
//     read).
//   - In a Type II area a cluster holds one object (Database Essentials,
//     "Clusters"; reference/performance-model.md §3.2), and an object's
//     clusters are chained from its object block: a tabanalys reads each
//     table's clusters, whole, and not the indexes' (KB P122741 has the
//     index blocks examined for ixanalys and dbanalys only); an ixanalys
//     reads the indexes' clusters. Neither reads the clusters above the
//     high-water mark nor the formatted, never used blocks of a fixed
//     extent.
//   - A dbanalys counts every block of every area by type (its BLOCK
//     ANALYSIS: record, index, object and free blocks below the high-water
//     mark): it reads every area up to its high-water mark.
//
// oesim's segments are whole clusters in a Type II area (store.Segment's
// Blocks), so a table's clusters are the Blocks of its segments.
func scanBlocks(db *store.DB, kind string) (int64, error) {
	var blocks int64
	for _, ar := range db.Ctl.Areas {
		if ar.Type != 'd' {
			continue
		}
		if kind == "dbanalys" || !ar.TypeII() {
			af, err := db.Area(ar.Number)
			if err != nil {
				return 0, err
			}
			hw, err := af.HighWater()
			if err != nil {
				return 0, err
			}
			blocks += hw
			continue
		}
		want := store.KindRecords
		if kind == "ixanalys" {
			want = store.KindIndex
		}
		af, err := db.Area(ar.Number)
		if err != nil {
			return 0, err
		}
		segs, err := af.Segments()
		if err != nil {
			return 0, err
		}
		for _, s := range segs {
			if !s.Dead && s.Kind == want {
				blocks += s.Blocks
			}
		}
	}
	return blocks, nil
}

// chargeScan charges what an analysis of kind reads, once, in sequence.
func chargeScan(env *environment, db *store.DB, kind string) error {
	blocks, err := scanBlocks(db, kind)
	if err != nil {
		return err
	}
	return env.seqRead(blocks * int64(db.Ctl.BlockSize))
}
