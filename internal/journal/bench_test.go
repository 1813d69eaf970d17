package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAppend is one journal record (encode, write, fsync) against
// the baseline of the same bytes written and fsynced raw: the cost of the
// journal beyond the fsync that durability needs anyway.
func BenchmarkAppend(b *testing.B) {
	b.Run("journal", func(b *testing.B) {
		w, _, err := Open(filepath.Join(b.TempDir(), FileName))
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		rec := Record{Job: "load:PUB.customer", Kind: "load", State: Done, Table: "PUB.customer", Area: "Cust_Data",
			Records: 1117, CountKnown: true, Marker: 6256, Log: "/work/logs/load_PUB.customer.log"}
		b.ResetTimer()
		for b.Loop() {
			if err := w.Append(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-write-fsync", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "raw"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		line := []byte(`{"v":1,"seq":1,"time":"2026-11-22T07:00:00Z","job":"load:PUB.customer","kind":"load","state":"done","table":"PUB.customer","area":"Cust_Data","records":1117,"count_known":true,"marker":6256,"log":"/work/logs/load_PUB.customer.log"}` + "\n")
		b.ResetTimer()
		for b.Loop() {
			if _, err := f.Write(line); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReplay folds the journal of a 5000-table run (about 20000
// records): what a resume and every `oedl status` pay.
func BenchmarkReplay(b *testing.B) {
	var recs []Record
	for i := range 5000 {
		t := fmt.Sprintf("PUB.t%d", i)
		area := fmt.Sprintf("Area%d", i%40)
		recs = append(recs,
			Record{Job: "dump:" + t, Kind: "dump", State: Started, Table: t},
			Record{Job: "dump:" + t, Kind: "dump", State: Done, Table: t, Files: []File{{Path: "/w/" + t + ".bd", Size: 100}}},
			Record{Job: "load:" + t, Kind: "load", State: Started, Table: t, Area: area},
			Record{Job: "load:" + t, Kind: "load", State: Done, Table: t, Area: area, Records: 10})
	}
	b.ResetTimer()
	for b.Loop() {
		if r := Replay(recs); len(r.Loads) != 5000 {
			b.Fatal("wrong fold")
		}
	}
}
