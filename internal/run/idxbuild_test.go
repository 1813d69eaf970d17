package run

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
)

// TestAreaProgress: idxbuild's progress is the tables of the areas it has
// finished, read from its console as it comes (in chunks that split
// lines), keyed on message numbers.
func TestAreaProgress(t *testing.T) {
	p := &plan.Plan{
		Areas: []plan.Area{{Name: "Data A", Number: 8}, {Name: "Data B", Number: 10}, {Name: "Idx", Number: 9}},
		Tables: []plan.Placement{
			{Table: "PUB.a1", DataArea: "Data A", Records: 10, Bytes: 1000},
			{Table: "PUB.a2", DataArea: "Data A", Records: 5, Bytes: 500},
			{Table: "PUB.b", DataArea: "Data B", Records: 100, Bytes: 20000},
		},
	}
	steps := []struct {
		out            string
		records, bytes int64
	}{
		{"TB value is 64, TM value is 32, SG value is 64, packing factor is 100. (13943)\nProcessing area 8 : (11463)\n", 0, 0},
		{"Building index 12 (CustNum) of group 8\nBuilding of indexes in group 8 completed. Elapsed time: 0.002\nA total of 0K of temp", 0, 0},
		{"orary sort disk space was used for area 8. (11483)\n", 15, 1500},
		{"Processing area 10 : (11463)\n", 15, 1500},
		{"Processing area 12 : (11463)\n", 115, 21500}, // 10 done; 12 holds nothing of the plan
		{"garbage line (0)\n(11463)\n", 115, 21500},
	}
	a := newAreaProgress(p)
	for i, s := range steps {
		n, err := a.Write([]byte(s.out))
		assert.NoError(t, err)
		assert.Equal(t, len(s.out), n)
		r, b := a.done()
		assert.Equal(t, [2]int64{s.records, s.bytes}, [2]int64{r, b}, "after chunk %d", i)
	}
}
