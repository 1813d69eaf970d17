package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// The report and the .df read back as oedl reads them, and describe the
// same tables and indexes.
func TestDatabaseReadsBack(t *testing.T) {
	for _, n := range []int{1, 99, 1000} {
		a, tables := database(n)
		var tba, df bytes.Buffer
		require.NoError(t, openedge.WriteAnalysis(&tba, a))
		_, err := openedge.NewDF(tables, nil, "UTF-8").WriteTo(&df)
		require.NoError(t, err)
		back, err := openedge.ParseAnalysis(&tba, "src.tba")
		require.NoError(t, err)
		require.Len(t, back.Tables, n)
		require.Len(t, back.Indexes, len(a.Indexes))
		d, err := openedge.ParseDF(&df, "src.df")
		require.NoError(t, err)
		require.Len(t, d.Tables(), n)
		for _, st := range back.Tables {
			dt := d.Table(st.Name)
			require.NotNil(t, dt, st.Name)
			require.Equal(t, st.Area, dt.Area, st.Name)
		}
	}
}
