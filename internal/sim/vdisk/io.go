package vdisk

import "io"

// Writer charges every write to w on the device: its bytes and one
// operation per ioSize bytes (at least one), as a utility writing through a
// buffer of that size does. With the device off it returns w itself.
func (d *Disk) Writer(w io.Writer, ioSize int) io.Writer {
	if !d.On() {
		return w
	}
	return &meteredWriter{w: w, d: d, ioSize: max(ioSize, 1)}
}

// Reader is Writer for reads.
func (d *Disk) Reader(r io.Reader, ioSize int) io.Reader {
	if !d.On() {
		return r
	}
	return &meteredReader{r: r, d: d, ioSize: max(ioSize, 1)}
}

// ops is the number of operations a transfer of n bytes takes.
func ops(n, ioSize int) int64 { return int64((n + ioSize - 1) / ioSize) }

type meteredWriter struct {
	w      io.Writer
	d      *Disk
	ioSize int
}

func (m *meteredWriter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if n > 0 {
		if cerr := m.d.Charge(int64(n), ops(n, m.ioSize)); err == nil {
			err = cerr
		}
	}
	return n, err
}

type meteredReader struct {
	r      io.Reader
	d      *Disk
	ioSize int
}

func (m *meteredReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		if cerr := m.d.Charge(int64(n), ops(n, m.ioSize)); err == nil {
			err = cerr
		}
	}
	return n, err
}
