package openedge

import "math"

// The writes of a binary load beyond its data, as OpenEdge documents them
// (docs/oesim.md, "Before-image writes"; the sources are listed there).
// oesim charges them to its virtual disk as a load runs (LoadLog) and the
// estimate prices them in bulk (LoadLogWrites): one model, so that what a
// mode or a helper process gains in the simulator is what the estimate
// weighs.
//
//   - Every record a load creates is first noted in the before-image (BI)
//     file: "the engine must always record a change in the BI file before
//     it can record a change in the database". A note is the record plus
//     BINoteOverhead; -i writes fewer notes (NoIntegrityNoteShare).
//   - Crash-safe, the BI is written reliably: a process whose BI buffer
//     is full waits while it is written, unless a before-image writer
//     (probiw) writes the filled buffers in the background ("client and
//     server processes rarely have to wait"). -r and -i make the BI writes
//     buffered: the OS writes them behind.
//   - When the notes fill a BI cluster a checkpoint makes the database
//     blocks those notes changed reach the disk, and the BI is synced.
//     Page writers (proapw) write the modified blocks in the background,
//     so "fewer modified database buffers have to be written to disk at
//     every checkpoint"; without them the loader writes the modified
//     blocks still in its buffer pool (-B) and waits for them: one waited
//     write of those blocks (they are the area's newest, next to each
//     other, and the kernel merges them). A larger cluster means fewer
//     checkpoints. -r and -i skip the syncs.
//   - A load that ends commits: its last BI block is forced out and (as
//     oesim syncs a table before the next one begins) its modified blocks
//     are written as at a checkpoint.

// Integrity is how a load's changes are protected against a crash.
type Integrity int

const (
	// CrashSafe: reliable BI writes and checkpoint syncs (no -i or -r).
	CrashSafe Integrity = iota
	// BufferedBI: -r, the BI buffered by the OS and nothing synced.
	BufferedBI
	// NoIntegrity: -i, fewer notes, buffered, nothing synced.
	NoIntegrity
)

// BINoteOverhead is what a record-create note holds beyond the record
// (note header, area, row id): an assumption, no documented figure.
const BINoteOverhead = 40

// NoIntegrityNoteShare is the share of the notes -i still writes ("fewer
// data and before-image blocks are written", KB P16747; no figure is
// published: performance-model.md's φ_BI ≈ 0.2 with -i, an assumption).
const NoIntegrityNoteShare = 0.2

// Documented defaults: an 8 KiB BI block and 512 KiB cluster (TRUNCATE
// BI), -B 20 single-user and max(3000, 8 x users) served ("Blocks in
// Database Buffers").
const (
	DefaultBIBlockBytes     = 8 << 10
	DefaultBIClusterBytes   = 512 << 10
	DefaultBuffersSingle    = 20
	DefaultBuffersMultiUser = 3000
)

// LoadLogging is what decides a load's extra writes: its integrity, the
// helper processes of the broker serving the database, the BI and data
// block sizes, the BI cluster and the buffer pool.
type LoadLogging struct {
	Integrity      Integrity
	BIW            bool  // a before-image writer runs (probiw)
	APW            bool  // at least one page writer runs (proapw)
	BlockBytes     int64 // database block
	BIBlockBytes   int64
	BIClusterBytes int64
	Buffers        int64 // -B
}

// withDefaults fills what is not set with OpenEdge's defaults.
func (c LoadLogging) withDefaults() LoadLogging {
	if c.BlockBytes <= 0 {
		c.BlockBytes = 8192
	}
	if c.BIBlockBytes <= 0 {
		c.BIBlockBytes = DefaultBIBlockBytes
	}
	if c.BIClusterBytes <= 0 {
		c.BIClusterBytes = DefaultBIClusterBytes
	}
	if c.Buffers <= 0 {
		c.Buffers = DefaultBuffersSingle
	}
	return c
}

func (c LoadLogging) noteShare() float64 {
	if c.Integrity == NoIntegrity {
		return NoIntegrityNoteShare
	}
	return 1
}

// NoteBytes is the before-image notes a load in this mode writes for
// records of bytes in all: the record plus BINoteOverhead each, the share
// its integrity writes. LoadLog and LoadLogWrites count them by it, and
// the true lower bound (internal/truebound) takes it as the least BI any
// load writes.
func (c LoadLogging) NoteBytes(records, bytes float64) float64 {
	return (bytes + records*BINoteOverhead) * c.noteShare()
}

// waitsForBI: the loader itself writes its full BI blocks and waits.
func (c LoadLogging) waitsForBI() bool { return c.Integrity == CrashSafe && !c.BIW }

// flushesData: the loader writes its modified blocks at checkpoints and
// waits for them (crash-safe, no page writer).
func (c LoadLogging) flushesData() bool { return c.Integrity == CrashSafe && !c.APW }

// DiskWrites is where a load's writes go: Sequential bytes written behind
// (the OS or a helper process writes them), Random writes of size bytes
// the loader waits for one by one.
type DiskWrites interface {
	Sequential(bytes int64) error
	Random(n, size int64) error
}

