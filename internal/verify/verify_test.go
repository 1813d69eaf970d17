package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/openedge"
)

func analysis(db string, rows ...openedge.TableStat) *openedge.Analysis {
	return &openedge.Analysis{Database: db, Tables: rows}
}

func tbl(name string, n int64) openedge.TableStat {
	return openedge.TableStat{Owner: "PUB", Name: name, Records: n}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		before *openedge.Analysis
		after  *openedge.Analysis
		ok     bool
		bad    map[string]Status
		errHas string
	}{
		{
			name:   "equal",
			before: analysis("src", tbl("Customer", 1117), tbl("Order", 3953), tbl("_File", 40)),
			after:  analysis("dst", tbl("Order", 3953), tbl("Customer", 1117), tbl("_File", 44)),
			ok:     true,
		},
		{
			name:   "names are case-insensitive",
			before: analysis("src", tbl("Customer", 5)),
			after:  analysis("dst", tbl("customer", 5)),
			ok:     true,
		},
		{
			name:   "count mismatch, missing and extra",
			before: analysis("src", tbl("Customer", 1117), tbl("Order", 3953), tbl("Item", 55)),
			after:  analysis("dst", tbl("Customer", 1116), tbl("Order", 3953), tbl("Bogus", 1)),
			bad:    map[string]Status{"PUB.Customer": Mismatch, "PUB.Item": Missing, "PUB.Bogus": Extra},
			errHas: "3 table(s) do not match: PUB.Bogus not in the source (1 records); PUB.Customer 1117 -> 1116; PUB.Item missing after (had 55 records)",
		},
		{
			name: "awkward names",
			before: analysis("src", tbl(`odd "quoted" $(rm -rf) naïve`, 3),
				openedge.TableStat{Owner: "SYSPROGRESS", Name: "SYSTABLES", Records: 9}),
			after: analysis("dst", tbl(`odd "quoted" $(rm -rf) naïve`, 2)),
			bad:   map[string]Status{`PUB.odd "quoted" $(rm -rf) naïve`: Mismatch},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(NewSide(tt.before, "before.tba"), NewSide(tt.after, "after.tba"))
			assert.Equal(t, tt.ok, r.OK)
			got := map[string]Status{}
			for _, b := range r.Bad {
				got[b.Table] = b.Status
			}
			if tt.bad == nil {
				tt.bad = map[string]Status{}
			}
			assert.Equal(t, tt.bad, got)
			if tt.ok {
				assert.NoError(t, r.Err())
				if r.Note == "" {
					assert.Equal(t, r.Before.Checksum, r.After.Checksum, "equal counts must give equal checksums")
				}
			} else {
				require.Error(t, r.Err())
				assert.NotEqual(t, r.Before.Checksum, r.After.Checksum)
				if tt.errHas != "" {
					assert.Equal(t, tt.errHas, r.Err().Error())
				}
			}
		})
	}
}

func TestSideIgnoresMetaSchema(t *testing.T) {
	s := NewSide(analysis("db", tbl("_Area", 9), tbl("Customer", 3),
		openedge.TableStat{Owner: "SYSPROGRESS", Name: "SYSTABLES", Records: 9}), "x")
	assert.Equal(t, 2, s.Ignored)
	assert.Equal(t, []Count{{Table: "PUB.Customer", Records: 3}}, s.Tables)
	assert.Equal(t, "PUB.Customer 3\n", s.List())
}

// The checksum in the report is exactly what sha256sum prints for the
// counts file written next to it.
func TestChecksumIsSha256sumOfList(t *testing.T) {
	dir := t.TempDir()
	r := Compare(NewSide(analysis("a", tbl("Customer", 3), tbl("Order", 4)), "a"),
		NewSide(analysis("b", tbl("Customer", 3), tbl("Order", 4)), "b"))
	require.NoError(t, Write(dir, r))
	data, err := os.ReadFile(filepath.Join(dir, BeforeList))
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	assert.Equal(t, hex.EncodeToString(sum[:]), r.Before.Checksum)

	js, err := os.ReadFile(filepath.Join(dir, JSONFile))
	require.NoError(t, err)
	var back Result
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, r.Before.Checksum, back.Before.Checksum)
	assert.True(t, back.OK)
}

// A verdict MATCH above two different checksums, with nothing said, read
// as a contradiction (nu-trial8: a target whose .df spelled a table name
// in capitals); the note verify.json carried is printed under them.
func TestWriteTextSaysWhyMatchingChecksumsDiffer(t *testing.T) {
	r := Compare(NewSide(analysis("src", tbl("cu_mstr", 254)), "prod.dba"), NewSide(analysis("dst", tbl("CU_MSTR", 254)), "new.tba"))
	require.True(t, r.OK)
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, r))
	assert.Contains(t, buf.String(), "MATCH")
	assert.Contains(t, buf.String(), "note:    every table matches; the checksums differ only because table names differ in letter case")
}

func TestWriteTextGolden(t *testing.T) {
	r := Compare(NewSide(analysis("src", tbl("Customer", 1117), tbl("Order", 3953), tbl("Item", 55)), "work/source.tba"),
		NewSide(analysis("dst", tbl("Customer", 1116), tbl("Order", 3953)), "work/target.tba"))
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, r))
	golden.Assert(t, filepath.Join("testdata", "mismatch.txt"), buf.Bytes())
}
