package store

import (
	"encoding/binary"
	"errors"
	"github.com/oedl/oedl/internal/sim/msg"
)

// Block accounting. A block loses a header (16 bytes in a Type I area, 64
// in Type II as documented) and each record costs its bytes plus a 2-byte
// directory entry; a block holds at most RPB records. A record larger than
// the free space is split into fragments over several blocks.
const (
	blockHeaderTypeI  = 16
	blockHeaderTypeII = 64
	// recordOverhead is what a record costs in a block beyond its bytes:
	// OpenEdge's directory entry and record header, oesim's length and
	// CRC framing. It must be at least the framing so that the bytes
	// written always fit in the blocks accounted.
	recordOverhead = RecordFrameOverhead
	segmentTarget  = 256 << 10 // bytes of records per segment (one commit), before clusters round it up
)

// RecordFrameOverhead is the framing per stored record (length + CRC).
const RecordFrameOverhead = 8

// packer accounts records into blocks.
type packer struct {
	usable, rpb       int64
	blocks            int64 // blocks started so far (the current one included)
	curBytes, curRecs int64
	fragments         int64
}

func newPacker(a *Area, blockSize int) packer {
	hdr := int64(blockHeaderTypeI)
	if a.TypeII() {
		hdr = blockHeaderTypeII
	}
	rpb := int64(a.RPB)
	if rpb <= 0 {
		rpb = 64
	}
	// The segment's first block also holds the segment header.
	return packer{usable: int64(blockSize) - hdr, rpb: rpb, blocks: 1, curBytes: segHdrSize}
}

// blocksIfAdded is the block count after adding one record of size n.
func (p *packer) add(n int64) {
	cost := n + recordOverhead
	if p.curRecs >= p.rpb || p.curBytes+cost > p.usable {
		if p.curBytes > 0 || p.curRecs > 0 {
			p.blocks++
		}
		p.curBytes, p.curRecs = 0, 0
	}
	for cost > p.usable { // fragments fill whole blocks
		p.blocks++
		p.fragments++
		cost -= p.usable
	}
	p.curBytes += cost
	p.curRecs++
	p.fragments++
}

// RecordWriter appends one table's records to its area in segments of
// about 256 KB (rounded up to whole clusters in a Type II area). Records
// become durable segment by segment.
type RecordWriter struct {
	af       *AreaFile
	table    int
	chunk    int64 // target blocks per segment
	buf      []byte
	pk       packer
	count    int64
	min, max int64
	written  int64 // records committed
	bytes    int64 // record bytes committed
	// BeforeFlush, when set, is called with the size of each segment
	// about to be written; an error stops the write (a full disk).
	BeforeFlush func(bytes int64) error
}

// NewRecordWriter starts writing records of table into af.
func NewRecordWriter(af *AreaFile, table int) *RecordWriter {
	bs := int64(af.BlockSize)
	chunk := (segmentTarget + bs - 1) / bs
	if af.Area.TypeII() {
		bpc := int64(af.Area.BPC)
		chunk = (chunk + bpc - 1) / bpc * bpc
	}
	w := &RecordWriter{af: af, table: table, chunk: chunk}
	w.reset()
	return w
}

func (w *RecordWriter) reset() {
	if cap(w.buf) == 0 {
		w.buf = make([]byte, 0, segmentTarget+segmentTarget/4)
	}
	w.buf = append(w.buf[:0], make([]byte, SegmentHeaderSize)...)
	w.pk = newPacker(w.af.Area, w.af.BlockSize)
	w.count, w.min, w.max = 0, 0, 0
}

// Add appends one encoded record.
func (w *RecordWriter) Add(rec []byte) error {
	n := int64(len(rec))
	if w.count > 0 {
		probe := w.pk
		probe.add(n)
		if probe.blocks > w.chunk {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	w.pk.add(n)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(n))
	w.buf = append(w.buf, rec...)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, Checksum(rec))
	if w.count == 0 || n < w.min {
		w.min = n
	}
	if n > w.max {
		w.max = n
	}
	w.count++
	return nil
}

// AddFrame appends a record already framed as length | bytes | CRC (what a
// .bd carries), checking nothing: the caller verified it.
func (w *RecordWriter) AddFrame(rec []byte, crc uint32) error {
	n := int64(len(rec))
	if w.count > 0 {
		probe := w.pk
		probe.add(n)
		if probe.blocks > w.chunk {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	w.pk.add(n)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(n))
	w.buf = append(w.buf, rec...)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, crc)
	if w.count == 0 || n < w.min {
		w.min = n
	}
	if n > w.max {
		w.max = n
	}
	w.count++
	return nil
}

// Flush commits the records added so far as one segment.
func (w *RecordWriter) Flush() error {
	if w.count == 0 {
		return nil
	}
	used := w.pk.blocks
	reserved := used
	if w.af.Area.TypeII() {
		bpc := int64(w.af.Area.BPC)
		reserved = (used + bpc - 1) / bpc * bpc
	}
	if w.BeforeFlush != nil {
		if err := w.BeforeFlush(int64(len(w.buf) - SegmentHeaderSize)); err != nil {
			return err
		}
	}
	seg := &Segment{Kind: KindRecords, Object: w.table, Count: w.count, Blocks: reserved, UsedBlocks: used,
		Fragments: w.pk.fragments, MinRec: w.min, MaxRec: w.max}
	if err := w.af.AppendSegmentBuffer(seg, w.buf); err != nil {
		if errors.Is(err, ErrAreaFull) {
			return msg.E("oesim.area.full", w.af.Area.Name, w.af.Area.Number)
		}
		return err
	}
	w.written += w.count
	w.bytes += int64(len(w.buf)-SegmentHeaderSize) - w.count*RecordFrameOverhead
	w.reset()
	return nil
}

// Written is the number of records committed.
func (w *RecordWriter) Written() int64 { return w.written }

// Pending is the number of records added but not yet committed.
func (w *RecordWriter) Pending() int64 { return w.count }

// ForEachFrame walks the records of a segment's data: fn gets the record
// bytes and its stored CRC.
func ForEachFrame(data []byte, fn func(rec []byte, crc uint32) error) error {
	for off := 0; off < len(data); {
		if len(data)-off < 4 {
			return errShortRecord
		}
		n := int(binary.LittleEndian.Uint32(data[off:]))
		if len(data)-off < 8+n {
			return errShortRecord
		}
		rec := data[off+4 : off+4+n]
		if err := fn(rec, binary.LittleEndian.Uint32(data[off+4+n:])); err != nil {
			return err
		}
		off += 8 + n
	}
	return nil
}
