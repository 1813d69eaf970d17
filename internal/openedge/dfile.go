package openedge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The contents (.d) layout the Data Administration tool writes for a
// table dump, and for its "User Table Contents" (_user.d): one record a
// line in ABL EXPORT format (character fields quoted, a quote doubled,
// fields separated by a space, ? for the unknown value; a quoted field may
// hold a newline), a line with a single ".", then the PSC trailer of
// key=value lines, a "." and the byte offset of the trailer's "PSC" line
// as ten digits:
//
//	"alice" "xT8hq0Ya4cPZ" "Alice Silva"
//	.
//	PSC
//	filename=_User
//	records=0000000000001
//	ldbname=sports
//	timestamp=2026/11/27-03:00:00
//	numformat=44,46
//	dateformat=mdy-1950
//	map=NO-MAP
//	cpstream=UTF-8
//	.
//	0000000040
//
// (prodict/dump/dmptrail.i: the offset is SEEK(OUTPUT) after the "."; the
// user dump's trailer holds cpstream= alone, a table dump's also
// filename=, records=, ldbname=, ...). The Data Administration's _user.d
// EXPORTs whole _User records; dump_security.p EXPORTs the three fields
// verify compares, so the two files are not interchangeable.

// DFile is a parsed contents file.
type DFile struct {
	Records [][]string        // EXPORT fields; the unknown value is "?" unquoted
	Trailer map[string]string // PSC key=value lines (nil without a trailer)
}

// Unknown is how a field holding the unknown value (?) reads.
const Unknown = "\x00?"

// WriteDFile writes records in the contents layout. Every field is
// written quoted: the files carry character fields only.
func WriteDFile(w io.Writer, table, ldbname string, records [][]string, at time.Time) error {
	var b bytes.Buffer
	for _, r := range records {
		for i, f := range r {
			if i > 0 {
				b.WriteByte(' ')
			}
			if f == Unknown {
				b.WriteByte('?')
				continue
			}
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		}
		b.WriteByte('\n')
	}
	b.WriteString(".\n")
	offset := b.Len()
	fmt.Fprintf(&b, "PSC\nfilename=%s\nrecords=%013d\nldbname=%s\ntimestamp=%s\nnumformat=44,46\ndateformat=mdy-1950\nmap=NO-MAP\ncpstream=UTF-8\n.\n%010d\n",
		table, len(records), ldbname, at.UTC().Format("2006/01/02-15:04:05"), offset)
	_, err := w.Write(b.Bytes())
	return err
}

// ParseDFile reads a contents file whose records have fields fields each.
// A record of another width, an unterminated quote, a trailer whose
// records= count differs from the records read, or text after the final
// offset is an error naming the file and line.
func ParseDFile(r io.Reader, name string, fields int) (*DFile, error) {
	return parseDFile(r, name, func(n int) error {
		if n != fields {
			return fmt.Errorf("%d fields, want %d", n, fields)
		}
		return nil
	})
}

// parseDFile is ParseDFile with width saying which record widths it takes.
func parseDFile(r io.Reader, name string, width func(n int) error) (*DFile, error) {
	br := bufio.NewReader(r)
	d := &DFile{}
	line := 1
	for {
		start := line
		rec, end, err := readRecord(br, &line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, start, err)
		}
		if end == endEOF && rec == nil {
			return d, nil // no trailer: a file cut by hand, still whole records
		}
		if end == endDot {
			break
		}
		if err := width(len(rec)); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, start, err)
		}
		d.Records = append(d.Records, rec)
		if end == endEOF {
			return d, nil
		}
	}
	return d, parseDTrailer(br, name, line, d)
}

type recordEnd int

const (
	endLine recordEnd = iota
	endDot            // the "." line that closes the records
	endEOF
)

// readRecord reads one EXPORT line (quoted newlines included).
func readRecord(br *bufio.Reader, line *int) ([]string, recordEnd, error) {
	var rec []string
	var field strings.Builder
	inField, quoted := false, false
	flush := func() {
		if inField {
			rec = append(rec, field.String())
		}
		field.Reset()
		inField = false
	}
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			if quoted {
				return nil, endEOF, fmt.Errorf("unterminated quoted field")
			}
			flush()
			return rec, endEOF, nil
		}
		if err != nil {
			return nil, endEOF, err
		}
		switch {
		case quoted:
			if c == '\n' {
				*line++
			}
			if c != '"' {
				field.WriteByte(c)
				continue
			}
			if next, err := br.Peek(1); err == nil && next[0] == '"' {
				br.ReadByte()
				field.WriteByte('"')
				continue
			}
			quoted = false
		case c == '"' && !inField:
			inField, quoted = true, true
		case c == '\n':
			*line++
			flush()
			if len(rec) == 1 && rec[0] == "." {
				return nil, endDot, nil
			}
			if rec == nil {
				continue // a blank line
			}
			return rec, endLine, nil
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '"':
			return nil, endEOF, fmt.Errorf("quote inside an unquoted field")
		default:
			inField = true
			field.WriteByte(c)
			if field.String() == "?" {
				// the unknown value, told apart from a quoted "?"
				if next, err := br.Peek(1); err != nil || next[0] == ' ' || next[0] == '\n' || next[0] == '\r' {
					field.Reset()
					field.WriteString(Unknown)
				}
			}
		}
	}
}

func parseDTrailer(br *bufio.Reader, name string, line int, d *DFile) error {
	sc := bufio.NewScanner(br)
	state := 0 // 0: want PSC, 1: key=value lines, 2: want the offset, 3: done
	for ; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		switch {
		case state == 0 && text == "PSC":
			d.Trailer, state = map[string]string{}, 1
		case state == 1 && text == ".":
			state = 2
		case state == 1:
			k, v, ok := strings.Cut(text, "=")
			if !ok {
				return fmt.Errorf("%s:%d: trailer line %q is not key=value", name, line, text)
			}
			d.Trailer[k] = v
		case state == 2 && allDigits(strings.TrimSpace(text)):
			state = 3
		case strings.TrimSpace(text) == "":
		default:
			return fmt.Errorf("%s:%d: unexpected %q after the records", name, line, text)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n, ok := d.Trailer["records"]; ok {
		want, err := strconv.Atoi(n)
		if err != nil || want != len(d.Records) {
			return fmt.Errorf("%s: the trailer says records=%s, the file holds %d", name, n, len(d.Records))
		}
	}
	return nil
}
