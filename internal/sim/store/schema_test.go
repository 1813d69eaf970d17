package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestToDFKeepsIndexAttributes: what load_df.p stores, dump_df.p writes
// back as the Data Dictionary does: INACTIVE on an index that is not
// active and ABBREVIATED on the index fields that have it, through the
// DB.db codec as well.
func TestToDFKeepsIndexAttributes(t *testing.T) {
	tests := []struct {
		name  string
		index *openedge.DFIndex
	}{
		{"active, plain", &openedge.DFIndex{Name: "ix", Unique: true, Primary: true,
			Fields: []openedge.DFIndexField{{Name: "a"}}}},
		{"inactive", &openedge.DFIndex{Name: "ix", Inactive: true,
			Fields: []openedge.DFIndexField{{Name: "a"}}}},
		{"abbreviated last field", &openedge.DFIndex{Name: "ix",
			Fields: []openedge.DFIndexField{{Name: "a", Descending: true}, {Name: "b", Abbreviated: true}}}},
		{"inactive and abbreviated", &openedge.DFIndex{Name: "ix", Inactive: true,
			Fields: []openedge.DFIndexField{{Name: "b", Abbreviated: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.index.Table, tt.index.Area = "t", "Data"
			in := &openedge.DFTable{Name: "t", Area: "Data", Indexes: []*openedge.DFIndex{tt.index},
				Fields: []*openedge.DFField{{Name: "a", Table: "t", Type: "integer", Order: 10},
					{Name: "b", Table: "t", Type: "character", Order: 20}}}
			tbl, err := TableFromDF(in, func(string) (int, error) { return 7, nil })
			require.NoError(t, err)
			tbl.Number = 1
			c := &Control{Format: ControlVersion, Tables: []*Table{tbl}}
			decoded, err := decodeControlData(encodeControl(c))
			require.NoError(t, err)
			got := decoded.Tables[0].ToDF(func(int) string { return "Data" }).Indexes[0]
			assert.Equal(t, tt.index.Inactive, got.Inactive, "INACTIVE")
			assert.Equal(t, tt.index.Fields, got.Fields, "INDEX-FIELD lines")
		})
	}
}
