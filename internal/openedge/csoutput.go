package openedge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// CSFormat is how "-csoutput [-fieldsep sep] [-verbose]" wrote the
// machine-readable analysis files (openedge-formats.md §1.4): <db>.tab.txt
// for tables and <db>.ix.txt for indexes. Strings are double-quoted, sizes
// are raw byte counts, "-" stands for "none".
//
// The zero value is the default of the utility: fields separated by spaces,
// no header row. When parsing, a header row is recognised and skipped
// whatever Verbose says.
type CSFormat struct {
	// Sep is -fieldsep: 0 or ' ' for the default (runs of spaces count as
	// one separator, as the real files pad numbers), '\t' for "tab", or one
	// printable ASCII character (0x21-0x7E) other than '"'.
	Sep     byte
	Verbose bool // -verbose: the first row names the columns
}

// Column names of the -verbose header rows, verbatim from 11.5.1.
var (
	csTabColumns = []string{"Time Stamp", "DBUID", "DB name", "Area", "Area #", "Partition Type",
		"Tenancy", "Tenancy #", "Partition Policy", "Partition", "Partition #", "Owner", "Table",
		"Table #", "Records", "Size", "Min", "Max", "Mean", "Frag Count", "Frag Factor", "Scatter Factor"}
	csIndexColumns = []string{"Time Stamp", "DBUID", "DB name", "Area", "Area #", "Partition Type",
		"Tenancy", "Tenancy #", "Partition Policy", "Partition", "Partition #", "Owner", "Table",
		"Table #", "Index", "Index #", "State", "Fields", "Levels", "Blocks", "Size", "Utilization", "Factor"}
)

// Positions of the columns both files share.
const (
	csTimeStamp = iota
	csDBUID
	csDBName
	csArea
	csAreaNum
	csPartitionType
	csTenancy
	csTenancyNum
	csPartitionPolicy
	csPartition
	csPartitionNum
	csOwner
	csTable
	csTableNum
	csFirstOwn // first column specific to the file
)

// IsCSTab says whether data looks like a -csoutput <db>.tab.txt rather than
// a report: its first line that is not blank starts with the quoted
// "Time Stamp" header of -verbose, or with the unquoted time stamp of a row
// (2015-07-07T17:05:42...). A report starts with its banner or a title.
func IsCSTab(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`"Time Stamp"`)) {
			return true
		}
		return len(line) > 11 && allDigits(string(line[:4])) && line[4] == '-' && line[7] == '-' && line[10] == 'T'
	}
	return false
}

// ParseCSTab reads a <db>.tab.txt into Analysis.Tables, with the
// -fieldsep it was written with (sniffCSFormat).
func ParseCSTab(r io.Reader, name string) (*Analysis, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sniffCSFormat(data).ParseTab(bytes.NewReader(data), name)
}

// ParseCSIndex reads a <db>.ix.txt into Analysis.Indexes, with the
// -fieldsep it was written with (sniffCSFormat).
func ParseCSIndex(r io.Reader, name string) (*Analysis, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sniffCSFormat(data).ParseIndex(bytes.NewReader(data), name)
}

