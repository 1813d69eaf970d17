package openedge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseStructure reads a .st structure description file (grammar of
// openedge-formats.md §5.1). name is used in error messages, which all read
// "name:line: what is wrong".
//
// Grouping rules, which are those of prostrct:
//   - named lines with the same type and name (compared case-insensitively,
//     the first spelling kept) form one area, in the order of their first
//     line;
//   - all unnamed b lines form the Primary Recovery Area and all unnamed t
//     lines the transaction log area;
//   - every unnamed a line is an after-image area of its own (AI extents are
//     areas, so three "a ." lines are three variable AI areas, not one area
//     with three variable extents);
//   - unnamed d lines (version 8 style) belong to the Schema Area.
//
// ParseStructure checks syntax only. Semantic rules (RPB, BPC, numbering,
// extent order, ...) are checked by Validate so that a caller can show every
// problem of a hand-written file at once.
func ParseStructure(r io.Reader, name string) (*Structure, error) {
	p := stParser{s: &Structure{Source: name}, byKey: map[string]*StructArea{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	lineNo := 1
	for ; sc.Scan(); lineNo++ {
		if lineNo == 1 {
			if err := refuseUTF16(sc.Bytes(), name, "as plain text (ASCII or UTF-8, no byte order mark)"); err != nil {
				return nil, err
			}
		}
		if lineNo == 1 && bytes.HasPrefix(sc.Bytes(), utf8BOM) {
			// An editor's mark (Notepad wrote one until Windows 10 1903),
			// not .st text: oedl hands the file to prostrct as it is, and
			// the error names it rather than an "unknown line type".
			return nil, fmt.Errorf("%s:1: the file starts with a UTF-8 byte order mark (EF BB BF), which a .st does not have: save it without one (Notepad: UTF-8, not UTF-8 with BOM)", name)
		}
		if err := p.line(lineNo, sc.Bytes()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
	}
	return p.s, nil
}

type stParser struct {
	s     *Structure
	byKey map[string]*StructArea
}

// stLine is one extent line split into its parts, before grouping.
type stLine struct {
	typ              AreaType
	name             string
	hasName          bool
	number, rpb, bpc int
	ext              Extent
}

func (p *stParser) line(lineNo int, raw []byte) error {
	text := string(bytes.TrimRight(raw, "\r"))
	rest := strings.TrimLeft(text, stBlanks)
	if rest == "" || strings.ContainsAny(rest[:1], "*:#") {
		return nil // blank line or comment
	}
	l, err := parseSTLine(rest)
	if err != nil {
		return err
	}
	l.ext.Line = lineNo
	p.add(l, lineNo)
	return nil
}

// add files an extent line under its area, recording (for Validate) any
// line that repeats an area name with different number, RPB or BPC.
func (p *stParser) add(l stLine, lineNo int) {
	if l.typ == AreaData && !l.hasName {
		l.name, l.hasName = SchemaAreaName, true
	}
	if l.typ == AreaEncryption && !l.hasName {
		// After its first line, the Encryption Policy Area's lines may
		// omit its name and area information (documented).
		for _, a := range p.s.Areas {
			if a.Type == AreaEncryption {
				l.name, l.hasName, l.number, l.rpb, l.bpc = a.Name, true, a.Number, a.RPB, a.BPC
				break
			}
		}
	}
	// OpenEdge compares area names case-insensitively; the first spelling wins.
	key := string(l.typ) + "\x00" + strings.ToLower(l.name)
	if l.typ == AreaAfterImage && !l.hasName {
		key = "" // each unnamed AI line is an area of its own
	}
	a := p.byKey[key]
	if a == nil {
		a = &StructArea{Type: l.typ, Name: l.name, Number: l.number, RPB: l.rpb, BPC: l.bpc, Line: lineNo}
		p.s.Areas = append(p.s.Areas, a)
		if key != "" {
			p.byKey[key] = a
		}
	} else if a.Number != l.number || a.RPB != l.rpb || a.BPC != l.bpc {
		p.s.mismatches = append(p.s.mismatches, stMismatch{
			line: lineNo, first: a.Line, name: a.Name,
			got: areaInfo(l.number, l.rpb, l.bpc), want: areaInfo(a.Number, a.RPB, a.BPC),
		})
	}
	a.Extents = append(a.Extents, l.ext)
}

// stMismatch is a line whose area information contradicts the first line of
// the same area. It is kept for Validate rather than failing the parse.
type stMismatch struct {
	line, first int
	name        string
	got, want   string
}

// parseSTLine splits `type ["name"[:num][,rpb][;bpc]] path [f|v [size]]`.
func parseSTLine(s string) (stLine, error) {
	var l stLine
	switch s[0] {
	case 'a', 'b', 'd', 'e', 't':
		l.typ = AreaType(s[0])
	default:
		return l, fmt.Errorf("unknown line type %q (want a, b, d, e or t, or a comment starting with *, : or #)", firstWord(s))
	}
	if len(s) > 1 && !isSTBlank(s[1]) {
		return l, fmt.Errorf("unknown line type %q (want a, b, d, e or t)", firstWord(s))
	}
	s = strings.TrimLeft(s[1:], stBlanks)
	if strings.HasPrefix(s, `"`) {
		var err error
		if s, err = l.parseAreaInfo(s); err != nil {
			return l, err
		}
		s = strings.TrimLeft(s, stBlanks)
	}
	path, s, err := cutPath(s)
	if err != nil {
		return l, err
	}
	l.ext.Path = path
	fields := strings.Fields(s)
	switch {
	case len(fields) == 0:
	case fields[0] == "f" && len(fields) == 1:
		return l, fmt.Errorf("fixed extent %q has no size", path)
	case fields[0] == "f" || fields[0] == "v":
		l.ext.Fixed = fields[0] == "f"
		if len(fields) > 1 {
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || n < 0 {
				return l, fmt.Errorf("extent size %q is not a number of KB", fields[1])
			}
			l.ext.SizeKB = n
		}
		if len(fields) > 2 {
			return l, fmt.Errorf("unexpected %q after the extent size (quote paths with spaces as !\"...\")", fields[2])
		}
	default:
		return l, fmt.Errorf("unexpected %q after path %q: want f or v and a size (quote paths with spaces as !\"...\")", fields[0], path)
	}
	return l, nil
}

// parseAreaInfo reads `"name"[:num][,rpb][;bpc]` and returns the rest.
func (l *stLine) parseAreaInfo(s string) (string, error) {
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", fmt.Errorf("unterminated area name %s", s)
	}
	l.name, l.hasName = s[1:1+end], true
	if l.name == "" {
		return "", fmt.Errorf("empty area name")
	}
	s = s[2+end:]
	for _, part := range []struct {
		sep  byte
		dst  *int
		what string
	}{{':', &l.number, "area number"}, {',', &l.rpb, "records per block"}, {';', &l.bpc, "blocks per cluster"}} {
		if s == "" || s[0] != part.sep {
			continue
		}
		n := 1
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		v, err := strconv.Atoi(s[1:n])
		if err != nil || v <= 0 {
			return "", fmt.Errorf("area %q: %s %q is not a positive number", l.name, part.what, s[1:n])
		}
		*part.dst, s = v, s[n:]
	}
	if s != "" && !isSTBlank(s[0]) {
		return "", fmt.Errorf("area %q: unexpected %q after the area information (want \"name\":num,rpb;bpc)", l.name, firstWord(s))
	}
	return s, nil
}

// cutPath returns the path at the start of s, bare or written !"...".
func cutPath(s string) (path, rest string, err error) {
	if s == "" {
		return "", "", fmt.Errorf("missing extent path")
	}
	if strings.HasPrefix(s, `!"`) {
		end := strings.IndexByte(s[2:], '"')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated quoted path %s", s)
		}
		path, rest = s[2:2+end], s[3+end:]
		if rest != "" && !isSTBlank(rest[0]) {
			return "", "", fmt.Errorf("unexpected %q right after the quoted path", firstWord(rest))
		}
		if path == "" {
			return "", "", fmt.Errorf("empty extent path")
		}
		return path, rest, nil
	}
	if s[0] == '"' || s[0] == '!' {
		return "", "", fmt.Errorf("path %s: write a quoted path !\"...\"", firstWord(s))
	}
	end := strings.IndexAny(s, stBlanks)
	if end < 0 {
		return s, "", nil
	}
	return s[:end], s[end:], nil
}

// stBlanks separate the words of a .st line.
const stBlanks = " \t\r\v\f"

func isSTBlank(c byte) bool { return strings.IndexByte(stBlanks, c) >= 0 }

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

// areaInfo formats the `:num,rpb;bpc` suffix, each part only when set.
func areaInfo(number, rpb, bpc int) string {
	var b strings.Builder
	if number > 0 {
		fmt.Fprintf(&b, ":%d", number)
	}
	if rpb > 0 {
		fmt.Fprintf(&b, ",%d", rpb)
	}
	if bpc > 0 {
		fmt.Fprintf(&b, ";%d", bpc)
	}
	return b.String()
}
