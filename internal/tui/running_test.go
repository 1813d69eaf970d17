package tui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// TestRunningTableShowsBytesAndRate: the running-jobs table shows, for a
// dump (its .bd files growing) and for a load (its .bd read so far), the
// bytes with their share of the table and the recent rate; a job whose
// bytes stop moving sees its rate fall.
func TestRunningTableShowsBytesAndRate(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		kind    string
		bytes   []int64 // at seconds 1, 2, ...
		want    []string
		falling bool
	}{
		{"dump", []int64{2 * mib, 4 * mib, 6 * mib}, []string{"6 MiB", "60%", "2 MiB/s", "1,200"}, false},
		{"load", []int64{1 * mib, 3 * mib, 5 * mib}, []string{"5 MiB", "50%", "MiB/s"}, false},
		{"load", []int64{4 * mib, 4 * mib, 4 * mib}, []string{"4 MiB", "40%"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			now := at(0)
			m := newModel(testOptions(&now, nil), newQueue())
			job := tt.kind + ":PUB.orderline"
			start := ev(0, event.JobStarted, job, tt.kind, "PUB.orderline")
			start.TotalBytes, start.TotalRecords = 10*mib, 2000
			m.st.Apply(start)
			var rates []float64
			for i, b := range tt.bytes {
				p := ev(float64(i+1), event.JobProgress, job, tt.kind, "PUB.orderline")
				p.Bytes, p.Records = b, int64(400*(i+1))
				m.st.Apply(p)
				rates = append(rates, m.st.Running()[0].Rate)
			}
			now = at(float64(len(tt.bytes)))
			lines := strings.Split(m.paint(strings.Join(m.runningTable(120, 10), "\n")), "\n")
			require.Len(t, lines, 2, "heading and one job")
			assert.Contains(t, lines[0], "BYTES")
			assert.Contains(t, lines[0], "RATE")
			for _, w := range tt.want {
				assert.Contains(t, lines[1], w)
			}
			if tt.falling {
				assert.Less(t, rates[2], rates[0], "a stalled job's rate falls")
			} else {
				assert.Positive(t, rates[2])
			}
			assert.True(t, strings.HasPrefix(lines[1], tt.kind))
		})
	}
}
