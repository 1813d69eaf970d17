package openedge

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlternatePool(t *testing.T) {
	f, err := os.Open("../../testdata/df/multitenant_bufferpool_11.7.df")
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	d, err := ParseDF(f, "bp.df")
	require.NoError(t, err)
	assert.Equal(t, []AlternatePoolObject{
		{Object: "TABLE", Table: "Region", Line: 75},
		{Object: "INDEX", Table: "Region", Name: "Code", Line: 78},
	}, d.AlternatePool())

	// In an ADD statement, and "Primary" is no assignment.
	src := "ADD TABLE \"t\"\n  AREA \"Data\"\n  BUFFER-POOL \"Alternate\"\n\n" +
		"ADD INDEX \"i\" ON \"t\"\n  AREA \"Data\"\n  BUFFER-POOL \"Primary\"\n  INDEX-FIELD \"f\" ASCENDING\n\n" +
		"ADD FIELD \"img\" OF \"t\" AS blob\n  LOB-AREA \"Data\"\n  BUFFER-POOL \"alternate\"\n\n.\nPSC\ncpstream=UTF-8\n.\n0000000000\n"
	d, err = ParseDF(strings.NewReader(src), "add.df")
	require.NoError(t, err)
	assert.Equal(t, []AlternatePoolObject{
		{Object: "TABLE", Table: "t", Line: 1},
		{Object: "FIELD", Table: "t", Name: "img", Line: 10},
	}, d.AlternatePool())
}
