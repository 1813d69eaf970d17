package units

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"100", 100},
		{"100B", 100},
		{"100K", 100 * 1024},
		{"100k", 100 * 1024},
		{"100KB", 100 * 1024},
		{"100kib", 100 * 1024},
		{"512MB", 512 << 20},
		{"512 mb", 512 << 20},
		{" 2GB ", 2 << 30},
		{"1.5G", 3 << 29},
		{"1.5gb", 3 << 29},
		{"0.5K", 512},
		{".5K", 512},
		{"1.", 1},
		{"1T", 1 << 40},
		{"8191TB", 8191 << 40},
		{"8388607T", 8388607 << 40},
		{"1.1K", 1126}, // 1126.4 rounds to nearest
		{"9223372036854775807", math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBytes(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseBytesErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"-1G", "negative"},
		{"GB", "must start with a number"},
		{"12XB", `unknown unit "XB"`},
		{"12 G B", "unknown unit"},
		{"1.2.3G", "not a number"},
		{"1e3", "unknown unit"},
		{"8388608T", "too large"},
		{"9223372036854775808", "too large"},
		{"8388608.5T", "too large"},
		{"99999999999999999999999", "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseBytes(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), `"`+tt.in+`"`, "the error quotes the text")
		})
	}
}

// TestFormatParseRoundTrip checks that what FormatIEC prints reads back
// with ParseBytes within the rounding of one decimal of the unit.
func TestFormatParseRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 999, 1024, 1500, 1 << 20, 123456789, 5 << 30, 7<<40 + 3} {
		got, err := ParseBytes(FormatIEC(n))
		require.NoError(t, err, FormatIEC(n))
		assert.InEpsilon(t, float64(n)+1, float64(got)+1, 0.05, "%d -> %s -> %d", n, FormatIEC(n), got)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "512MB", "1.5G", "100 k", "-1", "1.2.3", "8388608T", ".", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseBytes(%q) = %d with error %v", s, n, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseBytes(%q) = %d, negative", s, n)
		}
		// Whatever parses must print and parse again.
		if _, err := ParseBytes(FormatIEC(n)); err != nil && n < 8191<<50 {
			t.Fatalf("FormatIEC(%d) = %q does not parse: %v", n, FormatIEC(n), err)
		}
	})
}
