package tune

import (
	"slices"
	"testing"
)

// obs is one interval of 1 s for the class "load".
func obs(cpu, disk, bytes float64, running, waiting, finished int) Observation {
	return Observation{Seconds: 1, CPUBusy: cpu, DiskBusy: disk, DiskBytes: bytes,
		Classes: []Class{{Name: "load", Running: running, Waiting: waiting, Finished: finished}}}
}

func repeat(n int, o Observation) []Observation {
	out := make([]Observation, n)
	for i := range out {
		out[i] = o
	}
	return out
}

func TestController(t *testing.T) {
	idle := obs(0.2, 0.1, 1e6, 2, 10, 4) // slots full, jobs waiting, nothing busy
	tests := []struct {
		name       string
		start, max int
		steps      [][]Observation
		want       []int // the limit after each group of steps
		reasons    []string
	}{
		{"start-up bound: raises by half, settling between, up to the max", 2, 9,
			[][]Observation{repeat(2, idle), repeat(3, obs(0.2, 0.1, 1e6, 3, 10, 6)), repeat(3, obs(0.2, 0.1, 1e6, 4, 10, 8)),
				repeat(3, obs(0.2, 0.1, 1e6, 6, 10, 12)), repeat(3, obs(0.2, 0.1, 1e6, 9, 10, 16)), repeat(6, obs(0.2, 0.1, 1e6, 9, 10, 16))},
			[]int{3, 4, 6, 9, 9, 9}, []string{ReasonWaiting, ReasonWaiting, ReasonWaiting, ReasonWaiting}},
		{"one interval of waiting is not enough (patience)", 2, 9,
			[][]Observation{{idle, obs(0.2, 0.1, 1e6, 2, 0, 4), idle}},
			[]int{2}, nil},
		{"jobs waiting but slots not full: something else holds them", 2, 9,
			[][]Observation{repeat(4, obs(0.2, 0.1, 1e6, 1, 10, 4))},
			[]int{2}, nil},
		{"CPU binds: holds", 2, 9,
			[][]Observation{repeat(6, obs(0.95, 0.1, 1e6, 2, 10, 4))},
			[]int{2}, nil},
		{"between free and bind: holds (hysteresis)", 2, 9,
			[][]Observation{repeat(6, obs(0.8, 0.8, 1e6, 2, 10, 4))},
			[]int{2}, nil},
		{"a raise into a saturated disk that moved no more bytes is taken back, and the limit stays there", 4, 16,
			[][]Observation{repeat(2, obs(0.2, 0.7, 30e6, 4, 10, 4)), repeat(3, obs(0.3, 0.95, 30.5e6, 6, 10, 4)),
				repeat(8, obs(0.2, 0.5, 20e6, 4, 10, 4))},
			[]int{6, 4, 4}, []string{ReasonWaiting, ReasonContention}},
		{"a raise that moved more bytes while the disk saturated is kept", 4, 16,
			[][]Observation{repeat(2, obs(0.2, 0.7, 30e6, 4, 10, 4)), repeat(3, obs(0.3, 0.95, 40e6, 6, 10, 6))},
			[]int{6, 6}, []string{ReasonWaiting}},
		{"a raise into busy cores that finished no more jobs is taken back", 4, 16,
			[][]Observation{repeat(2, obs(0.7, 0.1, 1e6, 4, 10, 4)), repeat(3, obs(0.97, 0.1, 1e6, 6, 10, 4))},
			[]int{6, 4}, []string{ReasonWaiting, ReasonContention}},
		{"an unknown disk never binds", 2, 3,
			[][]Observation{repeat(2, obs(0.2, -1, 1e9, 2, 10, 4))},
			[]int{3}, []string{ReasonWaiting}},
		{"a start above the max is the max; below 1 is 1", 12, 8,
			nil, nil, nil},
		{"a start of 0 is 1", 0, 8,
			nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(DefaultRules, map[string]int{"load": tc.start}, map[string]int{"load": tc.max})
			if tc.steps == nil {
				if got, want := c.Limit("load"), min(max(tc.start, 1), tc.max); got != want {
					t.Fatalf("limit %d, want %d", got, want)
				}
				return
			}
			var got []int
			var reasons []string
			for _, group := range tc.steps {
				for _, o := range group {
					for _, ch := range c.Observe(o) {
						reasons = append(reasons, ch.Reason)
						if ch.To != c.Limit("load") || ch.Class != "load" {
							t.Fatalf("change %+v but limit %d", ch, c.Limit("load"))
						}
					}
				}
				got = append(got, c.Limit("load"))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("limits %v, want %v", got, tc.want)
			}
			if !slices.Equal(reasons, tc.reasons) {
				t.Errorf("reasons %v, want %v", reasons, tc.reasons)
			}
		})
	}
}

// A class the controller was not started with is left alone, and one the
// observation leaves out does not move.
func TestControllerUnknownClass(t *testing.T) {
	c := New(DefaultRules, map[string]int{"dump": 2}, map[string]int{"dump": 8})
	for range 6 {
		if ch := c.Observe(obs(0.1, 0.1, 0, 2, 10, 1)); len(ch) != 0 {
			t.Fatalf("changes %v for a class it does not hold", ch)
		}
	}
	if c.Limit("load") != 0 || c.Limit("dump") != 2 {
		t.Errorf("limits load %d dump %d, want 0 and 2", c.Limit("load"), c.Limit("dump"))
	}
}
