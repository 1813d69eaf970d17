package verify

import (
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
