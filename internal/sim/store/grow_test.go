package store

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVariableExtentGrowthIsChargedOnce: the blocks an area's variable
// extent grows by are charged as formatted (Type II segments are whole
// clusters, so it grows by clusters), once each however many segments
// land in them; a fixed extent's blocks
// were formatted at prostrct create and charge nothing; an area truncated
// and filled again formats its variable extent again.
func TestVariableExtentGrowthIsChargedOnce(t *testing.T) {
	const bs = 8192
	tests := []struct {
		name    string
		bpc     int
		extents []Extent
	}{
		{"Type I, variable only", 1, []Extent{{}}},
		{"Type II 64, variable only", 64, []Extent{{}}},
		{"Type II 8, fixed then variable", 8, []Extent{{Fixed: true, SizeKB: 512}, {}}},
		{"Type II 512, fixed large enough", 512, []Extent{{Fixed: true, SizeKB: 64 * 1024}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			af := newTestArea(t, tt.bpc, tt.extents...)
			var charged []int64
			af.format = func(n int64) error { charged = append(charged, n); return nil }
			variable := tt.extents[len(tt.extents)-1].Path
			sizeOf := func() int64 {
				st, err := os.Stat(variable)
				require.NoError(t, err)
				return st.Size()
			}
			fill := func() {
				before := sizeOf()
				charged = nil
				for table := 3; table < 6; table++ {
					writeRecords(t, af, table, 3000, 100)
				}
				hwm, err := af.HighWater()
				require.NoError(t, err)
				var fixed int64
				for _, e := range tt.extents[:len(tt.extents)-1] {
					fixed += e.SizeKB * 1024
				}
				var sum int64
				for _, n := range charged {
					sum += n
				}
				after := sizeOf()
				assert.Equal(t, after-before, sum, "every block the variable extent grew by, once")
				if hwm*bs > fixed {
					assert.Equal(t, hwm*bs-fixed, after, "the variable extent reaches the high-water mark, no further")
					assert.Positive(t, sum)
				} else {
					assert.Zero(t, sum, "the fixed extent holds it all: formatted at prostrct create")
				}
			}
			fill()
			require.NoError(t, af.Truncate())
			fill()
		})
	}
}
