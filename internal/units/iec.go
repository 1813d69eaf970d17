package units

import "fmt"

// FormatIEC is a size for progress lines and reports, in binary units with
// one decimal and IEC symbols so that nobody reads them as powers of ten:
// "848 B", "6.2 KiB", "1.5 GiB".
func FormatIEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
