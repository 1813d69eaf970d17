package store

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Index keys are byte strings whose bytewise order is the index order, so
// that sorting and merging never decode a value. Each component is a marker
// (0x01 known, 0x02 unknown: OpenEdge sorts "?" after every value) and an
// order-preserving image of the value; character values are compared case
// insensitively, as in a default OpenEdge index; a DESCENDING component has
// all its bytes inverted.

// AppendKeyComponent appends the key image of one encoded field value.
func AppendKeyComponent(dst, field []byte, descending bool) []byte {
	start := len(dst)
	if len(field) == 0 || field[0] == tagUnknown {
		dst = append(dst, 0x02)
	} else {
		dst = append(dst, 0x01)
		switch field[0] {
		case tagInt, tagDate, tagDateTime:
			v, _ := binary.Varint(field[1:])
			dst = binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
		case tagDecimal:
			u := binary.LittleEndian.Uint64(field[1:9])
			if math.Float64frombits(u) >= 0 {
				u ^= 1 << 63
			} else {
				u = ^u
			}
			dst = binary.BigEndian.AppendUint64(dst, u)
		case tagFalse:
			dst = append(dst, 0)
		case tagTrue:
			dst = append(dst, 1)
		case tagString, tagBytes:
			l, n := binary.Uvarint(field[1:])
			dst = appendEscaped(dst, field[1+n:1+n+int(l)], field[0] == tagString)
		default: // arrays cannot be indexed in OpenEdge; order them by bytes
			dst = appendEscaped(dst, field, false)
		}
	}
	if descending {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// appendEscaped writes s with 0x00 escaped as 0x00 0xFF and a 0x00 0x01
// terminator, so that a prefix sorts before its extensions. Character
// values are upper-cased (ASCII) for a case-insensitive order, and trailing
// blanks are ignored as OpenEdge does when comparing character values.
func appendEscaped(dst, s []byte, fold bool) []byte {
	if fold {
		s = bytes.TrimRight(s, " ")
	}
	for _, c := range s {
		if fold && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c == 0 {
			dst = append(dst, 0, 0xFF)
			continue
		}
		dst = append(dst, c)
	}
	return append(dst, 0, 0x01)
}

// WordKeys returns the words of a character field for a WORD index: the
// upper-cased runs of letters and digits, each one key.
func WordKeys(field []byte) [][]byte {
	if len(field) == 0 || field[0] != tagString {
		return nil
	}
	l, n := binary.Uvarint(field[1:])
	s := field[1+n : 1+n+int(l)]
	var out [][]byte
	for i := 0; i < len(s); {
		for i < len(s) && !isWordByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j > i {
			out = append(out, appendEscaped([]byte{0x01}, s[i:j], true))
		}
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
