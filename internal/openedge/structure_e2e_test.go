package openedge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestStructureThroughProstrct drives oesim's prostrct with a hand-written
// .st (comments, CRLF, unnumbered areas, a path with a blank, sizes that
// need rounding), then reads `prostrct list` back with ParseStructure, as
// oedl does with a real database: the listed structure must validate, be
// numbered from 7 in file order and carry the fixed sizes RoundExtentKB
// predicts.
func TestStructureThroughProstrct(t *testing.T) {
	d := newSimDLC(t)
	require.NoError(t, os.MkdirAll(filepath.Join(d.work, "data vol"), 0o755))
	st := strings.ReplaceAll(`# target structure, hand-written
b . f 10000
b .
d "Schema Area":6,32;1 .
* customer data in a directory with a blank
d "Cust Data",64;8 !"data vol" f 100000
d "Cust Data",64;8 !"data vol"
d "Cust Index",32;64 . f 1000
d "Cust Index",32;64 .
`, "\n", "\r\n")
	require.NoError(t, os.WriteFile(filepath.Join(d.work, "target.st"), []byte(st), 0o644))

	d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctCreateArgs("target", "target.st", 8192))
	d.ok(openedge.ToolProstrct, openedge.ToolProstrct, openedge.ProstrctListArgs("target", "listed.st"))

	f, err := os.Open(filepath.Join(d.work, "listed.st"))
	require.NoError(t, err)
	defer f.Close()
	listed, err := openedge.ParseStructure(f, "listed.st")
	require.NoError(t, err)
	require.NoError(t, listed.Validate())

	data := listed.Area("cust data")
	require.NotNil(t, data)
	assert.Equal(t, 7, data.Number, "unnumbered areas get numbers from 7 in file order")
	assert.Equal(t, []int{64, 8}, []int{data.RPB, data.BPC})
	require.Len(t, data.Extents, 2)
	assert.Equal(t, openedge.RoundExtentKB(100000, 8192), data.Extents[0].SizeKB)
	assert.True(t, data.Extents[0].Fixed)
	assert.False(t, data.Extents[1].Fixed)
	assert.Contains(t, data.Extents[0].Path, "data vol", "the path with a blank survives the list")

	index := listed.Area("Cust Index")
	require.NotNil(t, index)
	assert.Equal(t, 8, index.Number)
	assert.Equal(t, openedge.RoundExtentKB(1000, 8192), index.Extents[0].SizeKB)

	schema := listed.Area(openedge.SchemaAreaName)
	require.NotNil(t, schema)
	assert.Equal(t, openedge.SchemaAreaNum, schema.Number)
}

// TestStructureErrorsThroughProstrct: a .st that breaks the rules makes
// prostrct fail, and what it prints names the file and the lines, from
// Validate.
func TestStructureErrorsThroughProstrct(t *testing.T) {
	d := newSimDLC(t)
	st := "b .\nd \"Schema Area\":6,32;1 .\nd \"Data\":7,48;8 .\nd \"Data\":7,48;8 . f 1024\n"
	require.NoError(t, os.WriteFile(filepath.Join(d.work, "bad.st"), []byte(st), 0o644))
	out, code := d.run(openedge.ToolProstrct, openedge.ProstrctCreateArgs("bad", "bad.st", 8192))
	assert.NotZero(t, code)
	assert.Contains(t, out, "bad.st:3: area \"Data\": records per block 48 is not a power of 2")
	assert.Contains(t, out, "bad.st:3: area \"Data\": a variable extent must be the last extent of its area (line 4 follows)")

	// The database's limits, not the grammar's: a Type II Schema Area, a
	// variable transaction log extent, an extent over 1 TB.
	st = "b .\nd \"Schema Area\":6,64;8 .\nt . f 1024\nt .\nd \"Data\":7,64;8 . f 1073741952\nd \"Data\":7,64;8 .\n"
	require.NoError(t, os.WriteFile(filepath.Join(d.work, "limits.st"), []byte(st), 0o644))
	out, code = d.run(openedge.ToolProstrct, openedge.ProstrctCreateArgs("limits", "limits.st", 8192))
	assert.NotZero(t, code)
	assert.Contains(t, out, "limits.st:2: area \"Schema Area\": the Schema Area is a Type I area")
	assert.Contains(t, out, "limits.st:4: t area: the transaction log area has fixed extents only")
	assert.Contains(t, out, "limits.st:5: area \"Data\": extent size 1073741952 KB is more than 1 TB")
	assert.NoFileExists(t, filepath.Join(d.work, "limits.db"))
}
