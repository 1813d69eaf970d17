package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

func TestReadable(t *testing.T) {
	row := func(owner, name, area string, num int, n int64) openedge.TableStat {
		return openedge.TableStat{Owner: owner, Name: name, Area: area, AreaNum: num, Records: n}
	}
	tests := []struct {
		name    string
		a       openedge.Analysis
		wantErr string
	}{
		{"application tables whose rows add up", openedge.Analysis{
			Tables: []openedge.TableStat{row("PUB", "customer", "Data", 7, 1117), row("PUB", "order", "Data", 7, 10)},
			Areas:  []openedge.AreaSummary{{Name: "Data", Number: 7, Records: 1127}},
		}, ""},
		{"no table at all", openedge.Analysis{}, "no application table"},
		{"an ixanalys", openedge.Analysis{Options: "ixanalys", Indexes: []openedge.IndexStat{{Owner: "PUB", Table: "customer", Name: "id"}}},
			"an index analysis (Options: ixanalys) counts no records: give the report of proutil -C tabanalys or dbanalys"},
		{"meta-schema only", openedge.Analysis{Tables: []openedge.TableStat{row("PUB", "_File", "Schema Area", 6, 30)}}, "no application table"},
		{"an area counts records its rows do not", openedge.Analysis{
			Tables: []openedge.TableStat{row("PUB", "customer", "Data", 7, 1117)},
			Areas:  []openedge.AreaSummary{{Name: "Data", Number: 7, Records: 1264}},
		}, `AREA "Data": 7 counts 1264 records, its table rows 1117`},
		{"an area whose rows were all unread", openedge.Analysis{
			Tables: []openedge.TableStat{row("PUB", "customer", "Data", 7, 1117)},
			Areas:  []openedge.AreaSummary{{Name: "Data", Number: 7, Records: 1117}, {Name: "Info", Number: 8, Records: 147}},
		}, `AREA "Info": 8 counts 147 records, its table rows 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Readable(&tt.a, "before.tba")
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "before.tba: "), "names the file: %v", err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// Two reports of one analysis (the same file given twice, a copy, the
// source analysed twice by a wrong path) matched table by table and said
// MATCH, exit 0, of a target never looked at (nu-trial8, verify of a target
// loaded by hand). The header's database and date tell one analysis;
// reports without a date (hand-made fixtures) are not judged by it.
func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
		return p
	}
	a, b := write("before.tba"), write("after.tba")
	link := filepath.Join(dir, "same.tba")
	require.NoError(t, os.Link(a, link))
	src := &openedge.Analysis{Database: "/db/prod", Date: "Sat Nov 28 05:22:31 2026"}
	later := &openedge.Analysis{Database: "/db/prod", Date: "Sun Nov 29 06:01:10 2026"}
	undated := &openedge.Analysis{Database: "/db/prod"}
	tests := []struct {
		name          string
		before, after *openedge.Analysis
		bf, af        string
		want          string
	}{
		{"the same database analysed again later (a target made at the source's path)", src, later, a, b, ""},
		{"the same analysis in two files", src, src, a, b, a + " and " + b + " are one analysis: database /db/prod, Date: Sat Nov 28 05:22:31 2026"},
		{"the same file", src, later, a, a, "--before and --after are the same file"},
		{"the same file by another name", src, later, a, link, "--before and --after are the same file"},
		{"no date: not judged by it", undated, undated, a, b, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Distinct(tt.before, tt.after, tt.bf, tt.af)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
