package report

import (
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

// thousands writes n with comma separators: 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// plural writes "1 job", "2 jobs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(int64(n)) + " " + noun + "s"
}
