package openedge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OptionLines gives each statement's option lines as written: a value
// spanning lines whole, CRLF line ends off, comment lines out, options on
// the header line first, bytes of any codepage untouched.
func TestOptionLines(t *testing.T) {
	src := "ADD TABLE \"T\"\r\n  AREA \"Data\"\r\n  VALEXP \"a > 0 AND\r\n  b <> \"\"\"\"\"\r\n# a comment\r\n  LABEL \"Per\xa1odo\"\r\n\r\n" +
		"ADD FIELD \"f\" OF \"T\" AS decimal DECIMALS 10\r\n  FORMAT \">>9.99\"\r\n\r\n" +
		"ADD INDEX \"i\" ON \"T\" \r\n  UNIQUE\r\n  INDEX-FIELD \"f\" ASCENDING \r\n\r\n" +
		"ADD SEQUENCE \"s\"\r\n  INITIAL 5\r\n\r\n" +
		"UPDATE FIELD \"f\" OF \"T\" AS decimal\r\n  LABEL \"F\"\r\n\r\n" +
		".\r\nPSC\r\ncpstream=ISO8859-1\r\n.\r\n0000000000\r\n"
	d, err := ParseDF(strings.NewReader(src), "t.df")
	require.NoError(t, err)
	tbl := d.Table("T")
	assert.Equal(t, []string{`  AREA "Data"`, "  VALEXP \"a > 0 AND\r\n  b <> \"\"\"\"\"", "  LABEL \"Per\xa1odo\""}, d.OptionLines(tbl))
	assert.Equal(t, []string{`  DECIMALS 10`, `  FORMAT ">>9.99"`}, d.OptionLines(tbl.Fields[0]))
	assert.Equal(t, []string{`  UNIQUE`, `  INDEX-FIELD "f" ASCENDING `}, d.OptionLines(tbl.Indexes[0]))
	assert.Equal(t, []string{`  INITIAL 5`}, d.OptionLines(d.Sequences()[0]))
	assert.Equal(t, []string{`  LABEL "F"`}, d.OptionLines(d.Changes()[0]))
	assert.Nil(t, d.OptionLines(&DFTable{Name: "T"}), "not an object of this DF")
}
