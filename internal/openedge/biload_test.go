package openedge

import (
	"math"
	"testing"
)

// tally is a DiskWrites that adds up what a LoadLog charges.
type tally struct{ w LoadWrites }

func (t *tally) Sequential(bytes int64) error { t.w.Sequential += float64(bytes); return nil }
func (t *tally) Random(n, size int64) error {
	// The BI blocks of the cases below are 8 or 16 KiB; a flush of data
	// blocks is one write of some other size.
	if n == 1 && size != 8<<10 && size != 16<<10 {
		t.w.Flushes++
		t.w.FlushedBytes += float64(size)
	} else {
		t.w.BIWaits += float64(n)
	}
	return nil
}

// replay loads records of size rec as oesim does: a note per record, the
// data in segments of 256 KiB, End at the end.
func replay(t *testing.T, c LoadLogging, records, rec int64) LoadWrites {
	t.Helper()
	var tl tally
	l := NewLoadLog(c, &tl)
	var pending int64
	for range records {
		if err := l.Notes(1, rec); err != nil {
			t.Fatal(err)
		}
		if pending += rec; pending >= 256<<10 {
			if err := l.Data(pending); err != nil {
				t.Fatal(err)
			}
			pending = 0
		}
	}
	if err := l.Data(pending); err != nil {
		t.Fatal(err)
	}
	if err := l.End(); err != nil {
		t.Fatal(err)
	}
	return tl.w
}

func TestLoadLogModes(t *testing.T) {
	const records, rec = 40000, 500 // 20 MB of records
	bytes := float64(records * rec)
	small := LoadLogging{BlockBytes: 4096} // defaults: 8K BI blocks, 512K clusters, -B 20
	served := LoadLogging{BlockBytes: 4096, Buffers: DefaultBuffersMultiUser}
	tuned := LoadLogging{BlockBytes: 4096, BIW: true, APW: true, BIBlockBytes: 16 << 10, BIClusterBytes: 16 << 20, Buffers: 8000}
	noint := LoadLogging{BlockBytes: 4096, Integrity: NoIntegrity}
	raw := LoadLogging{BlockBytes: 4096, Integrity: BufferedBI}
	notes := bytes + records*BINoteOverhead
	for _, tc := range []struct {
		name string
		c    LoadLogging
		// what the mode must charge, in closed form
		biWaits, flushes, flushed, sequential float64
	}{
		// Every BI block waited, a sync per 512K cluster; the loader
		// flushes at most its 20 buffers at each checkpoint, and at the end.
		{"single-user crash-safe", small,
			math.Ceil(notes/8192) + math.Floor(notes/(512<<10)), math.Floor(notes/(512<<10)) + 1, (math.Floor(notes/(512<<10)) + 1) * 20 * 4096, 0},
		// Served without helpers: the checkpoint flushes all it wrote
		// since the last one (less than -B 3000).
		{"served without helpers", served, math.Ceil(notes/8192) + math.Floor(notes/(512<<10)), math.Floor(notes/(512<<10)) + 1, bytes, 0},
		// BIW and APW: only the checkpoint syncs and the commit wait.
		{"served with BIW and APW", tuned, math.Floor(notes/(16<<20)) + 1, 0, 0, bytes + (math.Ceil(notes/(16<<10))-1)*(16<<10)},
		// -i: a fifth of the notes, nothing waited.
		{"-i", noint, 0, 0, 0, bytes + math.Ceil(notes*NoIntegrityNoteShare/8192)*8192},
		{"-r", raw, 0, 0, 0, bytes + math.Ceil(notes/8192)*8192},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LoadLogWrites(tc.c, records, bytes)
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > 0.02*want+2 {
					t.Errorf("%s = %.0f, want %.0f", what, got, want)
				}
			}
			near("closed-form BI waits", got.BIWaits, tc.biWaits)
			near("closed-form flushes", got.Flushes, tc.flushes)
			near("closed-form flushed bytes", got.FlushedBytes, tc.flushed)
			if tc.sequential > 0 {
				near("closed-form sequential bytes", got.Sequential, tc.sequential)
			}
			// The replay of the same load (oesim's way) charges the
			// same, up to where its segments meet the clusters.
			r := replay(t, tc.c, records, rec)
			near("replayed BI waits", r.BIWaits, got.BIWaits)
			near("replayed flushes", r.Flushes, got.Flushes)
			if math.Abs(r.FlushedBytes-got.FlushedBytes) > 0.1*got.FlushedBytes+2 {
				t.Errorf("replayed flushed bytes = %.0f, closed form %.0f", r.FlushedBytes, got.FlushedBytes)
			}
			written := func(w LoadWrites) float64 { return w.Sequential + w.FlushedBytes }
			if math.Abs(written(r)-written(got)) > 0.03*written(got) {
				t.Errorf("replayed bytes written = %.0f, closed form %.0f", written(r), written(got))
			}
		})
	}
}

// An empty load writes nothing but its data (none).
func TestLoadLogEmpty(t *testing.T) {
	if w := LoadLogWrites(LoadLogging{}, 0, 0); w != (LoadWrites{}) {
		t.Errorf("empty load: %+v", w)
	}
	var tl tally
	if err := NewLoadLog(LoadLogging{}, &tl).End(); err != nil || tl.w != (LoadWrites{}) {
		t.Errorf("empty load log: %+v %v", tl.w, err)
	}
}
