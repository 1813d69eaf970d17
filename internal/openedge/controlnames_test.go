package openedge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestControlIn(t *testing.T) {
	tests := []struct {
		name string
		want rune
		ok   bool
	}{
		{"Customer", 0, false},
		{"cust-order", 0, false},
		{"pay#roll$2%x&y_z", 0, false}, // every special character "Name limits" allows
		{"Preço", 0, false},            // UTF-8 accents: not refused here (nu-trial4 keeps them)
		{"Pre\xe7o", 0, false},         // a 1252 byte: kept as bytes, not a control
		{`o'b"r$(x)` + "`y`;z", 0, false},
		{"esc\x1b]52;c;aGk=\x07", 0x1b, true}, // OSC 52: writes the terminal's clipboard
		{"bel\x07", 0x07, true},
		{"cr\rx", '\r', true},
		{"lf\nx", '\n', true},
		{"tab\tx", '\t', true},
		{"nul\x00", 0, true},
		{"del\x7f", 0x7f, true},
		{"csi\u009b31m", 0x9b, true},   // C1 CSI
		{"rtl\u202eabc", 0x202e, true}, // shows the name reversed
		{"zw\u200bsp", 0x200b, true},
	}
	for _, tt := range tests {
		r, ok := ControlIn(tt.name)
		assert.Equal(t, tt.ok, ok, "%q", tt.name)
		assert.Equal(t, tt.want, r, "%q", tt.name)
	}
}

func TestDFControlNames(t *testing.T) {
	src := "ADD SEQUENCE \"s\x1bq\"\n  INITIAL 1\n\n" +
		"ADD TABLE \"ok\"\n  AREA \"Data\"\n\n" +
		"ADD FIELD \"f\rx\" OF \"ok\" AS integer\n\n" +
		"ADD INDEX \"i\x07\" ON \"ok\"\n  INDEX-FIELD \"f\rx\" ASCENDING\n\n" +
		"ADD TABLE \"t\u202e\"\n\n.\n"
	df, err := ParseDF(strings.NewReader(src), "x.df")
	require.NoError(t, err)
	got := df.ControlNames()
	require.Len(t, got, 4, "%q", got)
	assert.Contains(t, got, `x.df:7: field "f\rx" holds the control character U+000D`)
	assert.Contains(t, got, `x.df:9: index "i\a" holds the control character U+0007`)
	assert.Contains(t, got, `x.df:1: sequence "s\x1bq" holds the control character U+001B`)
	assert.Contains(t, got, `x.df:12: table "t\u202e" holds the control character U+202E`)
	for _, p := range got {
		_, raw := ControlIn(p)
		assert.False(t, raw, "the message prints no control character raw: %q", p)
	}
	var none *DF
	assert.Empty(t, none.ControlNames())
}
