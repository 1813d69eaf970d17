package openedge_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

const realWorld = "../../testdata"

// TestRealWorldStructuresThroughProstrct gives every .st of the corpus to
// oesim's prostrct as it is (prostrct create -validate reads the file's own
// bytes: CRLF, Windows paths, e lines, quoted paths), then creates a
// database from it with its paths moved into the test's directory, and
// reads prostrct list back: the same areas with the same numbers, the e
// line's area included.
func TestRealWorldStructuresThroughProstrct(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realWorld, "st", "*.st"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d := newSimDLC(t)
			abs, err := filepath.Abs(path)
			require.NoError(t, err)
			out := d.ok(openedge.ToolProstrct, openedge.ToolProstrct, append(openedge.ProstrctCreateArgs("check", abs, 8192), "-validate"))
			assert.Contains(t, out, "is valid")

			st := readStructure(t, path)
			dir := filepath.Join(d.work, "db")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for _, a := range st.Areas {
				for i := range a.Extents {
					a.Extents[i].Path = dir // a directory: prostrct names the files
				}
			}
			var b bytes.Buffer
			require.NoError(t, openedge.WriteStructure(&b, st))
			require.NoError(t, os.WriteFile(filepath.Join(d.work, "moved.st"), b.Bytes(), 0o644))
			out = d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctCreateArgs("db/x", "moved.st", 8192))
			assert.Equal(t, countExtents(st), strings.Count(out, dir+"/"), "one listing line per extent:\n%s", out)
			d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctListArgs("db/x", "listed.st"))
			listed := readStructure(t, filepath.Join(d.work, "listed.st"))
			require.NoError(t, listed.Validate())
			for _, a := range st.Areas {
				if a.Name == "" {
					continue
				}
				got := listed.Area(a.Name)
				require.NotNil(t, got, "area %q listed", a.Name)
				assert.Equal(t, a.Type, got.Type)
				assert.Len(t, got.Extents, len(a.Extents))
				if a.Number != 0 {
					assert.Equal(t, a.Number, got.Number, "area %q keeps its number, in whatever order the file gives them", a.Name)
				}
			}
		})
	}
}

// TestRealWorldDFThroughLoadDF loads every full .df of the corpus with
// oesim's load_df.p into a database that has their areas, and the
// incremental one onto the schema it changes: each applies, and dump_df.p
// gives back the tables, fields and indexes the parser read.
func TestRealWorldDFThroughLoadDF(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realWorld, "df", "*.df"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d := newSimDLC(t)
			require.NoError(t, os.WriteFile(filepath.Join(d.work, "db.st"), []byte(`b .
d "Schema Area":6,64;1 .
d "Data":7,64;8 .
d "Index":8,64;8 .
d "Order Data":9,64;8 .
d "Order Index":10,64;8 .
d "Lobs":11,1;64 .
d "d-geral":12,64;8 .
d "i-geral":13,64;8 .
`), 0o644))
			d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctCreateArgs("db", "db.st", 8192))
			d.ok(openedge.ToolProcopy, openedge.ToolProcopy, openedge.ProcopyArgs(filepath.Join(d.dlc, "empty8"), "db"))
			df := readDF(t, path)
			if len(df.Changes()) > 0 {
				base := filepath.Join(d.work, "base.df")
				require.NoError(t, os.WriteFile(base, []byte(incrementalBase), 0o644))
				d.ok("load_df", openedge.ToolProgres, openedge.ProgresArgs("db", "prodict/load_df.p", base))
			}
			abs, err := filepath.Abs(path)
			require.NoError(t, err)
			d.ok("load_df", openedge.ToolProgres, openedge.ProgresArgs("db", "prodict/load_df.p", abs))

			dumped := filepath.Join(d.work, "dumped.df")
			d.ok("dump_df", openedge.ToolProgres, openedge.ProgresArgs("db", "prodict/dump_df.p", "ALL,"+dumped+","))
			back := readDF(t, dumped)
			for _, tb := range df.Tables() {
				got := back.Table(tb.Name)
				require.NotNil(t, got, "table %s", tb.Name)
				assert.Len(t, got.Fields, len(tb.Fields), "fields of %s", tb.Name)
				assert.Len(t, got.Indexes, len(tb.Indexes), "indexes of %s", tb.Name)
			}
			for _, ch := range df.Changes() {
				switch {
				case ch.Verb == "DROP" && ch.Object == "TABLE":
					assert.Nil(t, back.Table(ch.Name), "dropped %s", ch.Name)
				case ch.Verb == "RENAME" && ch.Object == "TABLE":
					assert.Nil(t, back.Table(ch.Name))
					assert.NotNil(t, back.Table(ch.NewName))
				case ch.Verb == "RENAME" && ch.Object == "FIELD":
					assert.NotNil(t, back.Table(ch.Table).Field(ch.NewName))
				}
			}
		})
	}
}

// incrementalBase is the schema testdata/df/incremental_sections_12.2.df
// changes, as a full .df.
const incrementalBase = `ADD SEQUENCE "OldSeq"
  INITIAL 0
  INCREMENT 1

ADD TABLE "Customer"
  AREA "Data"

ADD FIELD "CustNum" OF "Customer" AS integer 
  ORDER 10

ADD FIELD "Phone" OF "Customer" AS character 
  ORDER 20

ADD FIELD "Balance" OF "Customer" AS integer 
  ORDER 30

ADD FIELD "SalesRep" OF "Customer" AS character 
  ORDER 40

ADD FIELD "Comments" OF "Customer" AS character 
  ORDER 50

ADD FIELD "Fax" OF "Customer" AS character 
  ORDER 60

ADD INDEX "CustNum" ON "Customer" 
  AREA "Index"
  UNIQUE
  INDEX-FIELD "CustNum" ASCENDING 

ADD INDEX "Comments" ON "Customer" 
  AREA "Index"
  WORD
  INDEX-FIELD "Comments" ASCENDING 

ADD INDEX "SalesRep" ON "Customer" 
  AREA "Index"
  PRIMARY
  INDEX-FIELD "SalesRep" ASCENDING 

ADD TABLE "cust-notes"
  AREA "Data"

ADD FIELD "NoteDate" OF "cust-notes" AS date 
  ORDER 10

ADD TABLE "Obsolete"
  AREA "Data"

ADD FIELD "x" OF "Obsolete" AS integer 
  ORDER 10

.
PSC
cpstream=UTF-8
.
0000000000
`

func readStructure(t *testing.T, path string) *openedge.Structure {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := openedge.ParseStructure(f, path)
	require.NoError(t, err)
	return s
}

func readDF(t *testing.T, path string) *openedge.DF {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d, err := openedge.ParseDF(f, path)
	require.NoError(t, err)
	return d
}

func countExtents(s *openedge.Structure) int {
	n := 0
	for _, a := range s.Areas {
		n += len(a.Extents)
	}
	return n
}
