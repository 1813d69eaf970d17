package openedge_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestDFThroughLoadAndDump is oedl's path for definitions, against oesim:
// the source .df (testdata/df/sports.df) with every table, index and LOB
// moved to new areas by the Set* methods, loaded into a new database with
// load_df.p, dumped again with dump_df.p and parsed. The dumped typed views
// must show the new areas and the same tables, fields, indexes and
// sequences.
func TestDFThroughLoadAndDump(t *testing.T) {
	d := newSimDLC(t)
	src, err := os.ReadFile(filepath.Join("testdata", "df", "sports.df"))
	require.NoError(t, err)
	df, err := openedge.ParseDF(bytes.NewReader(src), "sports.df")
	require.NoError(t, err)
	for _, tb := range df.Tables() {
		require.NoError(t, df.SetTableArea(tb.Name, "Cust Data"))
		for _, ix := range tb.Indexes {
			require.NoError(t, df.SetIndexArea(tb.Name, ix.Name, "Cust Index"))
		}
		for _, f := range tb.Fields {
			if f.IsLOB() {
				require.NoError(t, df.SetLobArea(tb.Name, f.Name, "Cust Lobs"))
			}
		}
	}
	var target bytes.Buffer
	_, err = df.WriteTo(&target)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(d.work, "target.df"), target.Bytes(), 0o644))

	st := "b .\nd \"Schema Area\":6,64;1 .\nd \"Cust Data\":7,64;8 .\nd \"Cust Index\":8,64;64 .\nd \"Cust Lobs\":9,4;512 .\n"
	require.NoError(t, os.WriteFile(filepath.Join(d.work, "target.st"), []byte(st), 0o644))
	d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctCreateArgs("target", "target.st", 8192))
	d.ok(openedge.ToolProcopy, openedge.ToolProcopy, openedge.ProcopyArgs(filepath.Join(d.dlc, "empty8"), "target"))
	d.ok(openedge.ToolProgres, openedge.ToolProgres, openedge.ProgresArgs("target", "prodict/load_df.p", "target.df"))
	d.ok(openedge.ToolProgres, openedge.ToolProgres, openedge.ProgresArgs("target", "prodict/dump_df.p", "ALL,dumped.df,"))

	f, err := os.Open(filepath.Join(d.work, "dumped.df"))
	require.NoError(t, err)
	defer f.Close()
	dumped, err := openedge.ParseDF(f, "dumped.df")
	require.NoError(t, err)

	require.Len(t, dumped.Tables(), len(df.Tables()))
	for _, want := range df.Tables() {
		got := dumped.Table(want.Name)
		require.NotNil(t, got, "table %s", want.Name)
		assert.Equal(t, "Cust Data", got.Area, want.Name)
		require.Len(t, got.Fields, len(want.Fields), want.Name)
		for _, wf := range want.Fields {
			gf := got.Field(wf.Name)
			require.NotNil(t, gf, "%s.%s", want.Name, wf.Name)
			assert.Equal(t, wf.Type, gf.Type, "%s.%s", want.Name, wf.Name)
			assert.Equal(t, wf.Extent, gf.Extent, "%s.%s", want.Name, wf.Name)
			if wf.IsLOB() {
				assert.Equal(t, "Cust Lobs", gf.LobArea, "%s.%s", want.Name, wf.Name)
			}
		}
		require.Len(t, got.Indexes, len(want.Indexes), want.Name)
		for _, wi := range want.Indexes {
			gi := got.Index(wi.Name)
			require.NotNil(t, gi, "%s.%s", want.Name, wi.Name)
			assert.Equal(t, "Cust Index", gi.Area)
			require.Len(t, gi.Fields, len(wi.Fields), "%s.%s", want.Name, wi.Name)
			for k, wf := range wi.Fields {
				assert.Equal(t, []any{wf.Name, wf.Descending, wf.Abbreviated},
					[]any{gi.Fields[k].Name, gi.Fields[k].Descending, gi.Fields[k].Abbreviated}, "%s.%s", want.Name, wi.Name)
			}
			assert.Equal(t, []bool{wi.Unique, wi.Primary, wi.Word, wi.Inactive}, []bool{gi.Unique, gi.Primary, gi.Word, gi.Inactive},
				"%s.%s", want.Name, wi.Name)
		}
	}
	require.Len(t, dumped.Sequences(), len(df.Sequences()))
	for i, s := range df.Sequences() {
		assert.Equal(t, s.Name, dumped.Sequences()[i].Name)
		assert.Equal(t, s.Increment, dumped.Sequences()[i].Increment)
	}
}
