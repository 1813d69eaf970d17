package sim

import (
	"bytes"
	"sort"

	"github.com/oedl/oedl/internal/sim/store"
)

// dumpspecified reads its range the way OpenEdge does, through an index
// bracket: the entries of an index led by the field whose key is in the
// range, then only the record segments holding those records. Its cost is
// the slice's, not the table's, which is what makes a dumpspecified slice
// a fair sample of a large table (oedl calibrate cuts one).

// bracketRead returns the records of t whose field (the leading component
// of ix) satisfies conds, and their order in ix. ok is false when the index
// cannot serve the range: inactive, a word index, a descending or
// variable-width leading component (character), or a condition value of
// another type; the caller then scans the table.
func bracketRead(db *store.DB, t *store.Table, ix *store.Index, fpos int, conds []cond, env *environment) (img *tableImage, order []int32, ok bool, err error) {
	if ix == nil || !ix.Active || ix.Word || len(ix.Fields) == 0 || ix.Fields[0].Pos != fpos || ix.Fields[0].Descending {
		return nil, nil, false, nil
	}
	bounds := make([][]byte, len(conds))
	for i, c := range conds {
		enc, err := store.AppendValue(nil, c.val)
		if err != nil || len(enc) == 0 {
			return nil, nil, false, nil
		}
		switch enc[0] {
		case 1, 3, 6: // integer, decimal, date: fixed-width key images
		default:
			return nil, nil, false, nil
		}
		bounds[i] = store.AppendKeyComponent(nil, enc, false)
	}
	// The entries in range, in index order. Entries are sorted, so the walk
	// stops at the first key above an upper bound.
	iaf, isegs, err := db.ObjectSegments(ix.Area, store.KindIndex, ix.Number)
	if err != nil {
		return nil, nil, false, err
	}
	var recids []int64
	stop := errStopWalk{}
	var buf []byte
walk:
	for _, s := range isegs {
		if buf, err = iaf.ReadData(s, buf); err != nil {
			return nil, nil, false, err
		}
		if err := env.seqRead(s.UsedBlocks * int64(iaf.BlockSize)); err != nil {
			return nil, nil, false, err
		}
		err := store.ForEachEntry(buf, func(key []byte, recid int64) error {
			if len(key) == 0 || key[0] != 0x01 { // the unknown value matches no condition
				return nil
			}
			for i, c := range conds {
				w := len(bounds[i])
				if len(key) < w {
					return nil
				}
				cmp := bytes.Compare(key[:w], bounds[i])
				if cmp > 0 && (c.op == "LE" || c.op == "LT" || c.op == "EQ") || cmp == 0 && c.op == "LT" {
					return stop
				}
				if !c.matchCmp(cmp) {
					return nil
				}
			}
			recids = append(recids, recid)
			return nil
		})
		switch {
		case err == stop:
			break walk
		case err != nil:
			return nil, nil, false, err
		}
	}
	// The records: only the segments whose record ids hold one of them.
	rank := make(map[int64]int32, len(recids))
	for i, r := range recids {
		rank[r] = int32(i)
	}
	sorted := append([]int64(nil), recids...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	af, segs, err := db.ObjectSegments(t.Area, store.KindRecords, t.Number)
	if err != nil {
		return nil, nil, false, err
	}
	img = &tableImage{}
	imageGeometry(img, af)
	var pos []int32
	for _, s := range segs {
		lo, hi := store.RecidRange(af, s)
		if k := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= lo }); k == len(sorted) || sorted[k] >= hi {
			continue
		}
		data, err := af.ReadData(s, nil)
		if err != nil {
			return nil, nil, false, err
		}
		img.bytes += int64(len(data))
		ids := store.NewRecids(af, s)
		err = store.ForEachFrame(data, func(rec []byte, crc uint32) error {
			id := ids.Next(len(rec))
			if r, in := rank[id]; in {
				img.recs = append(img.recs, rec)
				img.crcs = append(img.crcs, crc)
				img.recids = append(img.recids, id)
				pos = append(pos, r)
			}
			return nil
		})
		if err != nil {
			return nil, nil, false, err
		}
	}
	// Index order: position k of order is the record with the k-th entry.
	order = make([]int32, len(pos))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return pos[order[a]] < pos[order[b]] })
	// The records are fetched in index order, each from its block.
	if err := chargeFetch(env, img, order); err != nil {
		return nil, nil, false, err
	}
	return img, order, true, nil
}

type errStopWalk struct{}

func (errStopWalk) Error() string { return "stop" }

// matchCmp applies the operator to a comparison of the value with the
// condition's (-1, 0, 1).
func (c cond) matchCmp(cmp int) bool {
	switch c.op {
	case "EQ":
		return cmp == 0
	case "GT":
		return cmp > 0
	case "GE":
		return cmp >= 0
	case "LT":
		return cmp < 0
	}
	return cmp <= 0
}
