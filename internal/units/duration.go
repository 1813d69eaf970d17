package units

import (
	"fmt"
	"time"
)

// FormatDuration prints a duration the one way oedl shows them: "0.4s",
// "4.3s" under ten seconds, "42s", "3m05s", "1h02m" (seconds do not matter
// once a phase takes hours). Never time.Duration's "10.600000381s".
func FormatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	switch {
	case d == 0:
		return "0s"
	case d < 10*time.Second:
		tenths := int64(d.Round(100*time.Millisecond) / (100 * time.Millisecond))
		if tenths%10 == 0 {
			return fmt.Sprintf("%s%ds", sign, tenths/10)
		}
		return fmt.Sprintf("%s%d.%ds", sign, tenths/10, tenths%10)
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%s%ds", sign, int64(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%s%dm%02ds", sign, int64(d/time.Minute), int64(d%time.Minute/time.Second))
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%s%dh%02dm", sign, int64(d/time.Hour), int64(d%time.Hour/time.Minute))
	}
}

// FormatClock is a duration for a live clock that ticks once a second:
// whole seconds always ("0s", "9s", "3m05s", "1h02m"), so the header does
// not flicker between "4.3s" and "4.4s".
func FormatClock(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 10*time.Second && d > -10*time.Second {
		return fmt.Sprintf("%ds", int64(d/time.Second))
	}
	return FormatDuration(d)
}
