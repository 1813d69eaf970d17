package openedge

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// utf16File is text as Windows PowerShell's > saves it: a BOM, then UTF-16.
func utf16File(text string, order binary.AppendByteOrder) []byte {
	b := []byte{0xFF, 0xFE}
	if order == binary.AppendByteOrder(binary.BigEndian) {
		b = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(text)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

func TestFromUTF16(t *testing.T) {
	text := "RECORD BLOCK SUMMARY FOR AREA \"Área de Dados\": 7\r\nPUB.cliente 10 100.0B\r\n"
	assert.Equal(t, text, string(FromUTF16(utf16File(text, binary.LittleEndian))))
	assert.Equal(t, text, string(FromUTF16(utf16File(text, binary.BigEndian))))
	assert.Equal(t, text, string(FromUTF16([]byte(text))), "anything else unchanged")
	assert.Empty(t, FromUTF16([]byte{0xFF, 0xFE}))

	// A whole report saved by PowerShell reads as the report.
	report, err := os.ReadFile(filepath.Join(realWorld, "tabanalys", "no_owner_doc_12.2.tabanalys"))
	require.NoError(t, err)
	want, err := ParseAnalysis(bytes.NewReader(report), "r")
	require.NoError(t, err)
	got, err := ParseAnalysis(bytes.NewReader(FromUTF16(utf16File(string(report), binary.LittleEndian))), "r")
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// FuzzFromUTF16: any bytes, no panic; without a BOM nothing changes.
func FuzzFromUTF16(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0})
	f.Add([]byte{0xFE, 0xFF, 0, 'a', 0xD8})
	f.Add([]byte("OpenEdge Release"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := FromUTF16(in)
		if len(in) < 2 || !(in[0] == 0xFF && in[1] == 0xFE || in[0] == 0xFE && in[1] == 0xFF) {
			require.Equal(t, in, out)
		}
	})
}
