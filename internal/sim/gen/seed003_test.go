package gen

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestSeed003Shape checks the profile against the seed's slides at the
// full scale and at the small scales the benchmarks use: the table count,
// the four big tables (their records and sizes at full scale), the long
// tail of tables of about a kilobyte, and the Type I areas.
func TestSeed003Shape(t *testing.T) {
	tests := []struct {
		scale        int64
		minTop4Share float64 // of all the bytes
		exactBig     bool    // the seed's record counts and sizes
	}{
		{seed003FullScale, 0.45, true},
		{200 << 20, 0.40, false},
		{20 << 20, 0.40, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.scale>>20, "MB"), func(t *testing.T) {
			db, err := Generate("seed003", tt.scale, 1)
			require.NoError(t, err)
			assert.Len(t, db.Tables, 873, "the seed's 873 tables at every scale")
			assert.InEpsilon(t, tt.scale, db.Bytes(), 0.05, "scaled to the size asked for")

			type sized struct {
				name  string
				bytes int64
			}
			var all []sized
			var kilobyte, inSchema int
			for _, tb := range db.Tables {
				b := tb.Records * int64(tb.MeanSize)
				all = append(all, sized{tb.Name, b})
				if tb.Records > 0 && b <= 2048 {
					kilobyte++
				}
				if tb.Area == areaSchema {
					inSchema++
				}
			}
			slices.SortFunc(all, func(a, b sized) int { return int(b.bytes - a.bytes) })
			var top4 int64
			var names []string
			for _, s := range all[:4] {
				top4 += s.bytes
				names = append(names, s.name)
			}
			assert.ElementsMatch(t, []string{"xxext_xref", "gltmp_det", "gltr_hist", "glec_det"}, names, "the seed's four big tables are the biggest")
			assert.GreaterOrEqual(t, float64(top4)/float64(db.Bytes()), tt.minTop4Share, "the four dominate the bytes")
			assert.Less(t, float64(all[4].bytes), float64(1<<30)*float64(tt.scale)/seed003FullScale, "only four tables over 1 GB (scaled)")
			assert.GreaterOrEqual(t, kilobyte, 400, "hundreds of tables of about a kilobyte")
			assert.Greater(t, inSchema, 20, "objects in the Schema Area")
			assert.Equal(t, areaSchema, db.Table("xxext_xref").Area)

			if tt.exactBig {
				for _, want := range seed003Big {
					tb := db.Table(want.name)
					require.NotNil(t, tb, want.name)
					assert.Equal(t, want.records, tb.Records, want.name)
					assert.InEpsilon(t, want.bytes, tb.Records*int64(tb.MeanSize), 0.01, "%s: the seed's size", want.name)
					assert.GreaterOrEqual(t, tb.Records*int64(tb.MeanSize), int64(1<<30), "%s is over 1 GB", want.name)
				}
			}
		})
	}
}

// TestSeed003Areas checks the structure: the Schema Area and the seed's
// 18 table and 18 index areas, all Type I, every table and index in one.
func TestSeed003Areas(t *testing.T) {
	db, err := Generate("seed003", 20<<20, 1)
	require.NoError(t, err)
	require.NoError(t, db.Structure.Validate())
	var data, index int
	areas := map[string]bool{}
	for _, a := range db.Structure.Areas {
		areas[a.Name] = true
		assert.False(t, a.TypeII(), "%s is Type I", a.Name)
		switch {
		case a.Type != openedge.AreaData, a.Name == areaSchema:
		case len(a.Name) > 4 && a.Name[len(a.Name)-4:] == "_IDX":
			index++
		default:
			data++
		}
	}
	assert.Equal(t, 18, data, "18 table areas")
	assert.Equal(t, 18, index, "18 index areas")
	used := map[string]bool{}
	for _, tb := range db.Tables {
		require.True(t, areas[tb.Area], "%s: area %q", tb.Name, tb.Area)
		used[tb.Area] = true
		for _, ix := range tb.Def.Indexes {
			require.True(t, areas[ix.Area], "%s.%s: area %q", tb.Name, ix.Name, ix.Area)
			used[ix.Area] = true
		}
	}
	assert.Len(t, used, 37, "every area holds objects")
}
