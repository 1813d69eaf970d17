package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/store"
)

// TestBracketReadMatchesScan: reading a dumpspecified range through the
// index gives the records a table scan filtered record by record gives, in
// the same order; ranges it cannot serve fall back to the scan.
func TestBracketReadMatchesScan(t *testing.T) {
	_, dbPath := smallDB(t)
	db, err := store.Open(store.PathsFor(dbPath))
	require.NoError(t, err)
	defer db.Close()
	for _, tc := range []struct {
		table, field string
		conds        [][2]string
		bracket      bool
	}{
		{"OrderLine", "Ordernum", [][2]string{{"LE", "100"}}, true},
		{"OrderLine", "Ordernum", [][2]string{{"GT", "50"}, {"LT", "60"}}, true},
		{"OrderLine", "Ordernum", [][2]string{{"EQ", "7"}}, true},
		{"OrderLine", "Ordernum", [][2]string{{"GE", "999999"}}, true},
		{"OrderLine", "Ordernum", [][2]string{{"LT", "1"}}, true},
		{"Invoice", "InvoiceDate", [][2]string{{"GE", "01-01-2000"}}, true},
		{"Invoice", "InvoiceDate", [][2]string{{"GE", "06-01-2020"}, {"LE", "12-31-2022"}}, true},
		{"Customer", "CustNum", [][2]string{{"GE", "10"}, {"LE", "20"}}, true},
		{"Customer", "Country", [][2]string{{"EQ", "USA"}}, false}, // character: scanned
		{"Invoice", "Amount", [][2]string{{"GT", "100"}}, false},   // not an index's leading field
	} {
		t.Run(tc.table+"."+tc.field, func(t *testing.T) {
			tb := db.Ctl.Table(tc.table)
			require.NotNil(t, tb)
			fpos := tb.FieldPos(tc.field)
			require.GreaterOrEqual(t, fpos, 0)
			var conds []cond
			for _, c := range tc.conds {
				cd, err := parseCond(c[0], c[1], tb.Fields[fpos].Type)
				require.NoError(t, err)
				conds = append(conds, cd)
			}
			ix := tb.PrimaryIndex()
			for _, cand := range tb.Indexes {
				if !cand.Word && len(cand.Fields) > 0 && cand.Fields[0].Pos == fpos {
					ix = cand
					break
				}
			}
			got, gotOrder, ok, err := bracketRead(db, tb, ix, fpos, conds, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.bracket, ok)
			want, wantOrder, err := scanSpecified(db, tb, ix, fpos, conds, nil)
			require.NoError(t, err)
			if !ok {
				return
			}
			inOrder := func(img *tableImage, order []int32) []int64 {
				out := make([]int64, len(order))
				for i, k := range order {
					out[i] = img.recids[k]
				}
				return out
			}
			assert.Equal(t, inOrder(want, wantOrder), inOrder(got, gotOrder))
			t.Logf("%d records", len(gotOrder))
		})
	}
}
