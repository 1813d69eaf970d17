package openedge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDFErrorQuotesItsLineSafely: the .df error that quotes the start of
// a line must not carry the line's bytes to the terminal as they are. A
// CRLF file given as --df (a .st from Windows) put its \r in the message,
// and the terminal wrote the rest of the message over its start; a binary
// file's bytes can be escape sequences (new-user trial 6).
func TestDFErrorQuotesItsLineSafely(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       string
	}{
		{"CRLF line", "b .\r\nd \"Schema Area\":6,32;1 .\r\n", `:1: b . outside a statement`},
		{"escape sequence", "\x1b[2J\x1b[H cleared\n", `:1: \x1b[2J\x1b[H cleared outside a statement`},
		{"not UTF-8", "pre\xe7o\n", `:1: pre\xe7o outside a statement`},
		{"long UTF-8 line cut at a character", strings.Repeat("€", 20) + "\n", ":1: " + strings.Repeat("€", 13) + "... outside a statement"},
		{"unterminated string with CRLF", "ADD TABLE \"x\r\n", `unterminated string starting "x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDF(strings.NewReader(tc.data), "in.df")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\r")
			assert.NotContains(t, err.Error(), "\x1b")
		})
	}
}
