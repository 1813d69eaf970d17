package tui

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAboveChunksFitTheRowsAbove: every group printed above the live area
// fits in the rows the screen has above it, in bubbletea's count of rows,
// and the groups give back the lines in order (nu-trial10: one Println of
// dozens of finished jobs over a 23-row live area at 80x24 garbled it).
func TestAboveChunksFitTheRowsAbove(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = "✓ dump PUB.t" + strings.Repeat("x", i%7) + " 3 records, 1 KiB in 0s"
	}
	tests := []struct {
		name    string
		lines   []string
		w, free int
		groups  int
	}{
		{"one row above: a line each", many, 80, 1, 40},
		{"ten rows above", many, 80, 10, 4},
		{"all fit", many, 80, 50, 1},
		{"a terminal shorter than the live area: a line each", many, 80, -3, 40},
		{"size unknown: one group", many, 0, 0, 1},
		{"a line twice as wide as the screen takes 3 rows", []string{strings.Repeat("a", 160), "b", "c"}, 80, 4, 2},
		{"nothing", nil, 80, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aboveChunks(tt.lines, tt.w, tt.free)
			assert.Len(t, got, tt.groups)
			var back []string
			for _, g := range got {
				rows := 0
				for _, l := range strings.Split(g, "\n") {
					rows++
					if lw := ansi.StringWidth(l); tt.w > 0 && lw > tt.w {
						rows += lw / tt.w
					}
				}
				if tt.free > 0 && tt.w > 0 && strings.Count(g, "\n") > 0 {
					assert.LessOrEqual(t, rows, tt.free, "group %q", g)
				}
				back = append(back, strings.Split(g, "\n")...)
			}
			if len(tt.lines) > 0 {
				assert.Equal(t, tt.lines, back)
			}
		})
	}
}

// TestPrintedAboveKeepsTheLiveAreaOnScreen runs the screen at 80x24 and
// lets a frame finish 60 tables at once: every insertion above the live
// area moves the cursor up over the inserted rows and the live area by no
// more than the terminal has rows (bubbletea's insertAbove writes CSI u A
// then CSI n L; u = n + live area - 1), else the terminal stops the cursor
// at its top row and the live area is drawn over the wrong rows from then
// on (nu-trial10).
func TestPrintedAboveKeepsTheLiveAreaOnScreen(t *testing.T) {
	events := synthRun(t, 60)
	now := events[len(events)-1].Time
	opts := testOptions(&now, nil)
	opts.Interval = 30 * time.Millisecond // bubbletea's own frames come every 16 ms here
	p := New(opts)
	tm := teatest.NewTestModel(t, newModel(p.opts, p.q), teatest.WithInitialTermSize(80, 24))
	for _, e := range events {
		p.Emit(e)
	}
	var seen []byte // WaitFor reads the output: keep what it read
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen = append(seen[:0], b...)
		return bytes.Contains(b, []byte("✓ load PUB.t0059"))
	}, teatest.WithDuration(5*time.Second))
	p.Close()
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	rest, err := io.ReadAll(tm.FinalOutput(t))
	require.NoError(t, err)
	out := append(seen, rest...)
	inserts := regexp.MustCompile(`\x1b\[(\d*)A\x1b\[(\d*)L`).FindAllSubmatch(out, -1)
	require.NotEmpty(t, inserts, "the finished tables are printed above the live area")
	for _, m := range inserts {
		up := 1
		if len(m[1]) > 0 {
			up, _ = strconv.Atoi(string(m[1]))
		}
		assert.LessOrEqual(t, up, 23, "cursor up %d to insert %q lines on a 24-row terminal", up, m[2])
	}
}

func TestRowsAbove(t *testing.T) {
	assert.Equal(t, 3, rowsAbove(24, "a\nb\nc", strings.Repeat("x\n", 20)+"x"))
	assert.Equal(t, 0, rowsAbove(0, "a"))
}
