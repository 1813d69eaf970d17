package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
)

// Segment kinds.
const (
	KindRecords = 1 // a table's records
	KindIndex   = 2 // an index's sorted keys
)

const (
	areaMagic  = 0x5241454f // "OEAR"
	segMagic   = 0x4745534f // "OSEG"
	segHdrSize = 64
	flagDead   = 1 // segment freed (table moved, index rebuilt, area truncated)
)

// ErrAreaFull is returned when every extent of an area is fixed and full.
var ErrAreaFull = errors.New("area full")

// Segment is the header of one segment plus where it lives.
type Segment struct {
	Pos        int64 // logical offset in the area
	Kind       int
	Dead       bool
	Object     int // table number or index number
	Count      int64
	DataLen    int64
	Blocks     int64 // reserved blocks, header included (whole clusters in Type II)
	UsedBlocks int64 // blocks actually holding data
	Fragments  int64
	MinRec     int64
	MaxRec     int64
	Aux        int64 // index: number of distinct keys
}

func (s *Segment) encode() []byte {
	b := make([]byte, segHdrSize)
	binary.LittleEndian.PutUint32(b[0:], segMagic)
	b[4] = byte(s.Kind)
	if s.Dead {
		b[5] = flagDead
	}
	binary.LittleEndian.PutUint32(b[8:], uint32(int32(s.Object)))
	binary.LittleEndian.PutUint32(b[12:], uint32(s.Count))
	binary.LittleEndian.PutUint64(b[16:], uint64(s.DataLen))
	binary.LittleEndian.PutUint32(b[24:], uint32(s.Blocks))
	binary.LittleEndian.PutUint32(b[28:], uint32(s.UsedBlocks))
	binary.LittleEndian.PutUint32(b[32:], uint32(s.Fragments))
	binary.LittleEndian.PutUint32(b[36:], uint32(s.MinRec))
	binary.LittleEndian.PutUint32(b[40:], uint32(s.MaxRec))
	binary.LittleEndian.PutUint32(b[44:], uint32(s.Aux))
	binary.LittleEndian.PutUint32(b[60:], Checksum(b[:60]))
	return b
}

func decodeSegment(b []byte, pos int64) (*Segment, error) {
	if binary.LittleEndian.Uint32(b[0:]) != segMagic || binary.LittleEndian.Uint32(b[60:]) != Checksum(b[:60]) {
		return nil, fmt.Errorf("bad segment header at offset %d", pos)
	}
	return &Segment{
		Pos:        pos,
		Kind:       int(b[4]),
		Dead:       b[5]&flagDead != 0,
		Object:     int(int32(binary.LittleEndian.Uint32(b[8:]))),
		Count:      int64(binary.LittleEndian.Uint32(b[12:])),
		DataLen:    int64(binary.LittleEndian.Uint64(b[16:])),
		Blocks:     int64(binary.LittleEndian.Uint32(b[24:])),
		UsedBlocks: int64(binary.LittleEndian.Uint32(b[28:])),
		Fragments:  int64(binary.LittleEndian.Uint32(b[32:])),
		MinRec:     int64(binary.LittleEndian.Uint32(b[36:])),
		MaxRec:     int64(binary.LittleEndian.Uint32(b[40:])),
		Aux:        int64(binary.LittleEndian.Uint32(b[44:])),
	}, nil
}

// AreaFile is an open area: its extents as one logical address space.
// Block 0 is the area header; segments follow from block 1.
type AreaFile struct {
	Area      *Area
	BlockSize int
	files     []*os.File
	starts    []int64 // logical start of each extent
	ends      []int64 // logical end (MaxInt64 for the variable extent)
	// format charges the blocks the variable extent grows by: OpenEdge
	// formats every block it adds to a variable extent, as prostrct create
	// formats a fixed one (docs/oesim.md, "Variable extents grow
	// formatted"). Nil charges nothing (a database being generated).
	format func(bytes int64) error

	cacheMu  sync.Mutex
	cache    []*Segment
	cacheHWM int64
	cacheGen uint64
}