// csFirstTimeStamp is the unquoted Datetime-tz a row starts with
// (2015-07-07T17:05:42.000-4:00), matched exactly so that a -fieldsep of
// '-', ':' or '.' right after it is still seen as the separator.
var csFirstTimeStamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{1,2}:\d{2}|Z)?`)

// sniffCSFormat reads the -fieldsep a file was written with from the byte
// after its first field: the quoted "Time Stamp" of the -verbose header
// row, or a row's time stamp. A DBA who feeds the files to a spreadsheet
// writes them with -fieldsep tab, '|' or ','; the command line is not in
// the file, its first field is. The default (space) when nothing tells.
func sniffCSFormat(data []byte) CSFormat {
	line := bytes.TrimLeft(data, " \t\r\n")
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	end := 0
	if len(line) > 0 && line[0] == '"' {
		for end = 1; end < len(line); end++ {
			if line[end] == '"' {
				if end+1 < len(line) && line[end+1] == '"' {
					end++ // a doubled quote inside the string
					continue
				}
				end++
				break
			}
		}
	} else {
		end = len(csFirstTimeStamp.Find(line))
	}
	if end == 0 || end >= len(line) {
		return CSFormat{}
	}
	f := CSFormat{Sep: line[end]}
	if _, err := f.sep(); err != nil {
		return CSFormat{}
	}
	return f
}

// WriteCSTab writes a.Tables as a space-separated <db>.tab.txt with the
// -verbose header row.
func WriteCSTab(w io.Writer, a *Analysis) error {
	return CSFormat{Verbose: true}.WriteTab(w, a)
}

// WriteCSIndex writes a.Indexes as a space-separated <db>.ix.txt with the
// -verbose header row.
func WriteCSIndex(w io.Writer, a *Analysis) error {
	return CSFormat{Verbose: true}.WriteIndex(w, a)
}

func (f CSFormat) sep() (byte, error) {
	switch {
	case f.Sep == 0 || f.Sep == ' ':
		return ' ', nil
	case f.Sep == '\t' || (f.Sep >= 0x21 && f.Sep <= 0x7e && f.Sep != '"'):
		return f.Sep, nil
	}
	return 0, fmt.Errorf("-fieldsep %q: want space, tab or one printable ASCII character other than '\"'", f.Sep)
}

// ParseTab reads a <db>.tab.txt written with this format.
func (f CSFormat) ParseTab(r io.Reader, name string) (*Analysis, error) {
	a := &Analysis{}
	err := f.parse(r, name, csTabColumns, a, func(c *csRow) {
		t := TableStat{Area: c.str(csArea), AreaNum: c.int(csAreaNum), Owner: c.str(csOwner),
			Name: c.str(csTable), Number: c.int(csTableNum),
			Partition: c.str(csPartition), Tenancy: c.str(csTenancy), Line: c.line}
		t.Records = c.int64("Records", csFirstOwn)
		t.Bytes = c.size("Size", csFirstOwn+1)
		t.MinRecord = c.int64("Min", csFirstOwn+2)
		t.MaxRecord = c.int64("Max", csFirstOwn+3)
		t.MeanRecord = c.int64("Mean", csFirstOwn+4)
		t.Fragments = c.int64("Frag Count", csFirstOwn+5)
		t.FragFactor = c.float("Frag Factor", csFirstOwn+6)
		t.ScatterFactor = c.float("Scatter Factor", csFirstOwn+7)
		a.Tables = append(a.Tables, t)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ParseIndex reads a <db>.ix.txt written with this format.
func (f CSFormat) ParseIndex(r io.Reader, name string) (*Analysis, error) {
	a := &Analysis{}
	err := f.parse(r, name, csIndexColumns, a, func(c *csRow) {
		ix := IndexStat{Area: c.str(csArea), AreaNum: c.int(csAreaNum), Owner: c.str(csOwner),
			Table: c.str(csTable), TableNum: c.int(csTableNum), Partition: c.str(csPartition),
			Name: c.str(csFirstOwn), Number: c.int(csFirstOwn + 1)}
		ix.Inactive = c.inactive(csFirstOwn + 2)
		ix.Fields = int(c.int64("Fields", csFirstOwn+3))
		ix.Levels = int(c.int64("Levels", csFirstOwn+4))
		ix.Blocks = c.int64("Blocks", csFirstOwn+5)
		ix.Bytes = c.size("Size", csFirstOwn+6)
		ix.Util = c.float("Utilization", csFirstOwn+7)
		ix.Factor = c.float("Factor", csFirstOwn+8)
		a.Indexes = append(a.Indexes, ix)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (f CSFormat) parse(r io.Reader, name string, columns []string, a *Analysis, row func(*csRow)) error {
	sep, err := f.sep()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	c := &csRow{name: name, columns: columns}
	areas := map[reportAreaKey]bool{}
	for sc.Scan() {
		c.line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if c.fields, err = splitCS(c.fields[:0], text, sep); err != nil {
			return fmt.Errorf("%s:%d: %w", name, c.line, err)
		}
		if len(c.fields) > 1 && c.fields[0] == columns[0] && c.fields[1] == columns[1] {
			continue // the -verbose header row
		}
		if len(c.fields) != len(columns) {
			return fmt.Errorf("%s:%d: %d fields, want %d (%s ... %s)", name, c.line,
				len(c.fields), len(columns), columns[0], columns[len(columns)-1])
		}
		row(c)
		if c.err != nil {
			return c.err
		}
		if c.line == 1 || a.Database == "" && a.Date == "" && a.DBUID == "" {
			a.Date, a.DBUID, a.Database = c.str(csTimeStamp), c.str(csDBUID), c.str(csDBName)
		}
		if k := (reportAreaKey{c.str(csArea), c.int(csAreaNum)}); !areas[k] {
			areas[k] = true
			a.Areas = append(a.Areas, AreaSummary{Name: k.name, Number: k.num})
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, c.line+1, err)
	}
	for _, t := range a.Tables {
		for i := range a.Areas {
			if a.Areas[i].Name == t.Area && a.Areas[i].Number == t.AreaNum {
				a.Areas[i].Records += t.Records
				a.Areas[i].Bytes = addSizes(a.Areas[i].Bytes, t.Bytes)
				break
			}
		}
	}
	return nil
}

// csRow is one split line; its accessors record the first error.
type csRow struct {
	name    string
	columns []string
	line    int
	fields  []string
	err     error
}

func (c *csRow) fail(col string, i int, want string) {
	if c.err == nil {
		c.err = fmt.Errorf("%s:%d: %s %q is not %s", c.name, c.line, col, c.fields[i], want)
	}
}

// str is a string column with "-" meaning none.
func (c *csRow) str(i int) string {
	if c.fields[i] == "-" {
		return ""
	}
	return c.fields[i]
}

func (c *csRow) int(i int) int {
	n := c.int64(c.columns[i], i)
	if int64(int(n)) != n {
		c.fail(c.columns[i], i, "a number in range")
	}
	return int(n)
}

func (c *csRow) int64(col string, i int) int64 {
	s := c.fields[i]
	if !allDigits(strings.TrimPrefix(s, "-")) {
		c.fail(col, i, "a whole number")
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		c.fail(col, i, "a 64-bit number")
	}
	return n
}

func (c *csRow) size(col string, i int) int64 {
	n, err := ParseSize(c.fields[i])
	if err != nil {
		c.fail(col, i, "a byte count")
	}
	return n
}

func (c *csRow) float(col string, i int) float64 {
	s := c.fields[i]
	if !isUnsignedDecimal(strings.TrimPrefix(s, "-")) {
		c.fail(col, i, "a decimal number")
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		c.fail(col, i, "a decimal number in range")
	}
	return v
}

// inactive reads the State column. Only "1" (active) is documented; "0" and
// any word starting with "i" ("inactive", "I") read as inactive.
func (c *csRow) inactive(i int) bool {
	s := strings.ToLower(c.fields[i])
	switch {
	case s == "0" || strings.HasPrefix(s, "i"):
		return true
	case s == "1" || strings.HasPrefix(s, "a"):
		return false
	}
	c.fail("State", i, "1 (active) or 0 (inactive)")
	return false
}

// splitCS splits one line on sep, honouring double quotes ("" inside a
// quoted string is one quote). With the space separator, runs of spaces
// count as one; with any other, spaces around a field are trimmed.
func splitCS(dst []string, line string, sep byte) ([]string, error) {
	for i := 0; ; {
		if sep == ' ' {
			for i < len(line) && line[i] == ' ' {
				i++
			}
			if i == len(line) {
				return dst, nil
			}
		} else {
			for i < len(line) && line[i] == ' ' {
				i++
			}
		}
		var field string
		if i < len(line) && line[i] == '"' {
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(line[j:], '"')
				if k < 0 {
					return nil, fmt.Errorf("unterminated quoted string at column %d", i+1)
				}
				b.WriteString(line[j : j+k])
				j += k + 1
				if j < len(line) && line[j] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				break
			}
			field, i = b.String(), j
			for i < len(line) && line[i] == ' ' && sep != ' ' {
				i++
			}
			if i < len(line) && line[i] != sep {
				return nil, fmt.Errorf("text after the quoted string at column %d", i+1)
			}
		} else {
			j := i
			for j < len(line) && line[j] != sep {
				j++
			}
			field, i = strings.TrimRight(line[i:j], " "), j
		}
		dst = append(dst, field)
		if i >= len(line) {
			return dst, nil
		}
		i++ // the separator
		if sep != ' ' && i == len(line) {
			return append(dst, ""), nil // a trailing separator leaves an empty last field
		}
	}
}
