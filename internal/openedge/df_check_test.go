package openedge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checkST = `b .
d "Schema Area":6,64;1 .
d "Data":7,64;8 .
d "Index":8,1;8 .
d "Lobs":9,1;64 .
a .
`

const checkDFGood = `UPDATE DATABASE "?"

ADD SEQUENCE "next"
  INITIAL 1

ADD TABLE "customer"
  AREA "Data"
  DUMP-NAME "customer"

ADD FIELD "id" OF "customer" AS integer 
  ORDER 10

ADD FIELD "photo" OF "customer" AS blob 
  LOB-AREA "Lobs"
  ORDER 20

ADD INDEX "id" ON "customer" 
  AREA "Index"
  PRIMARY
  INDEX-FIELD "id" ASCENDING 

ADD TABLE "note"
  DUMP-NAME "note"

ADD FIELD "txt" OF "note" AS character 
  ORDER 10

UPDATE PRIMARY INDEX "id" ON "customer"

.
PSC
cpstream=UTF-8
.
0000000000
`

// TestCheckSchema: every way a target.df can fail load_df.p after the
// outage began is found before it, with the file and line, all at once.
func TestCheckSchema(t *testing.T) {
	st, err := ParseStructure(strings.NewReader(checkST), "target.st")
	require.NoError(t, err)
	good, err := ParseDF(strings.NewReader(checkDFGood), "target.df")
	require.NoError(t, err)
	require.NoError(t, CheckSchema(good, st), "a table without AREA is in the Schema Area; UPDATE statements are known")

	bad := strings.NewReplacer(
		`ADD FIELD "txt" OF "note"`, `ADD FEILD "txt" OF "note"`, // line 25: a typo
		`INDEX-FIELD "id" ASCENDING`, `INDEX-FIELD "ident" ASCENDING`, // index of line 17: no such field
		`AREA "Data"`, `AREA "Dta"`, // line 6's table: no such area
		`LOB-AREA "Lobs"`, `LOB-AREA "Blobs"`, // line 13's field
	).Replace(checkDFGood)
	bad = strings.Replace(bad, `ADD FIELD "id" OF "customer"`, `ADD FIELD "id" OF "custmer"`, 1) // line 10: OF a missing table
	bad = strings.Replace(bad, `  AREA "Index"`, `  AREA "Indexes"`, 1)                          // index of line 17
	df, err := ParseDF(strings.NewReader(bad), "target.df")
	require.NoError(t, err, "the parser keeps what it does not type; the check finds it")
	err = CheckSchema(df, st)
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`target.df:6: table "customer" names area "Dta", which target.st does not have (its data areas: Data, Index, Lobs, Schema Area)`,
		`target.df:10: field "id" is added OF "custmer", a table this file does not add`,
		`target.df:13: LOB field "photo" of "customer" names area "Blobs"`,
		`target.df:17: index "id" of "customer" names area "Indexes"`,
		`target.df:17: index "id" of "customer" is on field "ident", which the table does not have`,
		`target.df:25: "ADD FEILD" is not a .df statement`,
	}
	require.Len(t, lines, len(want), err.Error())
	for i, w := range want {
		assert.Contains(t, lines[i], w)
	}
}

func TestCheckSchemaIndexQualifiers(t *testing.T) {
	for _, stmt := range []string{`UPDATE INACTIVE INDEX "i" ON "t"`, `ADD CONSTRAINT "c" ON "t"`, `UPDATE PRIMARY INDEX "i" ON "t"`, `UPDATE FIELD "a" OF "t"`} {
		df, err := ParseDF(strings.NewReader(stmt+"\n"), "x.df")
		require.NoError(t, err)
		assert.NoError(t, CheckSchema(df, nil), stmt)
	}
	df, err := ParseDF(strings.NewReader("UPDATE LOUD INDEX \"i\" ON \"t\"\n"), "x.df")
	require.NoError(t, err)
	assert.ErrorContains(t, CheckSchema(df, nil), `x.df:1: "UPDATE LOUD" is not a .df statement`)
}

// TestCheckSchemaEncryption: a full dump of a database with transparent
// data encryption ends with UPDATE TABLE/FIELD/INDEX statements that set
// ENCRYPTION YES (prodict/dump/_dmpdefs.p, its "o" method); load_df.p
// refuses them on a database without encryption, after the outage began.
func TestCheckSchemaEncryption(t *testing.T) {
	const df = `ADD TABLE "card"
  AREA "Data"

ADD FIELD "pan" OF "card" AS character 
  ORDER 10

UPDATE TABLE "card"
  BUFFER-POOL "Alternate"

UPDATE FIELD "pan" OF "card"
  ENCRYPTION %s
  CIPHER-NAME AES_CBC_256
`
	withE := checkST + "e \"Encryption Policy Area\":12,32;8 .\n"
	tests := []struct {
		name, value, st string
		want            string // "" = no error
	}{
		{"target without encryption", "YES", checkST, `target.df:10: UPDATE FIELD "pan" OF "card" sets ENCRYPTION YES: target.st has no Encryption Policy Area`},
		{"no structure: the plan's target has none", "yes", "", `target.df:10: UPDATE FIELD "pan" OF "card" sets ENCRYPTION YES: oedl's target has no Encryption Policy Area`},
		{"target with encryption", "YES", withE, ""},
		{"encryption off", "NO", checkST, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st *Structure
			if tt.st != "" {
				var err error
				st, err = ParseStructure(strings.NewReader(tt.st), "target.st")
				require.NoError(t, err)
			}
			d, err := ParseDF(strings.NewReader(strings.Replace(df, "%s", tt.value, 1)), "target.df")
			require.NoError(t, err)
			err = CheckSchema(d, st)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestCheckSchemaRefusesRenameDrop: a full dump (prodict/dump_df.p) has no
// RENAME or DROP; a .df that has them is an incremental one, or a full one
// with a delta appended, and would give the target another schema than the
// source's: a DROP FIELD makes every binary load of the table fail, a
// RENAME TABLE the dump's table name unknown.
func TestCheckSchemaRefusesRenameDrop(t *testing.T) {
	for _, tt := range []struct{ stmt, want string }{
		{`DROP TABLE "t"`, `x.df:3: DROP TABLE "t" changes the schema this file builds`},
		{`RENAME FIELD "a" OF "t" TO "b"`, `x.df:3: RENAME FIELD "a" OF "t" changes the schema this file builds`},
		{`DELETE INDEX "i" ON "t"`, `x.df:3: DROP INDEX "i" ON "t" changes the schema this file builds`},
	} {
		t.Run(tt.stmt, func(t *testing.T) {
			df, err := ParseDF(strings.NewReader("ADD TABLE \"t\"\n\n"+tt.stmt+"\n"), "x.df")
			require.NoError(t, err)
			assert.ErrorContains(t, CheckSchema(df, nil), tt.want)
		})
	}
}
