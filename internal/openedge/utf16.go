package openedge

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// FromUTF16 gives the UTF-8 text of a file saved as UTF-16 with a byte
// order mark, and data unchanged otherwise. A report the DBA redirected
// on Windows comes out that way: Windows PowerShell's `proutil db -C
// tabanalys > prod.tba` writes UTF-16LE with a BOM, and read byte by byte
// it holds no line oedl knows.
func FromUTF16(data []byte) []byte {
	var order binary.ByteOrder
	switch {
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		order = binary.LittleEndian
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		order = binary.BigEndian
	default:
		return data
	}
	units := make([]uint16, 0, (len(data)-2)/2)
	for i := 2; i+1 < len(data); i += 2 {
		units = append(units, order.Uint16(data[i:]))
	}
	return []byte(string(utf16.Decode(units)))
}

// refuseUTF16 is the error for a .df or .st saved as UTF-16 (Notepad's
// "Unicode", a Windows PowerShell redirect): unlike a report, which oedl
// only reads, these files go to the utilities as they are (load_df.p reads
// a .df in its cpstream code page, prostrct a .st as plain text), and
// converting one would change bytes oedl writes back.
func refuseUTF16(data []byte, name, saveAs string) error {
	if len(data) < 2 || !(data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return nil
	}
	return fmt.Errorf("%s:1: the file is UTF-16 (byte order mark %02X %02X), which the OpenEdge utilities do not read: save it %s", name, data[0], data[1], saveAs)
}
