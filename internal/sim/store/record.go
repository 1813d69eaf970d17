package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Field value tags of the record encoding. A record is the concatenation of
// its fields in schema order, each a tag byte followed by the value.
const (
	tagUnknown  = 0 // the unknown value "?"
	tagInt      = 1 // zig-zag varint
	tagString   = 2 // uvarint length + bytes
	tagDecimal  = 3 // float64, 8 bytes little endian
	tagFalse    = 4
	tagTrue     = 5
	tagDate     = 6 // varint days since 1970-01-01
	tagBytes    = 7 // uvarint length + bytes (raw, blob)
	tagArray    = 8 // uvarint count + elements (EXTENT fields)
	tagDateTime = 9 // varint Unix milliseconds
)

var errShortRecord = errors.New("record truncated")

// AppendValue appends one field value to a record being encoded. Values are
// the generator's: int64 (also int), string, float64, bool, time.Time,
// []byte, []any (array field) or nil (unknown).
func AppendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagUnknown), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), x), nil
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(x)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt), int64(x)), nil
	case string:
		b = binary.AppendUvarint(append(b, tagString), uint64(len(x)))
		return append(b, x...), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagDecimal), math.Float64bits(x)), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			days := x.Unix() / 86400
			if x.Unix() < 0 && x.Unix()%86400 != 0 {
				days--
			}
			return binary.AppendVarint(append(b, tagDate), days), nil
		}
		return binary.AppendVarint(append(b, tagDateTime), x.UnixMilli()), nil
	case []byte:
		b = binary.AppendUvarint(append(b, tagBytes), uint64(len(x)))
		return append(b, x...), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = AppendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	default:
		return nil, fmt.Errorf("unsupported field value %T", v)
	}
}

// EncodeRecord encodes a whole row.
func EncodeRecord(dst []byte, row []any) ([]byte, error) {
	var err error
	for _, v := range row {
		if dst, err = AppendValue(dst, v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// skipValue returns the length of the encoded value at the start of b.
func skipValue(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errShortRecord
	}
	switch b[0] {
	case tagUnknown, tagFalse, tagTrue:
		return 1, nil
	case tagInt, tagDate, tagDateTime:
		_, n := binary.Varint(b[1:])
		if n <= 0 {
			return 0, errShortRecord
		}
		return 1 + n, nil
	case tagDecimal:
		if len(b) < 9 {
			return 0, errShortRecord
		}
		return 9, nil
	case tagString, tagBytes:
		l, n := binary.Uvarint(b[1:])
		if n <= 0 || uint64(len(b)-1-n) < l {
			return 0, errShortRecord
		}
		return 1 + n + int(l), nil
	case tagArray:
		c, n := binary.Uvarint(b[1:])
		if n <= 0 {
			return 0, errShortRecord
		}
		off := 1 + n
		for i := uint64(0); i < c; i++ {
			m, err := skipValue(b[off:])
			if err != nil {
				return 0, err
			}
			off += m
		}
		return off, nil
	default:
		return 0, fmt.Errorf("bad field tag %d", b[0])
	}
}

// FieldSlices splits an encoded record into its encoded fields, up to n of
// them (n < 0: all). The slices alias rec.
func FieldSlices(rec []byte, n int, dst [][]byte) ([][]byte, error) {
	dst = dst[:0]
	for off := 0; off < len(rec) && (n < 0 || len(dst) < n); {
		m, err := skipValue(rec[off:])
		if err != nil {
			return nil, err
		}
		dst = append(dst, rec[off:off+m])
		off += m
	}
	return dst, nil
}

// DecodeValue decodes one encoded field (as returned by FieldSlices).
func DecodeValue(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, errShortRecord
	}
	switch b[0] {
	case tagUnknown:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagInt:
		v, _ := binary.Varint(b[1:])
		return v, nil
	case tagDate:
		d, _ := binary.Varint(b[1:])
		return time.Unix(d*86400, 0).UTC(), nil
	case tagDateTime:
		ms, _ := binary.Varint(b[1:])
		return time.UnixMilli(ms).UTC(), nil
	case tagDecimal:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[1:9])), nil
	case tagString, tagBytes:
		l, n := binary.Uvarint(b[1:])
		s := b[1+n : 1+n+int(l)]
		if b[0] == tagString {
			return string(s), nil
		}
		return append([]byte(nil), s...), nil
	case tagArray:
		c, n := binary.Uvarint(b[1:])
		off := 1 + n
		out := make([]any, 0, c)
		for i := uint64(0); i < c; i++ {
			m, err := skipValue(b[off:])
			if err != nil {
				return nil, err
			}
			v, err := DecodeValue(b[off : off+m])
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			off += m
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad field tag %d", b[0])
}

// DecodeRecord decodes every field of a record.
func DecodeRecord(rec []byte) ([]any, error) {
	fs, err := FieldSlices(rec, -1, nil)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(fs))
	for i, f := range fs {
		if out[i], err = DecodeValue(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}
