package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFitLinear(t *testing.T) {
	tests := []struct {
		name    string
		x1, x2  []float64
		y       []float64
		a, b, c float64
	}{
		{
			name: "exact", x1: []float64{1e3, 1e5, 1e6, 5e4}, x2: []float64{1e5, 2e7, 1e8, 1e6},
			// 0.3 s + 2 µs/record + 10 ns/byte
			y: []float64{0.3 + 2e-3 + 1e-3, 0.3 + 0.2 + 0.2, 0.3 + 2 + 1, 0.3 + 0.1 + 0.01},
			a: 0.3, b: 2e-6, c: 1e-8,
		},
		{
			// The unconstrained fit wants a negative start-up: pinned to 0.
			name: "no negative intercept", x1: []float64{0, 0, 0}, x2: []float64{1, 2, 3},
			y: []float64{0.9, 2.1, 2.9}, a: 0, b: 0, c: 0.985714,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, c, err := fitLinear(tt.x1, tt.x2, tt.y)
			require.NoError(t, err)
			assert.InDelta(t, tt.a, a, 1e-4)
			assert.InDelta(t, tt.b, b, 1e-9)
			assert.InDelta(t, tt.c, c, 1e-5)
		})
	}
	_, _, _, err := fitLinear([]float64{1}, []float64{1}, []float64{1})
	assert.Error(t, err)
}

func TestRobustFitIgnoresAStall(t *testing.T) {
	// 0.1 s + 10 ns/byte, and one call that stalled for 2 s.
	x1 := make([]float64, 10)
	var x2, y []float64
	for i := range 10 {
		b := float64(i+1) * 1e6
		x2 = append(x2, b)
		y = append(y, 0.1+b*1e-8)
	}
	y[3] += 2
	a, _, c, err := robustFit(x1, x2, y)
	require.NoError(t, err)
	assert.InDelta(t, 0.1, a, 1e-6)
	assert.InDelta(t, 1e-8, c, 1e-12)
}

func TestRobustFitIgnoresABurstOfStalls(t *testing.T) {
	// 0.11 s + 10 ns/byte over 30 calls, a third of them stalled by
	// 0.3 to 2 s (a neighbour's burst): one trim is not enough.
	x1 := make([]float64, 30)
	var x2, y []float64
	for i := range 30 {
		b := float64(i+1) * 1e5
		x2 = append(x2, b)
		y = append(y, 0.11+b*1e-8)
	}
	for i, stall := range []float64{2, 0.6, 0.7, 0.8, 0.5, 0.4, 0.3, 0.6, 0.4, 0.3} {
		y[3*i+1] += stall
	}
	a, _, c, err := robustFit(x1, x2, y)
	require.NoError(t, err)
	assert.InDelta(t, 0.11, a, 1e-6)
	assert.InDelta(t, 1e-8, c, 1e-12)
}
