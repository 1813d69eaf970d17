package estimate

import "math"

// ioShape is one stream's device traffic by access pattern: bytes read and
// written, and the share of each issued as random requests of randomKB.
// The rest is sequential.
type ioShape struct {
	read, write             float64
	readRandom, writeRandom float64
	randomKB                float64
}

// requests turns traffic into what the disk sees (docs/estimate.md, "Disk
// physics"):
//
//   - ops, the operations counted against the IOPS ceiling: one per random
//     request (several when it is larger than the device counts as one),
//     and sequential bytes in requests of the size the kernel and the
//     volume merge them to (EBS: 256 KiB on SSD classes, 1 MiB on st1/sc1;
//     a local device: the kernel's read-ahead and max_sectors_kb);
//   - waits, the requests the stream itself waits for, one after the
//     other: every random request (a read it needs now; a small write it
//     must see on disk before it goes on, as the before-image's), and
//     sequential reads as the kernel's read-ahead requests two at a time.
//     Sequential writes go through the page cache and are written back
//     behind the stream: counted, not waited for.
func (d *disk) requests(s ioShape) (ops, waits float64) {
	kb := s.randomKB
	if kb <= 0 {
		kb = defaultRandomKB
	}
	perRandom := math.Max(1, math.Ceil(kb/d.randomMaxKB))
	randomReads := s.read * s.readRandom / (kb * 1024)
	randomWrites := s.write * s.writeRandom / (kb * 1024)
	seqRead := s.read * (1 - s.readRandom)
	seqWrite := s.write * (1 - s.writeRandom)
	ops = (randomReads+randomWrites)*perRandom + seqRead/(d.seqReadKB*1024) + seqWrite/(d.seqWriteKB*1024)
	waits = randomReads + randomWrites + seqRead/(d.readAheadKB*1024)/2
	return ops, waits
}

// ioEnv is what a demand needs to know besides the phase's costs: the
// disk, and the size of a random request (the database block) when the
// phase does not set one.
type ioEnv struct {
	d       *disk
	blockKB float64
}

// shape is the phase's traffic for bytes of table data.
func (p PhaseCost) shape(bytes float64, env ioEnv) ioShape {
	kb := p.RandomIOKB
	if kb <= 0 {
		kb = env.blockKB
	}
	return ioShape{read: bytes * p.ReadPerByte, write: bytes * p.WritePerByte,
		readRandom: p.ReadRandom, writeRandom: p.WriteRandom, randomKB: kb}
}

// add charges more traffic to the stream.
func (f *flowDemand) add(s ioShape, d *disk) {
	ops, waits := d.requests(s)
	f.bytes += s.read + s.write
	f.ops += ops
	f.waits += waits
}
