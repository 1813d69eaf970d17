package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// aboveChunks splits the lines a frame prints above the live area into
// groups that each fit in the rows the screen has above it (free), each
// group printed by its own tea.Println, in order. bubbletea inserts a
// group by scrolling the screen up by its rows, then moving the cursor up
// over them and over the live area (cursedRenderer.insertAbove); a
// terminal stops the cursor at its top row, so a group taller than the
// rows above the live area left the live area lower than bubbletea
// believed it was, and every later frame was drawn over the wrong rows.
// At 80x24, one row above a 23-row live area, any frame that finished two
// jobs garbled the screen: 873 tables of a few KiB finish dozens per
// frame, and the live area was gone for most of the dumps (nu-trial10).
// Rows are counted as bubbletea counts them (a line wider than w takes
// 1 + width/w); the lines come here already fitted to the width (wrap.go).
// free < 1 (a terminal shorter than the live area) is taken as 1; w or
// free unknown (0) gives one group.
func aboveChunks(lines []string, w, free int) []string {
	if len(lines) == 0 {
		return nil
	}
	if w <= 0 || free == 0 {
		return []string{strings.Join(lines, "\n")}
	}
	free = max(free, 1)
	var out []string
	var group []string
	rows := 0
	for _, l := range lines {
		r := 1
		if lw := ansi.StringWidth(l); lw > w {
			r += lw / w
		}
		if len(group) > 0 && rows+r > free {
			out = append(out, strings.Join(group, "\n"))
			group, rows = nil, 0
		}
		group = append(group, l)
		rows += r
	}
	return append(out, strings.Join(group, "\n"))
}

// rowsAbove is how many terminal rows the screen leaves above the live
// area: the terminal's height less the taller of the frame drawn last and
// the one about to be drawn (bubbletea may insert before or after it
// draws the new one).
func rowsAbove(high int, views ...string) int {
	if high <= 0 {
		return 0
	}
	tallest := 0
	for _, v := range views {
		tallest = max(tallest, strings.Count(v, "\n")+1)
	}
	return high - tallest
}
