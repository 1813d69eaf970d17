package openedge

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTab writes a.Tables as a <db>.tab.txt. Partition type, tenancy and
// partition numbers are not kept in TableStat and are written as "-" / 0.
func (f CSFormat) WriteTab(w io.Writer, a *Analysis) error {
	f, err := f.normalized()
	if err != nil || a == nil {
		return writeCSError(a, err)
	}
	return f.write(w, a, csTabColumns, len(a.Tables), func(b []byte, i int) []byte {
		t := &a.Tables[i]
		b = f.common(b, a, t.Area, t.AreaNum, t.Tenancy, t.Partition, t.Owner, t.Name, t.Number)
		b = f.ints(b, t.Records, t.Bytes, t.MinRecord, t.MaxRecord, t.MeanRecord, t.Fragments)
		return f.floats(b, t.FragFactor, t.ScatterFactor)
	})
}

// WriteIndex writes a.Indexes as a <db>.ix.txt; State is 1 for an active
// index and 0 for an inactive one.
func (f CSFormat) WriteIndex(w io.Writer, a *Analysis) error {
	f, err := f.normalized()
	if err != nil || a == nil {
		return writeCSError(a, err)
	}
	return f.write(w, a, csIndexColumns, len(a.Indexes), func(b []byte, i int) []byte {
		ix := &a.Indexes[i]
		b = f.common(b, a, ix.Area, ix.AreaNum, "", ix.Partition, ix.Owner, ix.Table, ix.TableNum)
		b = f.quote(b, ix.Name)
		state := int64(1)
		if ix.Inactive {
			state = 0
		}
		b = f.ints(b, int64(ix.Number), state, int64(ix.Fields), int64(ix.Levels), ix.Blocks, ix.Bytes)
		return f.floats(b, ix.Util, ix.Factor)
	})
}

// normalized resolves the default separator so that rows can use f.Sep.
func (f CSFormat) normalized() (CSFormat, error) {
	sep, err := f.sep()
	f.Sep = sep
	return f, err
}

func writeCSError(a *Analysis, err error) error {
	if err == nil {
		err = fmt.Errorf("nil analysis")
	}
	return fmt.Errorf("write -csoutput: %w", err)
}

func (f CSFormat) write(w io.Writer, a *Analysis, columns []string, n int, row func([]byte, int) []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	if f.Verbose {
		for _, c := range columns {
			b = f.quote(b, c)
		}
		bw.Write(f.endLine(b))
	}
	for i := range n {
		bw.Write(f.endLine(row(b[:0], i)))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write -csoutput: %w", err)
	}
	return nil
}

func (f CSFormat) common(b []byte, a *Analysis, area string, areaNum int, tenancy, partition, owner, table string, tableNum int) []byte {
	b = f.timestamp(b, a.Date)
	b = f.quote(b, a.DBUID)
	b = f.quote(b, a.Database)
	b = f.quote(b, area)
	b = f.ints(b, int64(areaNum))
	b = f.quote(b, "") // partition type
	b = f.quote(b, tenancy)
	b = f.ints(b, 0)
	b = f.quote(b, "") // partition policy
	b = f.quote(b, partition)
	b = f.ints(b, 0)
	b = f.quote(b, owner)
	b = f.quote(b, table)
	return f.ints(b, int64(tableNum))
}

func (f CSFormat) field(b []byte) []byte {
	if len(b) > 0 {
		b = append(b, f.Sep)
	}
	return b
}

// quote writes a string column; "" is written as "-", the files' "none".
func (f CSFormat) quote(b []byte, s string) []byte {
	if s == "" {
		s = "-"
	}
	b = append(f.field(b), '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}

// timestamp is the one string the utility leaves unquoted; it is quoted
// here only when it could not be read back otherwise.
func (f CSFormat) timestamp(b []byte, s string) []byte {
	if s == "" || strings.ContainsAny(s, " \"\t"+string(f.Sep)) {
		return f.quote(b, s)
	}
	return append(f.field(b), s...)
}

func (f CSFormat) ints(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = strconv.AppendInt(f.field(b), v, 10)
	}
	return b
}

func (f CSFormat) floats(b []byte, vs ...float64) []byte {
	for _, v := range vs {
		b = strconv.AppendFloat(f.field(b), v, 'f', 1, 64)
	}
	return b
}

func (f CSFormat) endLine(b []byte) []byte { return append(b, '\n') }
