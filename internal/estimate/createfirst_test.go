package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The estimate's machine has one disk: an unprepared target's formatting
// shares it with the dumps, which then wait for it, as the run does for a
// target on the source's filesystem. Prepared (nothing formatted in the
// window) or elsewhere (another device), the dumps start beside it.
func TestStrategyDumpsAfterCreate(t *testing.T) {
	tests := []struct {
		name string
		s    Strategy
		want bool
	}{
		{"created in the window on the one disk", Strategy{DumpJobs: 4, LoadJobs: 2}, true},
		{"prepared before the window", Strategy{DumpJobs: 4, LoadJobs: 2, Prepared: true}, false},
		{"the target on another device", Strategy{DumpJobs: 4, LoadJobs: 2, DumpsBesideCreate: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.s.BuildOptions(nil).DumpsAfterCreate)
		})
	}
}
