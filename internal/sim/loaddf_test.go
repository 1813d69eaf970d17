package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// An incremental .df, as the Data Dictionary writes one (prodict/dump/
// _dmpincr.p, with its 12.x section comments), applied by load_df.p to a
// database that holds the tables it changes: renames, drops, a new index
// on a loaded table (inactive until idxbuild), a new table, a sequence
// renamed and one dropped.
func TestLoadDFIncremental(t *testing.T) {
	env, db := smallDB(t)
	tgt := emptyCopy(t, env, db, "tgt")
	loaded, err := openedge.ParseLoadOutput(env.ok(t, "proutil", tgt, "-C", "load", dumpOne(t, env, db, "Customer")))
	require.NoError(t, err)

	inc := filepath.Join(env.work, "delta.df")
	writeDF(t, inc, `# BEGIN Pre_Deploy_Section

RENAME FIELD "Phone" OF "Customer" TO "Telephone"

# END Pre_Deploy_Section

RENAME TABLE "State" TO "Region"

ADD TABLE "ShipVia"
  AREA "Misc"
  DUMP-NAME "shipvia"

ADD FIELD "Code" OF "ShipVia" AS character 
  FORMAT "x(8)"
  INITIAL ""
  POSITION 2
  ORDER 10

ADD INDEX "Code" ON "ShipVia" 
  AREA "Misc"
  UNIQUE
  PRIMARY
  INDEX-FIELD "Code" ASCENDING 

UPDATE TABLE "Customer"
  DESCRIPTION "Customers"

ADD INDEX "Telephone" ON "Customer" 
  AREA "Cust_Index"
  INDEX-FIELD "Telephone" ASCENDING 

UPDATE FIELD "Discount" OF "Customer" AS int64

DROP INDEX "SalesRep" ON "Customer"

RENAME INDEX "Name" TO "CustName" ON "Customer"

DROP TABLE "LocalDefault"

RENAME SEQUENCE "NextInvNum" TO "NextInvoiceNum"

DROP SEQUENCE "NextOrdNum"

`)
	env.ok(t, "_progres", "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", inc)

	d := dumpSchema(t, env, tgt)
	require.Nil(t, d.Table("State"))
	require.NotNil(t, d.Table("Region"))
	require.Nil(t, d.Table("LocalDefault"))
	require.NotNil(t, d.Table("ShipVia").Index("Code"))
	cust := d.Table("Customer")
	assert.Nil(t, cust.Field("Phone"))
	require.NotNil(t, cust.Field("Telephone"))
	assert.Equal(t, "int64", cust.Field("Discount").Type)
	assert.Nil(t, cust.Index("SalesRep"))
	assert.Nil(t, cust.Index("Name"))
	require.NotNil(t, cust.Index("CustName"))
	require.NotNil(t, cust.Index("Telephone"))
	assert.True(t, cust.Index("Telephone").Inactive, "a new index on a loaded table waits for idxbuild")
	var seqs []string
	for _, s := range d.Sequences() {
		seqs = append(seqs, s.Name)
	}
	assert.ElementsMatch(t, []string{"NextCustNum", "NextInvoiceNum"}, seqs)

	// The renamed field still holds the loaded values: idxbuild builds
	// the new index over them (with the four the load left inactive), and
	// the records still read back.
	out := env.ok(t, "proutil", tgt, "-C", "idxbuild", "inactiveindexes")
	res, err := openedge.ParseIdxbuildOutput(out)
	require.NoError(t, err, out)
	assert.Equal(t, 5, res.Indexes)
	assert.False(t, dumpSchema(t, env, tgt).Table("Customer").Index("Telephone").Inactive)
	dump := env.ok(t, "proutil", tgt, "-C", "dump", "Customer", t.TempDir())
	dr, err := openedge.ParseDumpOutput(dump)
	require.NoError(t, err)
	assert.Equal(t, loaded.Records, dr.Records)
}

