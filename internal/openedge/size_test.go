package openedge

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0.0B"},
		{848, "848.0B"},
		{1023, "1023.0B"},
		{1024, "1.0K"},
		{6348, "6.2K"},
		{150588, "147.1K"},
		{2306867, "2.2M"},
		{16857756057, "15.7G"},
		{3 << 40, "3.0T"},
		{5 << 50, "5120.0T"}, // T is the largest unit the report knows
		{-1536, "-1.5K"},
		{math.MaxInt64, "8388608.0T"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatSize(tt.in), "FormatSize(%d)", tt.in)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"848.0B", 848, ""},
		{"6.2K", 6349, ""}, // 6.2 × 1024 = 6348.8, nearest byte
		{"147.1K", 150630, ""},
		{"2.2M", 2306867, ""},
		{"15.7G", 16857746637, ""},
		{"1.0T", 1 << 40, ""},
		{"0.0B", 0, ""},
		{"12k", 12288, ""},
		{"150588", 150588, ""}, // -csoutput prints raw byte counts
		{"3.", 3, ""},
		{"", 0, "empty size"},
		{"K", 0, "malformed size"},
		{"1.2.3K", 0, "malformed size"},
		{"-1.0K", 0, "malformed size"},
		{"-5", 0, "negative size"},
		{"NaNK", 0, "malformed size"},
		{"1e3B", 0, "malformed size"},
		{"6.2X", 0, "malformed size"},
		{"9999999999T", 0, "does not fit in 64 bits"},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, "ParseSize(%q)", tt.in)
			continue
		}
		require.NoError(t, err, "ParseSize(%q)", tt.in)
		assert.Equal(t, tt.want, got, "ParseSize(%q)", tt.in)
	}
}

// FuzzParseSize: no panic, and a size that parses prints and parses back
// to a value within the report's rounding (one decimal of the unit).
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"848.0B", "6.2K", "15.7G", "1.0T", "0", "1e9", "-1", "..K", "99999999999999999999T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, n, int64(0))
		back, err := ParseSize(FormatSize(n))
		require.NoError(t, err)
		require.InDelta(t, float64(n), float64(back), float64(n)*0.05+1)
	})
}