// LoadLog is one load call's BI and checkpoint writes as it goes: Notes
// for each record before its data, Data for each run of blocks written,
// End when a table is committed. The data given to Data is written by it
// too (behind, or at a checkpoint when the loader flushes it itself).
type LoadLog struct {
	cfg   LoadLogging
	disk  DiskWrites
	notes float64 // note bytes not yet in a full BI block
	since float64 // note bytes since the last checkpoint
	dirty int64   // modified data bytes in the buffer pool (flushesData only)
}

// NewLoadLog starts the log of one load call.
func NewLoadLog(c LoadLogging, disk DiskWrites) *LoadLog {
	return &LoadLog{cfg: c.withDefaults(), disk: disk}
}

// Notes records the notes of records creating bytes: every full BI block
// is written, every full cluster is a checkpoint.
func (l *LoadLog) Notes(records, bytes int64) error {
	add := l.cfg.NoteBytes(float64(records), float64(bytes))
	l.notes += add
	l.since += add
	if full := int64(l.notes / float64(l.cfg.BIBlockBytes)); full > 0 {
		l.notes -= float64(full * l.cfg.BIBlockBytes)
		if err := l.writeBI(full); err != nil {
			return err
		}
	}
	for cluster := float64(l.cfg.BIClusterBytes); l.since >= cluster; l.since -= cluster {
		if err := l.checkpoint(); err != nil {
			return err
		}
	}
	return nil
}

// Data writes bytes of data blocks: behind, or into the buffer pool when
// the loader flushes its own blocks, the oldest going out behind when the
// pool is full (an evicted block is written without a sync).
func (l *LoadLog) Data(bytes int64) error {
	if !l.cfg.flushesData() {
		return l.disk.Sequential(bytes)
	}
	l.dirty += bytes
	if pool := l.cfg.Buffers * l.cfg.BlockBytes; l.dirty > pool {
		evicted := l.dirty - pool
		l.dirty = pool
		return l.disk.Sequential(evicted)
	}
	return nil
}

// End commits a table: the partial BI block is forced out (a commit waits
// for it unless the BI is buffered) and the modified blocks are flushed.
func (l *LoadLog) End() error {
	if l.notes > 0 {
		l.notes = 0
		var err error
		if l.cfg.Integrity == CrashSafe {
			err = l.disk.Random(1, l.cfg.BIBlockBytes)
		} else {
			err = l.disk.Sequential(l.cfg.BIBlockBytes)
		}
		if err != nil {
			return err
		}
	}
	return l.flush()
}

func (l *LoadLog) writeBI(blocks int64) error {
	if l.cfg.waitsForBI() {
		return l.disk.Random(blocks, l.cfg.BIBlockBytes)
	}
	return l.disk.Sequential(blocks * l.cfg.BIBlockBytes)
}

// checkpoint syncs the BI (one waited write) and flushes the modified
// blocks; with -r or -i nothing is synced.
func (l *LoadLog) checkpoint() error {
	if l.cfg.Integrity != CrashSafe {
		return nil
	}
	if err := l.disk.Random(1, l.cfg.BIBlockBytes); err != nil {
		return err
	}
	return l.flush()
}

// flush writes the modified blocks in one write the loader waits for.
func (l *LoadLog) flush() error {
	if l.dirty == 0 {
		return nil
	}
	n := l.dirty
	l.dirty = 0
	return l.disk.Random(1, n)
}

// LoadWrites are a load's writes in bulk, by pattern.
type LoadWrites struct {
	Sequential float64 // bytes written behind (data and BI)
	BIWaits    float64 // BI blocks the loader writes and waits for
	// Flushes are the waited writes of modified data blocks, of
	// FlushedBytes in all.
	Flushes, FlushedBytes float64
}

// LoadLogWrites is what LoadLog charges for one table of records and
// bytes, in closed form (the estimate's tables are too many and too large
// to replay record by record): the notes fill BI blocks and clusters in
// proportion, each checkpoint flushing the data written since the last
// one, at most the buffer pool.
func LoadLogWrites(c LoadLogging, records, bytes float64) LoadWrites {
	c = c.withDefaults()
	var w LoadWrites
	notes := c.NoteBytes(records, bytes)
	if notes <= 0 {
		w.Sequential = bytes
		return w
	}
	biBlocks := math.Ceil(notes / float64(c.BIBlockBytes)) // the last one forced at the end
	checkpoints := 0.0
	if c.Integrity == CrashSafe {
		checkpoints = math.Floor(notes / float64(c.BIClusterBytes))
		w.BIWaits = checkpoints + 1 // a sync per checkpoint, the commit's block
		biBlocks--
	}
	if c.waitsForBI() {
		w.BIWaits += biBlocks
	} else {
		w.Sequential += biBlocks * float64(c.BIBlockBytes)
	}
	if !c.flushesData() {
		w.Sequential += bytes
		return w
	}
	pool := float64(c.Buffers * c.BlockBytes)
	perCheckpoint := bytes * float64(c.BIClusterBytes) / notes
	tail := bytes - checkpoints*perCheckpoint
	w.FlushedBytes = checkpoints*math.Min(perCheckpoint, pool) + math.Min(tail, pool)
	w.Sequential += bytes - w.FlushedBytes
	w.Flushes = checkpoints
	if tail > 0 {
		w.Flushes++
	}
	return w
}