// What the loader cannot apply stops the load with its own words, in the
// language of the message file, names the line, goes to DB.e, and leaves
// the schema as it was.
func TestLoadDFRefused(t *testing.T) {
	env, db := smallDB(t)
	tgt := emptyCopy(t, env, db, "tgt")
	loaded, err := openedge.ParseLoadOutput(env.ok(t, "proutil", tgt, "-C", "load", dumpOne(t, env, db, "Customer")))
	require.NoError(t, err)
	before := dumpSchema(t, env, tgt)

	tests := []struct {
		name, df string
		promsgs  string
		want     []string
	}{
		{"unknown table", "RENAME FIELD \"Phone\" OF \"Customer\" TO \"Tel\"\n\nDROP TABLE \"Obsolete\"\n", "",
			[]string{`** Line 3 DROP TABLE "Obsolete"`, "Try to modify unknown TABLE"}},
		{"unknown field", "UPDATE FIELD \"Nope\" OF \"Customer\"\n  FORMAT \"x(8)\"\n", "",
			[]string{`** Line 1 UPDATE FIELD "Nope" OF "Customer"`, "Try to modify unknown FIELD"}},
		{"unknown index in Portuguese", "DROP INDEX \"Nope\" ON \"Customer\"\n", filepath.Join("prolang", "brz", "promsgs.brz"),
			[]string{`** Linha 1 DROP INDEX "Nope" OF "Customer"`, "Tentativa de modificar INDEX desconhecido"}},
		{"table already there", "ADD TABLE \"Customer\"\n  AREA \"Cust_Data\"\n", "",
			[]string{`** Line 1 ADD TABLE "Customer"`, "TABLE already exists with name Customer"}},
		{"type change", "UPDATE FIELD \"Name\" OF \"Customer\" AS integer\n", "",
			[]string{"Cannot change datatype of existing field"}},
		{"a field of a loaded table (oesim's limit)", "ADD FIELD \"Extra\" OF \"Customer\" AS character \n  FORMAT \"x(8)\"\n", "",
			[]string{fmt.Sprintf("oesim cannot change the fields of table Customer: it holds %d records. (oesim)", loaded.Records)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(env.work, "bad.df")
			writeDF(t, path, tt.df)
			os.Remove(tgt + ".e")
			var extra []string
			if tt.promsgs != "" {
				extra = []string{"PROMSGS=" + filepath.Join(env.dlc, tt.promsgs)}
			}
			r := env.run(t, extra, "", "_progres", "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", path)
			assert.Equal(t, exitFail, r.code, r.out)
			e, err := os.ReadFile(tgt + ".e")
			require.NoError(t, err, "load_df.p writes its errors to DB.e")
			for _, w := range tt.want {
				assert.Contains(t, r.out, w)
				assert.Contains(t, string(e), w)
			}
			assert.Equal(t, tableShapes(before), tableShapes(dumpSchema(t, env, tgt)), "nothing applied")
		})
	}
}

func writeDF(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(body+".\nPSC\ncpstream=UTF-8\n.\n0000000000\n"), 0o644))
}

func dumpSchema(t *testing.T, env *dlcEnv, db string) *openedge.DF {
	t.Helper()
	out := filepath.Join(t.TempDir(), "schema.df")
	env.ok(t, "_progres", "-b", "-db", db, "-p", "prodict/dump_df.p", "-param", "ALL,"+out+",")
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	d, err := openedge.ParseDF(f, out)
	require.NoError(t, err)
	return d
}

// tableShapes names every table, field and index of a schema.
func tableShapes(d *openedge.DF) string {
	var b strings.Builder
	for _, t := range d.Tables() {
		b.WriteString(t.Name + ":")
		for _, f := range t.Fields {
			b.WriteString(" " + f.Name + "/" + f.Type)
		}
		for _, ix := range t.Indexes {
			b.WriteString(" #" + ix.Name)
		}
		b.WriteString("\n")
	}
	return b.String()
}
