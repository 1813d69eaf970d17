package gen

import (
	"math/bits"
	"time"
)

// EncodedSize is the size in bytes of a row in oesim's record encoding (a
// tag byte per field, varints for integers and dates, length-prefixed
// strings and bytes, 8-byte decimals; see internal/sim/store), without the
// frame around a record. It is the measure MeanSize and the scale of a
// profile are expressed in, so "--scale 200MB" means 200 MB of records as
// tabanalys counts them.
func EncodedSize(r Row) int {
	n := 0
	for _, v := range r {
		n += valueSize(v)
	}
	return n
}

func valueSize(v any) int {
	switch x := v.(type) {
	case nil, bool:
		return 1
	case int64:
		return 1 + varintLen(x)
	case int:
		return 1 + varintLen(int64(x))
	case string:
		return 1 + uvarintLen(uint64(len(x))) + len(x)
	case []byte:
		return 1 + uvarintLen(uint64(len(x))) + len(x)
	case float64:
		return 9
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return 1 + varintLen(x.Unix()/86400)
		}
		return 1 + varintLen(x.UnixMilli())
	case []any:
		n := 1 + uvarintLen(uint64(len(x)))
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	}
	return 1
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(uint64(x<<1) ^ uint64(x>>63)) }
