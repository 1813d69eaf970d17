package estimate

import (
	"context"
	"testing"
)

func TestDebugSweep(t *testing.T) {
	base := readSeedHardware(t)
	p := seed003Plan()
	for _, lat := range []float64{0.5, 1, 2} {
		for _, zd := range []float64{64, 128, 256} {
			for _, zl := range []float64{64, 128, 256} {
				hw := base
				hw.DiskLatencyMs = lat
				m := DefaultModel()
				m.Dump.IOSizeKB, m.Load.IOSizeKB = zd, zl
				st, _ := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: m, Strategy: seedStrategy(hw, true)})
				ov, _ := Run(context.Background(), Input{Plan: p, Hardware: hw, Model: m, Strategy: seedStrategy(hw, false)})
				d, l := phase(t, st, "dump").Duration.D(), phase(t, st, "load").Duration.D()
				o := (max(phase(t, ov, "dump").End, phase(t, ov, "load").End) - phase(t, ov, "dump").Start).D()
				t.Logf("lat %.1f zd %.0f zl %.0f: dump %.0f load %.0f over %.0f idx %.0f", lat, zd, zl, d.Seconds(), l.Seconds(), o.Seconds(), phase(t, st, "idxbuild").Duration.D().Seconds())
			}
		}
	}
}
