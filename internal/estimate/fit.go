package estimate

import (
	"errors"
	"math"

	"github.com/oedl/oedl/internal/diskstats"
)

// sample is one timed utility call of the calibration.
type sample struct {
	Job     string  `json:"job"`
	Records float64 `json:"records"`
	Bytes   float64 `json:"bytes"`
	Indexes float64 `json:"indexes,omitempty"` // idxbuild: indexes rebuilt
	Wall    float64 `json:"wall_s"`
	CPU     float64 `json:"cpu_s"` // user+sys of the utility
	// IO is what the disk counted for the call (requests and sectors),
	// when calibrate reads its counters.
	IO *diskstats.Counts `json:"io,omitempty"`
}

// fitLinear fits y = a + b·x1 + c·x2 by least squares with a, b, c ≥ 0:
// the unconstrained fit first, then, if a coefficient comes out negative,
// the best fit with it pinned to zero (a negative start-up or per-record
// cost is noise, not physics).
func fitLinear(x1, x2, y []float64) (a, b, c float64, err error) {
	if len(y) < 3 {
		return 0, 0, 0, errors.New("need at least 3 samples")
	}
	ones := make([]float64, len(y))
	for i := range ones {
		ones[i] = 1
	}
	cols := [][]float64{ones, x1, x2}
	best := [3]float64{}
	bestErr := math.Inf(1)
	// Try every subset of the three terms (at most 8 small solves) and keep
	// the non-negative fit with the smallest squared error.
	for mask := 1; mask < 8; mask++ {
		var use []int
		for k := range 3 {
			if mask&(1<<k) != 0 {
				use = append(use, k)
			}
		}
		coef, ok := solveLeastSquares(cols, use, y)
		if !ok {
			continue
		}
		neg := false
		for _, v := range coef {
			neg = neg || v < 0
		}
		if neg {
			continue
		}
		var full [3]float64
		for i, k := range use {
			full[k] = coef[i]
		}
		var sse float64
		for i := range y {
			r := y[i] - full[0] - full[1]*x1[i] - full[2]*x2[i]
			sse += r * r
		}
		if sse < bestErr*(1-1e-9) {
			best, bestErr = full, sse
		}
	}
	if math.IsInf(bestErr, 1) {
		return 0, 0, 0, errors.New("no non-negative fit")
	}
	return best[0], best[1], best[2], nil
}

// solveLeastSquares solves the normal equations for the chosen columns.
func solveLeastSquares(cols [][]float64, use []int, y []float64) ([]float64, bool) {
	n := len(use)
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n+1)
		for j := range n {
			for r := range y {
				m[i][j] += cols[use[i]][r] * cols[use[j]][r]
			}
		}
		for r := range y {
			m[i][n] += cols[use[i]][r] * y[r]
		}
	}
	// Gauss-Jordan with partial pivoting; columns are scaled very
	// differently (1, records, bytes), so pivot on the relative size.
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) < 1e-300 {
			return nil, false
		}
		m[col], m[p] = m[p], m[col]
		for r := range n {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for k := col; k <= n; k++ {
				m[r][k] -= f * m[col][k]
			}
		}
	}
	out := make([]float64, n)
	for i := range n {
		out[i] = m[i][n] / m[i][i]
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, false
		}
	}
	return out, true
}
