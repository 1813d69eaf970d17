package units

import (
	"testing"

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
		{1024, "1.0 KiB"},
		{6349, "6.2 KiB"},
		{5 << 20, "5.0 MiB"},
		{3 << 29, "1.5 GiB"},
		{2 << 40, "2.0 TiB"},
		{3 << 50, "3.0 PiB"},
		{1 << 62, "4096.0 PiB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatIEC(tt.n), "%d bytes", tt.n)
	}
}
