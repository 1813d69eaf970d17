package openedge

import (
	"fmt"
	"unicode"
)

// ControlIn returns the first control or format character of name
// (Unicode Cc: C0, DEL, C1; Cf: the bidirectional overrides, zero-width
// characters), if any. No OpenEdge name holds one ("Name limits": letters,
// digits and # $ % & - _), and oedl prints names to the DBA's terminal
// (the plain lines, the live screen, oedl status), into the files a person
// reads or runs (tablemove.sh, placement.md, report.md, the logs): an ESC
// there is a terminal's command (OSC 52 writes the clipboard), a CR or a
// right-to-left override shows another name than the one acted on.
// Bytes that are not UTF-8 (a 1252 or 850 .df's accented field names) are
// not controls: they are kept as bytes (target.df) and decode as U+FFFD.
// Safety trial 13.
func ControlIn(name string) (rune, bool) {
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return r, true
		}
	}
	return 0, false
}

// ControlNames lists, as FILE:LINE problems, every table, field, index and
// sequence of the .df whose name holds a control character (ControlIn).
// A nil DF has none.
func (d *DF) ControlNames() []string {
	if d == nil {
		return nil
	}
	return ControlNames(d.name, d.tables, d.seqs)
}

// ControlNames is DF.ControlNames of the typed views of file. Names are
// quoted with %q, so the message itself prints none raw.
func ControlNames(file string, tables []*DFTable, seqs []*DFSequence) []string {
	var out []string
	add := func(line int, kind, name string) {
		if r, ok := ControlIn(name); ok {
			out = append(out, fmt.Sprintf("%s:%d: %s %q holds the control character %U", file, line, kind, name, r))
		}
	}
	for _, t := range tables {
		add(t.Line, "table", t.Name)
		for _, f := range t.Fields {
			add(f.Line, "field", f.Name)
		}
		for _, ix := range t.Indexes {
			add(ix.Line, "index", ix.Name)
		}
	}
	for _, s := range seqs {
		add(s.Line, "sequence", s.Name)
	}
	return out
}
