package openedge

import (
	"bytes"
	"fmt"
	"strings"
)

// dfTrailer is the end of a .df (openedge-formats.md §6.3):
//
//	.
//	PSC
//	bufpool=yes        (optional key=value lines)
//	cpstream=ISO8859-1
//	.
//	0000062242         byte offset of the PSC line
//
// Every line is kept with its own terminator; only the offset is computed
// again when the file is written, on the bytes actually written.
type dfTrailer struct {
	lines  []trailerLine
	psc    int    // index of the PSC line, -1 when absent
	offset int    // index of the offset line, -1 when absent
	tail   []byte // blank lines or blanks after the offset, kept verbatim
}

type trailerLine struct {
	text string // without terminator
	eol  string
}

// parseTrailer reads the trailer that starts with the "." line at
// data[pos:]; line is the physical line number of that ".".
func parseTrailer(data []byte, pos, line int) (*dfTrailer, error) {
	t := &dfTrailer{psc: -1, offset: -1}
	rest := data[pos:]
	next := func() (trailerLine, bool) {
		if len(rest) == 0 {
			return trailerLine{}, false
		}
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw = rest[:i+1]
		}
		rest = rest[len(raw):]
		e := eol(raw)
		return trailerLine{text: string(raw[:len(raw)-len(e)]), eol: e}, true
	}
	// state: 0 after the first ".", 1 after PSC or keys, 2 after the closing ".", 3 after the offset.
	state := 0
	for n := line; ; n++ {
		before := rest
		l, ok := next()
		if !ok {
			return t, nil
		}
		v := strings.TrimSpace(l.text)
		switch {
		case n == line: // the opening "."
		case state == 0 && v == "PSC":
			t.psc, state = len(t.lines), 1
		case state <= 1 && strings.Contains(v, "=") && !strings.ContainsAny(v, " \t"):
			state = 1
		case state <= 1 && v == ".":
			state = 2
		case state == 2 && v != "" && strings.Trim(v, "0123456789") == "":
			t.offset, state = len(t.lines), 3
		case len(bytes.TrimSpace(before)) == 0:
			t.tail = before
			return t, nil
		default:
			return nil, lineErrorf(n, "unexpected %q in the trailer (want PSC, key=value lines, \".\" and the trailer offset)", abbrev([]byte(l.text)))
		}
		t.lines = append(t.lines, l)
	}
}

// codepage returns the cpstream= value.
func (t *dfTrailer) codepage() string {
	for _, l := range t.lines {
		if k, v, ok := strings.Cut(strings.TrimSpace(l.text), "="); ok && strings.EqualFold(k, "cpstream") {
			return v
		}
	}
	return ""
}

// write writes the trailer. w has counted the bytes of the file written
// before it, from which the PSC offset is computed.
func (t *dfTrailer) write(w *countWriter) {
	pscAt := int64(-1)
	for i, l := range t.lines {
		if i == t.psc {
			pscAt = w.n
		}
		text := l.text
		if i == t.offset && pscAt >= 0 {
			// Replace the digits only: blanks around them stay as read.
			digits := strings.TrimSpace(text)
			at := strings.Index(text, digits)
			text = text[:at] + fmt.Sprintf("%010d", pscAt) + text[at+len(digits):]
		}
		w.WriteString(text)
		w.WriteString(l.eol)
	}
	w.Write(t.tail)
}
