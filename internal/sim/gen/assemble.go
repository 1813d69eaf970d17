package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// assemble numbers the tables in name order (as a .df dump lists them),
// binds their row generators to the seed and attaches the structure.
func assemble(name, st string, specs []*tableSpec, seed uint64) (*Database, error) {
	slices.SortFunc(specs, func(a, b *tableSpec) int { return strings.Compare(a.name, b.name) })
	structure, err := openedge.ParseStructure(strings.NewReader(st), name+".st")
	if err != nil {
		return nil, fmt.Errorf("gen: %s profile: %w", name, err)
	}
	db := &Database{Name: name, BlockSize: 8192, Codepage: "ISO8859-1", Structure: structure, STText: st}
	for i, s := range specs {
		g := newRowGen(s, seed, uint64(i+1))
		t := &Table{
			Owner:    "PUB",
			Name:     s.name,
			Area:     s.area,
			Number:   i + 1,
			Def:      s.def(),
			Records:  s.records,
			MeanSize: s.mean,
			Rows:     g.rows,
		}
		if n0 := (s.records + s.key.radix() - 1) / s.key.radix(); n0 > 0 {
			t.lastKey = g.spacing.value(n0 - 1)
		}
		db.Tables = append(db.Tables, t)
	}
	return db, nil
}

// finish writes the schema as a .df (openedge.NewDF) and points every
// table's Def at the DF's own parsed table, so that the typed view the
// simulator uses and the file a DBA reads are one and the same.
func (db *Database) finish() *Database {
	defs := make([]*openedge.DFTable, len(db.Tables))
	for i, t := range db.Tables {
		defs[i] = t.Def
	}
	seqs := make([]*openedge.DFSequence, len(db.Sequences))
	for i, s := range db.Sequences {
		seqs[i] = &openedge.DFSequence{Name: s.Name, Initial: 1, Increment: 1}
	}
	db.DF = openedge.NewDF(defs, seqs, db.Codepage)
	for _, t := range db.Tables {
		t.Def = db.DF.Table(t.Name)
	}
	db.Security = demoSecurity(db)
	return db
}
