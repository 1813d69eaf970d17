package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The live area is redrawn in place, so a line wider than the terminal
// breaks it: the terminal wraps the line, the screen counts one line, and
// the next frame leaves the rest behind as stale text. Every line the
// screen draws or prints above itself is made to fit here.

// wrap breaks plain text into lines of at most w cells at spaces, the
// lines after the first indented by indent; a word longer than a line is
// cut hard. At most max lines (0: no limit); the last one kept ends with
// "…" when text was left out.
func wrap(text string, w int, indent string, limit int) []string {
	text = oneLine(text)
	if w < 8 {
		w = 8
	}
	var lines []string
	line := ""
	room := w
	flush := func() {
		lines = append(lines, line)
		line, room = indent, w-ansi.StringWidth(indent)
	}
	for _, word := range strings.Fields(text) {
		ww := ansi.StringWidth(word)
		switch {
		case strings.TrimSpace(line) == "" && ww <= room:
			line += word
			room -= ww
		case ww+1 <= room:
			line += " " + word
			room -= ww + 1
		case ww <= w-ansi.StringWidth(indent):
			flush()
			line += word
			room -= ww
		default: // longer than a whole line: cut it over several
			for ww > 0 {
				if room <= 1 {
					flush()
				}
				sep := ""
				if strings.TrimSpace(line) != "" {
					sep = " "
				}
				part := ansi.Truncate(word, room-len(sep), "")
				line += sep + part
				room -= ansi.StringWidth(part) + len(sep)
				word = word[len(part):]
				ww = ansi.StringWidth(word)
			}
		}
	}
	if strings.TrimSpace(line) != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	if limit > 0 && len(lines) > limit {
		lines = lines[:limit]
		last := lines[limit-1]
		lines[limit-1] = ansi.Truncate(last, w-1, "") + "…"
	}
	return lines
}

// pathLine is "<prefix><path>" in at most w cells. A path is never split
// over lines (a DBA copies it whole); one too long loses its beginning, so
// the file name stays: "  log: …/logs/load_PUB.pt_mstr.log".
func pathLine(prefix, path string, w int) string {
	if ansi.StringWidth(prefix)+ansi.StringWidth(path) <= w {
		return prefix + path
	}
	room := w - ansi.StringWidth(prefix) - 1
	if room < 1 {
		return ansi.Truncate(prefix, w, "…")
	}
	r := []rune(path)
	for len(r) > 0 && ansi.StringWidth(string(r)) > room {
		r = r[1:]
	}
	return prefix + "…" + string(r)
}
