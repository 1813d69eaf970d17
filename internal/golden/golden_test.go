package golden

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFirstDiff(t *testing.T) {
	tests := []struct {
		name, want, got string
		line            int
		ok              bool
	}{
		{"equal", "a\nb\n", "a\nb\n", 0, true},
		{"changed line", "a\nb\nc", "a\nB\nc", 2, false},
		{"got longer", "a\n", "a\nb\n", 2, false},
		{"got shorter", "a\nb", "a", 2, false},
		{"empty vs text", "", "x", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, _, _, ok := firstDiff(tt.want, tt.got)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.line, line)
		})
	}
}
