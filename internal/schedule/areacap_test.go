package schedule

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/plan"
)

func TestAreaLoadCaps(t *testing.T) {
	p := &plan.Plan{
		Areas: []plan.Area{{Name: "Small8", BPC: 8}, {Name: "Medium64", BPC: 64}, {Name: "Large512", BPC: 512},
			{Name: "TypeOne", BPC: 1}, {Name: "Blank", BPC: 0}},
		Tables: []plan.Placement{{Table: "PUB.a", DataArea: "Small8"}, {Table: "PUB.b", DataArea: "Medium64"},
			{Table: "PUB.c", DataArea: "Large512"}, {Table: "PUB.d", DataArea: "TypeOne"}, {Table: "PUB.e", DataArea: "Blank"},
			{Table: "PUB.f", DataArea: "Schema Area"}},
	}
	for _, tc := range []struct {
		name    string
		n       int
		perArea int
		areas   map[string]int
	}{
		{"default: Type I areas one at a time, Type II uncapped", 0, 0, map[string]int{"TypeOne": 1, "Blank": 1, "Schema Area": 1}},
		{"explicit cap on every area", 2, 2, nil},
		{"negative: no cap anywhere", -1, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			per, areas := AreaLoadCaps(p, tc.n)
			assert.Equal(t, tc.perArea, per)
			assert.Equal(t, tc.areas, areas)
		})
	}
}