// OpenArea opens (and creates when missing) the extents of a data area.
func OpenArea(a *Area, blockSize int) (*AreaFile, error) {
	if len(a.Extents) == 0 {
		return nil, fmt.Errorf("area %q has no extents", a.Name)
	}
	af := &AreaFile{Area: a, BlockSize: blockSize}
	var off int64
	for _, e := range a.Extents {
		f, err := os.OpenFile(e.Path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			af.Close()
			return nil, err
		}
		af.files = append(af.files, f)
		af.starts = append(af.starts, off)
		if e.Fixed {
			off += e.SizeKB * 1024
			af.ends = append(af.ends, off)
		} else {
			af.ends = append(af.ends, math.MaxInt64)
			off = math.MaxInt64
		}
	}
	return af, nil
}

// Close closes the extent files.
func (af *AreaFile) Close() error {
	var first error
	for _, f := range af.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	af.files = nil
	return first
}

// Capacity is the area's size limit in bytes (MaxInt64 with a variable extent).
func (af *AreaFile) Capacity() int64 { return af.ends[len(af.ends)-1] }

// WriteAt writes at a logical offset, across extents as needed.
func (af *AreaFile) WriteAt(p []byte, off int64) error {
	for len(p) > 0 {
		i := af.extentOf(off)
		if i < 0 {
			return ErrAreaFull
		}
		n := int64(len(p))
		if room := af.ends[i] - off; room < n {
			n = room
		}
		if _, err := af.files[i].WriteAt(p[:n], off-af.starts[i]); err != nil {
			return err
		}
		p, off = p[n:], off+n
	}
	return nil
}

// ReadAt reads at a logical offset, across extents as needed. Bytes past
// the end of an extent file (never written) read as zeros.
func (af *AreaFile) ReadAt(p []byte, off int64) error {
	for len(p) > 0 {
		i := af.extentOf(off)
		if i < 0 {
			return io.ErrUnexpectedEOF
		}
		n := int64(len(p))
		if room := af.ends[i] - off; room < n {
			n = room
		}
		m, err := af.files[i].ReadAt(p[:n], off-af.starts[i])
		if err == io.EOF {
			clear(p[m:n])
		} else if err != nil {
			return err
		}
		p, off = p[n:], off+n
	}
	return nil
}

func (af *AreaFile) extentOf(off int64) int {
	for i := range af.starts {
		if off >= af.starts[i] && off < af.ends[i] {
			return i
		}
	}
	return -1
}

type areaHeader struct {
	HWM      int64 // logical offset of the first unused block
	Segments int64
	// Gen counts the changes other than appends (segments freed, area
	// truncated), so that a cached segment list knows when to rescan.
	Gen uint64
}

const areaHdrSize = 40

func (af *AreaFile) readHeader() (areaHeader, error) {
	b := make([]byte, areaHdrSize)
	if err := af.ReadAt(b, 0); err != nil {
		return areaHeader{}, err
	}
	if binary.LittleEndian.Uint32(b) == 0 { // fresh area
		return areaHeader{HWM: int64(af.BlockSize)}, nil
	}
	if binary.LittleEndian.Uint32(b) != areaMagic || binary.LittleEndian.Uint32(b[36:]) != Checksum(b[:36]) {
		return areaHeader{}, fmt.Errorf("area %q: bad area header in %s", af.Area.Name, af.Area.Extents[0].Path)
	}
	return areaHeader{HWM: int64(binary.LittleEndian.Uint64(b[8:])), Segments: int64(binary.LittleEndian.Uint64(b[16:])),
		Gen: binary.LittleEndian.Uint64(b[24:])}, nil
}

func (af *AreaFile) writeHeader(h areaHeader) error {
	b := make([]byte, areaHdrSize)
	binary.LittleEndian.PutUint32(b, areaMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(af.Area.Number))
	binary.LittleEndian.PutUint64(b[8:], uint64(h.HWM))
	binary.LittleEndian.PutUint64(b[16:], uint64(h.Segments))
	binary.LittleEndian.PutUint64(b[24:], h.Gen)
	binary.LittleEndian.PutUint32(b[32:], uint32(af.BlockSize))
	binary.LittleEndian.PutUint32(b[36:], Checksum(b[:36]))
	return af.WriteAt(b, 0)
}

