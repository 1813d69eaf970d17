package sysmem

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Info
	}{
		{"both", "MemTotal:       24567890 kB\nMemFree: 1 kB\nMemAvailable:   1000 kB\n", Info{24567890 << 10, 1000 << 10}},
		{"no MemAvailable (kernels before 3.14)", "MemTotal: 2048 kB\n", Info{Total: 2048 << 10}},
		{"nothing", "MemFree: 1 kB\n", Info{}},
		{"not a number", "MemTotal: lots kB\n", Info{}},
		{"negative", "MemTotal: -5 kB\n", Info{}},
		{"empty", "", Info{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Parse(strings.NewReader(tc.in)))
		})
	}
}

func TestReadThisMachine(t *testing.T) {
	in := Read()
	if in.Total == 0 {
		t.Skip("no /proc/meminfo here")
	}
	assert.LessOrEqual(t, in.Available, in.Total)
}

func FuzzParse(f *testing.F) {
	f.Add("MemTotal: 24567890 kB\nMemAvailable: 100 kB\n")
	f.Add("MemTotal:\n")
	f.Fuzz(func(t *testing.T, s string) {
		in := Parse(strings.NewReader(s))
		if in.Total < 0 || in.Available < 0 {
			t.Fatalf("negative memory %+v from %q", in, s)
		}
	})
}
