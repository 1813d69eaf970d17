// Command scalegen writes the inputs of a scale test without a database: a
// dbanalys report (tables and their indexes) and the matching .df, for as
// many tables as a large ERP has (SAP-like or Datasul sites: 5,000-20,000
// tables, 50,000+ indexes). oesim's gen profiles stop at the seed's 873
// tables because every table of theirs is really created and filled; oedl's
// own planning, estimating, dispatching and verifying only ever see these
// two files and the plan made from them, so the files are enough to measure
// how oedl's own work grows with the number of tables.
//
// The shape follows seed 003's: almost every table tiny, one in a thousand
// large (the few that hold most of the bytes), one in twenty medium; 2 to 6
// indexes per table; one area per 100 tables (Type I "before" layouts spread
// tables over many areas). The output depends only on -tables.
//
//	go run ./scripts/scalegen -tables 20000 -o /tmp/scale20k
//	  -> /tmp/scale20k/src.tba  /tmp/scale20k/src.df
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/openedge"
)

func main() {
	n := flag.Int("tables", 20000, "number of tables")
	out := flag.String("o", "", "directory to write src.tba and src.df into")
	flag.Parse()
	if *out == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: scalegen -tables N -o DIR")
		os.Exit(2)
	}
	a, tables := database(*n)
	var tba, df bytes.Buffer
	if err := openedge.WriteAnalysis(&tba, a); err != nil {
		fail(err)
	}
	if _, err := openedge.NewDF(tables, nil, "UTF-8").WriteTo(&df); err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for name, b := range map[string][]byte{"src.tba": tba.Bytes(), "src.df": df.Bytes()} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			fail(err)
		}
	}
	fmt.Printf("%d tables, %d indexes, %d areas -> %s\n", len(a.Tables), len(a.Indexes), len(a.Areas), *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scalegen:", err)
	os.Exit(1)
}

// database builds the report and the .df tables of n tables. Sizes come
// from the table number (a multiplicative hash), not from a random stream,
// so that the same n always gives the same files.
func database(n int) (*openedge.Analysis, []*openedge.DFTable) {
	a := &openedge.Analysis{Database: "/db/erp", BlockSize: 8192, RecSpaceSearchDepth: 5,
		Options: "dbanalys", Date: "Fri Nov 27 19:00:00 2026", RMBlocks: int64(n) * 10, RMUsedPct: 70}
	areas := max(1, n/100)
	for i := range areas {
		a.Areas = append(a.Areas, openedge.AreaSummary{Name: fmt.Sprintf("DATA_%03d", i), Number: 7 + i})
	}
	types := []string{"character", "integer", "decimal", "date", "character", "logical", "int64", "character"}
	dfTables := make([]*openedge.DFTable, 0, n)
	for i := range n {
		area := a.Areas[i%areas]
		name := fmt.Sprintf("t%05d_mstr", i)
		h := uint64(i)*0x9e3779b97f4a7c15 + 1
		mean := int64(40 + h%400)
		var rec int64
		switch {
		case i%1000 == 7:
			rec = 2_000_000 + int64(h%3_000_000) // large: most of the bytes
		case i%20 == 3:
			rec = 10_000 + int64(h%90_000) // medium
		case i%10 == 9:
			rec = 0 // empty
		default:
			rec = 1 + int64(h%200) // tiny
		}
		a.Tables = append(a.Tables, openedge.TableStat{Area: area.Name, AreaNum: area.Number, Owner: "PUB", Name: name,
			Records: rec, Bytes: rec * mean, MinRecord: mean / 2, MaxRecord: mean * 2, MeanRecord: mean,
			Fragments: rec, FragFactor: 1, ScatterFactor: 1.2})
		t := &openedge.DFTable{Name: name, Area: area.Name}
		for j, typ := range types {
			t.Fields = append(t.Fields, &openedge.DFField{Name: fmt.Sprintf("f%d", j), Type: typ})
		}
		nidx := 2 + int(h>>8%5)
		for j := range nidx {
			idx := &openedge.DFIndex{Name: fmt.Sprintf("i%d", j), Area: area.Name, Unique: j == 0, Primary: j == 0,
				Fields: []openedge.DFIndexField{{Name: fmt.Sprintf("f%d", j%len(types))}}}
			t.Indexes = append(t.Indexes, idx)
			a.Indexes = append(a.Indexes, openedge.IndexStat{Area: area.Name, AreaNum: area.Number, Owner: "PUB", Table: name,
				Name: idx.Name, Number: 100 + len(a.Indexes), Fields: 1, Levels: 2,
				Blocks: rec/200 + 1, Bytes: rec * 24, Util: 70, Factor: 1.3})
		}
		dfTables = append(dfTables, t)
	}
	return a, dfTables
}
