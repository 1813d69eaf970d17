package units

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFormatIEC(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{848, "848 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{6349, "6.2 KiB"},
		{5 << 20, "5 MiB"},
		{64 << 20, "64 MiB"}, // --threaded-dump-min 64MB echoed as given
		{16462643, "15.7 MiB"},
		{1<<20 - 1, "1 MiB"}, // 1023.999 KiB is promoted, never "1024 KiB"
		{1<<20 - 60, "1023.9 KiB"},
		{3 << 29, "1.5 GiB"},
		{-(3 << 29), "-1.5 GiB"},
		{2 << 40, "2 TiB"},
		{3 << 50, "3 PiB"},
		{1 << 62, "4096 PiB"},
		{math.MinInt64, "-8192 PiB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatIEC(tt.n), "%d bytes", tt.n)
	}
}

func TestFormatRate(t *testing.T) {
	assert.Equal(t, "12.4 MiB/s", FormatRate(12.4*(1<<20)))
	assert.Equal(t, "", FormatRate(0), "unknown")
	assert.Equal(t, "", FormatRate(math.NaN()))
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 26209: "26,209", 1234567: "1,234,567", -1234: "-1,234"} {
		assert.Equal(t, want, Thousands(n))
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{40 * time.Millisecond, "0s"},
		{400 * time.Millisecond, "0.4s"},
		{10600000381, "11s"}, // a timeout: never "10.600000381s"
		{4300 * time.Millisecond, "4.3s"},
		{3 * time.Second, "3s"},
		{42 * time.Second, "42s"},
		{185 * time.Second, "3m05s"},
		{time.Hour + 2*time.Minute + 29*time.Second, "1h02m"},
		{-3 * time.Second, "-3s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatDuration(tt.d), "%v", tt.d)
	}
	assert.Equal(t, "4s", FormatClock(4300*time.Millisecond), "a clock shows whole seconds")
	assert.Equal(t, "3m05s", FormatClock(185*time.Second))
}
