package openedge

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes of the analysis reports, each 1024 times the
// previous one. The report's own "Size key:" footer lists exactly these.
const sizeUnits = "BKMGT"

var sizeMultipliers = [len(sizeUnits)]float64{1, 1 << 10, 1 << 20, 1 << 30, 1 << 40}

// FormatSize prints a byte count the way tabanalys prints its Size columns:
// powers of 1024, one decimal, a one-letter suffix ("848.0B", "6.2K",
// "15.7G"). Negative counts keep their sign.
func FormatSize(n int64) string {
	var buf [24]byte
	return string(appendSize(buf[:0], n))
}

// appendSize is FormatSize without the allocation, for the report writer.
func appendSize(dst []byte, n int64) []byte {
	v := float64(n)
	if n < 0 {
		dst = append(dst, '-')
		v = -v
	}
	unit := 0
	for v >= 1024 && unit < len(sizeUnits)-1 {
		v /= 1024
		unit++
	}
	dst = strconv.AppendFloat(dst, v, 'f', 1, 64)
	return append(dst, sizeUnits[unit])
}

// ParseSize converts a report size ("848.0B", "6.2K") to bytes, rounding to
// the nearest byte. The suffix follows the number directly and is
// case-insensitive. A bare integer is taken as bytes, which is what the
// -csoutput files print.
func ParseSize(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := 1.0
	num := s
	if i := strings.IndexByte(sizeUnits, upperASCII(s[len(s)-1])); i >= 0 {
		num = s[:len(s)-1]
		mult = sizeMultipliers[i]
	} else if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("negative size %q", s)
		}
		return n, nil
	}
	if num == "" || !isUnsignedDecimal(num) {
		return 0, fmt.Errorf("malformed size %q (want a number and one of B, K, M, G, T)", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed size %q: %w", s, err)
	}
	b := math.Round(v * mult)
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q does not fit in 64 bits", s)
	}
	return int64(b), nil
}

// isUnsignedDecimal accepts digits with at most one '.', and at least one digit:
// ParseFloat alone would also take "Inf", "NaN", "1e9" and "-3".
func isUnsignedDecimal(s string) bool {
	digits, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
