package units

import "fmt"

// FormatIEC prints a byte count the one way oedl shows sizes: powers of
// 1024 with IEC names ("848 B", "6.2 KiB", "64 MiB", "1.5 GiB"), one
// decimal, none when it is zero. It rounds to the nearest tenth and
// promotes to the next unit rather than print "1024 KiB".
func FormatIEC(n int64) string {
	sign := ""
	u := uint64(n)
	if n < 0 {
		sign = "-"
		u = uint64(-(n + 1)) + 1 // -MinInt64 does not fit in int64
	}
	names := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	for i := len(names) - 1; i >= 0; i-- {
		mult := uint64(1) << (10 * (i + 1))
		// u is at least 1.0 of this unit once rounded: 1023.96 KiB would
		// print as "1024 KiB", so it is "1 MiB". Bytes are whole.
		if (i > 0 && u+mult/20480 >= mult) || (i == 0 && u >= mult) {
			tenths := (u/mult)*10 + ((u%mult)*10+mult/2)/mult
			if tenths%10 == 0 {
				return fmt.Sprintf("%s%d %s", sign, tenths/10, names[i])
			}
			return fmt.Sprintf("%s%d.%d %s", sign, tenths/10, tenths%10, names[i])
		}
	}
	return fmt.Sprintf("%s%d B", sign, u)
}

// FormatRate prints bytes per second: "12.4 MiB/s"; "" when r is not
// positive (unknown).
func FormatRate(r float64) string {
	if r <= 0 || r != r {
		return ""
	}
	return FormatIEC(int64(r)) + "/s"
}
