package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size multiples, powers of 1024.
const (
	KB int64 = 1 << (10 * (iota + 1))
	MB
	GB
	TB
	PB
)

// suffixes maps an upper-cased unit to its multiple. "KIB" is accepted
// because people paste it from other tools; it means the same as "K".
var suffixes = map[string]int64{
	"":    1,
	"B":   1,
	"K":   KB,
	"KB":  KB,
	"KIB": KB,
	"M":   MB,
	"MB":  MB,
	"MIB": MB,
	"G":   GB,
	"GB":  GB,
	"GIB": GB,
	"T":   TB,
	"TB":  TB,
	"TIB": TB,
	"P":   PB,
	"PB":  PB,
	"PIB": PB,
}

// ParseBytes reads a size such as "512MB", "1.5G", "100 K" or "0" and returns
// it in bytes. Units are case-insensitive; a bare number is bytes; decimals
// are rounded to the nearest byte. Negative sizes, unknown units and sizes
// beyond int64 are errors that quote the text.
func ParseBytes(s string) (int64, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return 0, fmt.Errorf("size %q: empty", s)
	}
	// Split the number from the unit at the first character that cannot be
	// part of a plain decimal number.
	end := 0
	for end < len(text) && (text[end] >= '0' && text[end] <= '9' || text[end] == '.') {
		end++
	}
	num, unit := text[:end], strings.ToUpper(strings.TrimSpace(text[end:]))
	if num == "" {
		if strings.HasPrefix(text, "-") {
			return 0, fmt.Errorf("size %q: must not be negative", s)
		}
		return 0, fmt.Errorf("size %q: must start with a number, as in 512MB or 1.5G", s)
	}
	mult, ok := suffixes[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (use B, K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB, P, PB or PiB: all powers of 1024)", s, text[end:])
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || (n != 0 && mult > math.MaxInt64/n) {
			return 0, fmt.Errorf("size %q: too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || strings.Count(num, ".") > 1 || num == "." {
		return 0, fmt.Errorf("size %q: %q is not a number", s, num)
	}
	v := math.Round(f * float64(mult))
	// float64(MaxInt64) rounds up to 2^63, so >= is the overflow test.
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return int64(v), nil
}