// lock takes the area's allocation lock (an flock on its first extent, on
// a descriptor of its own so that goroutines exclude each other too).
func (af *AreaFile) lock(exclusive bool) (func(), error) {
	return FileLock(af.Area.Extents[0].Path, exclusive)
}

// AppendSegment writes one segment (header + data, reserving seg.Blocks
// blocks) at the high-water mark and then moves the mark past it. The data
// is written before the header that commits it.
func (af *AreaFile) AppendSegment(seg *Segment, data []byte) error {
	buf := make([]byte, SegmentHeaderSize, SegmentHeaderSize+len(data))
	return af.AppendSegmentBuffer(seg, append(buf, data...))
}

// SegmentHeaderSize is the room a segment buffer keeps for its header.
const SegmentHeaderSize = segHdrSize

// AppendSegmentBuffer is AppendSegment for a buffer whose first
// SegmentHeaderSize bytes are free for the header: the writers build
// their segments that way so that the data is never copied again.
func (af *AreaFile) AppendSegmentBuffer(seg *Segment, buf []byte) error {
	unlock, err := af.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	h, err := af.readHeader()
	if err != nil {
		return err
	}
	size := seg.Blocks * int64(af.BlockSize)
	if h.HWM+size > af.Capacity() || h.HWM+size < h.HWM {
		return ErrAreaFull
	}
	seg.Pos = h.HWM
	seg.DataLen = int64(len(buf) - segHdrSize)
	copy(buf, seg.encode())
	// The extent grows before the data lands in it: the file's length up
	// to here is what has been formatted, which the data must not hide.
	if err := af.extendTo(h.HWM + size); err != nil {
		return err
	}
	if err := af.WriteAt(buf, seg.Pos); err != nil {
		return err
	}
	h.HWM += size
	h.Segments++
	return af.writeHeader(h)
}

// extendTo makes the variable extent at least as long as the logical end,
// so that file sizes show the blocks allocated (the tail is a sparse
// hole), and charges the blocks it adds as formatted, once each: the
// file's length is how far the extent has been formatted.
func (af *AreaFile) extendTo(end int64) error {
	i := af.extentOf(end - 1)
	if i < 0 || af.ends[i] != math.MaxInt64 {
		return nil
	}
	want := end - af.starts[i]
	st, err := af.files[i].Stat()
	if err != nil {
		return err
	}
	if st.Size() >= want {
		return nil
	}
	if af.format != nil {
		if err := af.format(want - st.Size()); err != nil {
			return err
		}
	}
	return af.files[i].Truncate(want)
}

// Segments lists the committed segments (dead ones included) up to the
// high-water mark. The list is cached and extended incrementally: segments
// are only ever appended, and any other change bumps the header's Gen.
// The result must not be modified.
func (af *AreaFile) Segments() ([]*Segment, error) {
	unlock, err := af.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return af.segmentsLocked()
}

// segmentsLocked is Segments under a lock the caller holds.
func (af *AreaFile) segmentsLocked() ([]*Segment, error) {
	h, err := af.readHeader()
	if err != nil {
		return nil, err
	}
	af.cacheMu.Lock()
	defer af.cacheMu.Unlock()
	if h.Gen != af.cacheGen || h.HWM < af.cacheHWM || af.cacheHWM == 0 {
		af.cache, af.cacheHWM, af.cacheGen = nil, int64(af.BlockSize), h.Gen
	}
	b := make([]byte, segHdrSize)
	for pos := af.cacheHWM; pos < h.HWM; {
		if err := af.ReadAt(b, pos); err != nil {
			return nil, fmt.Errorf("area %q: %w", af.Area.Name, err)
		}
		s, err := decodeSegment(b, pos)
		if err != nil {
			return nil, fmt.Errorf("area %q: %w", af.Area.Name, err)
		}
		if s.Blocks <= 0 {
			return nil, fmt.Errorf("area %q: empty segment at offset %d", af.Area.Name, pos)
		}
		af.cache = append(af.cache, s)
		pos += s.Blocks * int64(af.BlockSize)
		af.cacheHWM = pos
	}
	return af.cache[:len(af.cache):len(af.cache)], nil
}

