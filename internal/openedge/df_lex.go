package openedge

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The .df lexer cuts the input into logical lines: a logical line ends at a
// line feed that is not inside a quoted string, so a VALEXP or DESCRIPTION
// that spans several physical lines stays one line. Each logical line keeps
// its raw bytes, line terminator included, which is what makes the byte for
// byte round trip possible; tokens are offsets into those bytes.

// dfLine is one logical line of a .df file.
type dfLine struct {
	raw  []byte // exactly as read, including "\n" or "\r\n" (absent on a last line without one)
	line int    // physical line number where it starts, 1-based
}

// dfTok is a word or a quoted string of a logical line.
type dfTok struct {
	off, end int  // byte range in dfLine.raw, quotes included for strings
	quoted   bool // a "..." string; its value has "" folded to "
}

// text is the token's value: the word, or the string without its quotes.
func (t dfTok) text(raw []byte) string {
	if !t.quoted {
		return string(raw[t.off:t.end])
	}
	s := raw[t.off+1 : t.end-1]
	if bytes.IndexByte(s, '"') < 0 {
		return string(s)
	}
	return strings.ReplaceAll(string(s), `""`, `"`)
}

// is reports whether the token is the (unquoted, case-insensitive) keyword kw.
func (t dfTok) is(raw []byte, kw string) bool {
	return !t.quoted && t.end-t.off == len(kw) && strings.EqualFold(string(raw[t.off:t.end]), kw)
}

// dfQuote writes s as a .df string literal.
func dfQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// utf8BOM is tolerated at the very start of a file and kept verbatim.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lexLine reads the logical line that starts at data[pos:] (line is its
// physical line number). It returns the byte just past the line, the number
// of physical lines it spans, and its tokens appended to toks. A comment
// line (first non-blank byte '#') has no tokens and ends at the next line
// feed whatever quotes it holds; so does the rest of a line after a '#'
// that starts a word.
func lexLine(data []byte, pos, line int, toks []dfTok) (end, lines int, _ []dfTok, _ error) {
	start := pos
	if pos == 0 && bytes.HasPrefix(data, utf8BOM) {
		pos = len(utf8BOM)
	}
	lines = 1
	for pos < len(data) {
		c := data[pos]
		switch {
		case c == '\n':
			return pos + 1, lines, toks, nil
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			pos++
		case c == '#':
			// A comment runs to the end of the physical line, whether it
			// starts the line or follows an option (AREA "x" # note), as
			// the Data Dictionary's loader reads it (prodict/dump/_lodsddl.p
			// skips the rest of the line at a word starting with '#').
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				return len(data), lines, toks, nil
			}
			return pos + nl + 1, lines, toks, nil
		case c == '"':
			tokStart, tokLine := pos, line+lines-1
			pos++
			for {
				q := bytes.IndexByte(data[pos:], '"')
				if q < 0 {
					return 0, 0, toks, lineErrorf(tokLine, "unterminated string starting %s", abbrev(data[tokStart:]))
				}
				lines += bytes.Count(data[pos:pos+q], []byte{'\n'})
				pos += q + 1
				if pos < len(data) && data[pos] == '"' { // "" is an escaped quote
					pos++
					continue
				}
				break
			}
			toks = append(toks, dfTok{off: tokStart - start, end: pos - start, quoted: true})
		default:
			tokStart := pos
			for pos < len(data) && !isDFDelim(data[pos]) {
				pos++
			}
			toks = append(toks, dfTok{off: tokStart - start, end: pos - start})
		}
	}
	return pos, lines, toks, nil
}

func isDFDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\f', '\v', '"':
		return true
	}
	return false
}

// abbrev shortens a quoted excerpt for an error message.
//
// The bytes are the file's, and the message goes to the DBA's terminal: a
// CRLF file's \r sent the cursor back to the start of the message, which
// its rest then overwrote, and a binary file given as --df can hold escape
// sequences. So the line end is dropped, control characters and bytes
// that are not UTF-8 are written as Go escapes (\x1b, \xe7), and the cut
// falls between two characters.
func abbrev(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimRight(b, "\r")
	cut := len(b) > 40
	if cut {
		n := 40
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r != '\t' && unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			sb.WriteString(q[1 : len(q)-1])
		default:
			sb.WriteRune(r)
		}
		b = b[n:]
	}
	if cut {
		sb.WriteString("...")
	}
	return sb.String()
}

// dfLineError is an error at a line of the file being parsed; ParseDF
// prefixes it with the file name.
type dfLineError struct {
	line int
	msg  string
}

func (e *dfLineError) Error() string { return fmt.Sprintf("%d: %s", e.line, e.msg) }

func lineErrorf(line int, format string, args ...any) error {
	return &dfLineError{line: line, msg: fmt.Sprintf(format, args...)}
}

// lexOne tokenizes a single logical line (used after an edit).
func lexOne(raw []byte, toks []dfTok) ([]dfTok, error) {
	end, _, toks, err := lexLine(raw, 0, 1, toks)
	if err == nil && end != len(raw) {
		err = fmt.Errorf("edit produced more than one line")
	}
	return toks, err
}

// eol returns the line terminator of raw: "\r\n", "\n" or "".
func eol(raw []byte) string {
	switch {
	case bytes.HasSuffix(raw, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(raw, []byte("\n")):
		return "\n"
	}
	return ""
}
