package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/truebound"
)

func TestReachable(t *testing.T) {
	bound := truebound.Bound{Disk: truebound.Part{Name: "disk", Time: 20 * time.Second}, Serial: truebound.Part{Name: "serial", Time: 9 * time.Second}}
	ok := func(s float64) result { return result{wall: time.Duration(s * float64(time.Second)), verified: true} }
	for _, tc := range []struct {
		name     string
		kit, run result
		bound    truebound.Bound
		want     string
	}{
		{"the kit over the largest part", ok(35), ok(26), bound, "1.75"},
		{"kit failed", result{wall: 35 * time.Second}, ok(26), bound, "-"},
		{"oedl failed: no bound was built", ok(35), result{}, bound, "-"},
		{"no bound", ok(35), ok(26), truebound.Bound{}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, reachable(tc.kit, tc.run, tc.bound))
		})
	}
}