// HighWater is the number of blocks below the high-water mark.
func (af *AreaFile) HighWater() (int64, error) {
	h, err := af.readHeader()
	return h.HWM / int64(af.BlockSize), err
}

// ReadData reads a segment's data (after its header).
func (af *AreaFile) ReadData(s *Segment, buf []byte) ([]byte, error) {
	if int64(cap(buf)) < s.DataLen {
		buf = make([]byte, s.DataLen)
	}
	buf = buf[:s.DataLen]
	return buf, af.ReadAt(buf, s.Pos+segHdrSize)
}

// Free marks the segments of one object dead (records of a table or keys
// of an index), under the allocation lock. The space stays below the
// high-water mark, as freed clusters do until the area is truncated.
func (af *AreaFile) Free(kind, object int) error {
	unlock, err := af.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	segs, err := af.segmentsLocked()
	if err != nil {
		return err
	}
	freed := false
	for _, s := range segs {
		if s.Kind == kind && s.Object == object && !s.Dead {
			d := *s
			d.Dead = true
			if err := af.WriteAt(d.encode(), d.Pos); err != nil {
				return err
			}
			s.Dead = true // the cached entry, so that this process need not rescan
			freed = true
		}
	}
	if !freed {
		return nil
	}
	h, err := af.readHeader()
	if err != nil {
		return err
	}
	h.Gen++
	if err := af.writeHeader(h); err != nil {
		return err
	}
	// The cache was current under this lock and now knows the change.
	af.cacheMu.Lock()
	if af.cacheHWM == h.HWM {
		af.cacheGen = h.Gen
	}
	af.cacheMu.Unlock()
	return nil
}

// Truncate empties the area: high-water mark back to block 1, extents
// back to their created size.
func (af *AreaFile) Truncate() error {
	unlock, err := af.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := af.readHeader()
	if err != nil {
		return err
	}
	for i, e := range af.Area.Extents {
		size := int64(0)
		if e.Fixed {
			size = e.SizeKB * 1024
		}
		if err := af.files[i].Truncate(0); err != nil {
			return err
		}
		if err := af.files[i].Truncate(size); err != nil {
			return err
		}
		// A fixed extent keeps its blocks, as OpenEdge's does: emptied
		// above, allocated again here.
		if err := allocate(af.files[i], 0, size); err != nil {
			return err
		}
	}
	return af.writeHeader(areaHeader{HWM: int64(af.BlockSize), Gen: old.Gen + 1})
}

// Sync flushes every extent to stable storage.
func (af *AreaFile) Sync() error {
	for _, f := range af.files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// Format creates the area's extent files: fixed extents at their size,
// their blocks allocated (AllocateFixed), the variable one empty, and the
// header block.
func Format(a *Area, blockSize int, room Room) error {
	af, err := OpenArea(a, blockSize)
	if err != nil {
		return err
	}
	defer af.Close()
	for i, e := range a.Extents {
		if e.Fixed {
			err = AllocateFixed(af.files[i], e.SizeKB*1024, room)
		} else if i == 0 {
			err = af.files[i].Truncate(int64(blockSize))
		}
		if err != nil {
			return err
		}
	}
	return af.writeHeader(areaHeader{HWM: int64(blockSize)})
}

// Changes is what the area's header says of every change ever made to its
// contents: the segments appended since its last truncate and the
// generation the frees and truncates bump. The pair never repeats (a
// truncate resets the segments but bumps the generation), and reading the
// area changes neither.
func (af *AreaFile) Changes() (segments int64, gen uint64, err error) {
	h, err := af.readHeader()
	return h.Segments, h.Gen, err
}
