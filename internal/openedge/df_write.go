package openedge

import (
	"bufio"
	"io"
)

// WriteTo writes the .df: every statement and line as read (or as changed
// by Set*), then the trailer with the PSC offset computed on the bytes
// written. An unmodified file whose trailer offset was right comes out byte
// for byte identical; a file without a trailer gets none.
func (d *DF) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 64*1024)}
	cw.Write(d.head)
	for _, st := range d.stmts {
		for _, l := range st.lines {
			cw.Write(l.raw)
		}
		cw.Write(st.tail)
	}
	if d.trailer != nil {
		d.trailer.write(cw)
	}
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	return cw.n, cw.err
}

// countWriter counts the bytes written and keeps the first error, so that
// the writing code reads straight through.
type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}

func (c *countWriter) WriteString(s string) {
	if c.err != nil {
		return
	}
	n, err := c.w.WriteString(s)
	c.n += int64(n)
	c.err = err
}
