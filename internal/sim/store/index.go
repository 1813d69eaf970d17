package store

import (
	"encoding/binary"
	"errors"
	"github.com/oedl/oedl/internal/sim/msg"
)

// An index is stored as the sorted sequence of its entries (key, recid),
// prefix compressed as B-tree leaf blocks are: each entry is the length of
// the prefix it shares with the previous key, the rest of the key, and the
// record id. Leaf blocks are filled to the packing factor (-pfactor, 100
// by default at build time); the levels and the non-leaf blocks above them
// are derived from the fan-out, so that tabanalys can print Blocks, Levels
// and % Util from what idxbuild really wrote.

// IndexWriter appends one index's sorted entries to its area.
type IndexWriter struct {
	af       *AreaFile
	index    int
	fill     int64 // usable bytes per leaf block at the packing factor
	chunk    int64 // target blocks per segment
	buf      []byte
	prev     []byte
	blocks   int64
	cur      int64
	count    int64
	distinct int64
	Entries  int64
	Written  int64 // bytes of the blocks the committed segments hold
}

// NewIndexWriter starts writing index number index into af; pfactor is the
// packing factor in percent (0 = 100).
func NewIndexWriter(af *AreaFile, index, pfactor int) *IndexWriter {
	if pfactor <= 0 || pfactor > 100 {
		pfactor = 100
	}
	hdr := int64(blockHeaderTypeI)
	if af.Area.TypeII() {
		hdr = blockHeaderTypeII
	}
	bs := int64(af.BlockSize)
	chunk := (segmentTarget + bs - 1) / bs
	if af.Area.TypeII() {
		bpc := int64(af.Area.BPC)
		chunk = (chunk + bpc - 1) / bpc * bpc
	}
	w := &IndexWriter{af: af, index: index, fill: (bs - hdr) * int64(pfactor) / 100, chunk: chunk}
	w.reset()
	return w
}

func (w *IndexWriter) reset() {
	w.buf, w.prev = w.buf[:0], w.prev[:0]
	w.blocks, w.cur, w.count, w.distinct = 1, segHdrSize, 0, 0
}

// Add appends one entry; keys must come in ascending order.
func (w *IndexWriter) Add(key []byte, recid int64) error {
	shared := 0
	for shared < len(key) && shared < len(w.prev) && key[shared] == w.prev[shared] {
		shared++
	}
	var tmp [3 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(tmp[:], uint64(shared))
	n += binary.PutUvarint(tmp[n:], uint64(len(key)-shared))
	m := binary.PutUvarint(tmp[n:], uint64(recid))
	cost := int64(n + len(key) - shared + m)
	if w.cur+cost > w.fill {
		if w.blocks+1 > w.chunk && w.count > 0 {
			if err := w.Flush(); err != nil {
				return err
			}
			return w.Add(key, recid)
		}
		w.blocks++
		w.cur = 0
	}
	w.cur += cost
	w.buf = append(w.buf, tmp[:n]...)
	w.buf = append(w.buf, key[shared:]...)
	w.buf = append(w.buf, tmp[n:n+m]...)
	if w.count == 0 || shared != len(key) || len(key) != len(w.prev) {
		w.distinct++
	}
	w.prev = append(w.prev[:0], key...)
	w.count++
	w.Entries++
	return nil
}

// Flush commits the pending entries as one segment.
func (w *IndexWriter) Flush() error {
	if w.count == 0 {
		return nil
	}
	reserved := w.blocks
	if w.af.Area.TypeII() {
		bpc := int64(w.af.Area.BPC)
		reserved = (reserved + bpc - 1) / bpc * bpc
	}
	seg := &Segment{Kind: KindIndex, Object: w.index, Count: w.count, Blocks: reserved, UsedBlocks: w.blocks, Aux: w.distinct}
	if err := w.af.AppendSegment(seg, w.buf); err != nil {
		if errors.Is(err, ErrAreaFull) {
			return msg.E("oesim.area.full", w.af.Area.Name, w.af.Area.Number)
		}
		return err
	}
	w.Written += w.blocks * int64(w.af.BlockSize)
	w.reset()
	return nil
}

// ForEachEntry walks an index segment's entries in order; key is valid
// only during the call.
func ForEachEntry(data []byte, fn func(key []byte, recid int64) error) error {
	var key []byte
	for off := 0; off < len(data); {
		shared, n := binary.Uvarint(data[off:])
		if n <= 0 {
			return errShortRecord
		}
		off += n
		rest, n := binary.Uvarint(data[off:])
		if n <= 0 || uint64(len(data)-off-n) < rest || shared > uint64(len(key)) {
			return errShortRecord
		}
		off += n
		key = append(key[:shared], data[off:off+int(rest)]...)
		off += int(rest)
		recid, n := binary.Uvarint(data[off:])
		if n <= 0 {
			return errShortRecord
		}
		off += n
		if err := fn(key, int64(recid)); err != nil {
			return err
		}
	}
	return nil
}
