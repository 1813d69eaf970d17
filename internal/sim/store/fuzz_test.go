package store

import (
	"encoding/binary"
	"testing"
)

// The segment walkers read data from the extents: damaged bytes must give
// an error, never a panic.
func FuzzForEachFrame(f *testing.F) {
	var seed []byte
	for _, r := range []string{"a", "bcd", ""} {
		seed = binary.LittleEndian.AppendUint32(seed, uint32(len(r)))
		seed = append(seed, r...)
		seed = binary.LittleEndian.AppendUint32(seed, Checksum([]byte(r)))
	}
	f.Add(seed)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_ = ForEachFrame(b, func(rec []byte, _ uint32) error { n += len(rec); return nil })
		if n > len(b) {
			t.Fatalf("frames hold more bytes (%d) than the data (%d)", n, len(b))
		}
	})
}

func FuzzForEachEntry(f *testing.F) {
	f.Add([]byte{0, 3, 'a', 'b', 'c', 7, 2, 1, 'd', 8})
	f.Add([]byte{5, 1, 'x', 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ForEachEntry(b, func(key []byte, _ int64) error {
			if len(key) > len(b) {
				t.Fatalf("key longer than the data")
			}
			return nil
		})
	})
}

func FuzzDecodeSegment(f *testing.F) {
	f.Add((&Segment{Kind: KindRecords, Object: 3, Count: 10, Blocks: 8}).encode())
	f.Add(make([]byte, segHdrSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < segHdrSize {
			return
		}
		s, err := decodeSegment(b[:segHdrSize], 0)
		if err != nil {
			return
		}
		again, err := decodeSegment(s.encode(), 0)
		if err != nil || *again != *s {
			t.Fatalf("segment header does not round-trip: %+v vs %+v (%v)", s, again, err)
		}
	})
}
