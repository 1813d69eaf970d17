// Package bd is oesim's binary dump file (.bd). Its layout is oesim's own
// (OpenEdge's is not public) but it carries every documented header field
// (version, date, table name, table number, table CRC, number of fields,
// database name, section, first record number, owner) and, per the
// documented record stream "record length | table number | record | CRC",
// a checksum per record. A trailer with the record count ends the file, so
// that a truncated file is detected even when it is cut between records.
//
//	magic "OESIMBD1"
//	u32 header length, header fields, u32 CRC-32C of the header
//	records: u32 length | u32 table number | bytes | u32 CRC-32C(bytes)
//	trailer: u32 0xFFFFFFFF | u64 record count | u32 CRC-32C(count)
//
// Integers are little endian; strings are u16 length + bytes.
package bd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// Version is the format version written in the header.
const Version = 1

const (
	magic       = "OESIMBD1"
	trailerMark = 0xFFFFFFFF
	maxRecord   = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the documented header of a binary dump file.
type Header struct {
	Version     int
	Created     time.Time
	Table       string
	TableNumber int
	CRC         uint32 // schema CRC of the table (_File._CRC)
	Fields      int
	Database    string
	Section     int   // 1 for table.bd, N for table.bdN
	FirstRecord int64 // 1-based number of the first record in this section
	Owner       string
}

// ErrCorrupt and ErrTruncated classify a damaged file.
var (
	ErrCorrupt   = errors.New("corrupt binary dump file")
	ErrTruncated = errors.New("truncated binary dump file")
	ErrNotDump   = errors.New("not a binary dump file")
)

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func (h *Header) encode() []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Version))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Created.Unix()))
	b = appendString(b, h.Table)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.TableNumber))
	b = binary.LittleEndian.AppendUint32(b, h.CRC)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Fields))
	b = appendString(b, h.Database)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Section))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.FirstRecord))
	b = appendString(b, h.Owner)
	return b
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u32() uint32 {
	if len(d.b) < 4 {
		d.err = ErrCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err = ErrCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) str() string {
	if len(d.b) < 2 {
		d.err = ErrCorrupt
		return ""
	}
	n := int(binary.LittleEndian.Uint16(d.b))
	if len(d.b) < 2+n {
		d.err = ErrCorrupt
		return ""
	}
	s := string(d.b[2 : 2+n])
	d.b = d.b[2+n:]
	return s
}

func decodeHeader(b []byte) (*Header, error) {
	d := &decoder{b: b}
	h := &Header{}
	h.Version = int(d.u32())
	h.Created = time.Unix(int64(d.u64()), 0)
	h.Table = d.str()
	h.TableNumber = int(d.u32())
	h.CRC = d.u32()
	h.Fields = int(d.u32())
	h.Database = d.str()
	h.Section = int(d.u32())
	h.FirstRecord = int64(d.u64())
	h.Owner = d.str()
	return h, d.err
}

// Writer writes one .bd section.
type Writer struct {
	w     *bufio.Writer
	table uint32
	count int64
	buf   []byte
}

// BufferSize is the size of the writes the dump issues.
const BufferSize = 1 << 20

// NewWriter writes the header to w.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	bw := bufio.NewWriterSize(w, BufferSize)
	if h.Version == 0 {
		h.Version = Version
	}
	body := h.encode()
	var b []byte
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, body...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(body, castagnoli))
	if _, err := bw.Write(b); err != nil {
		return nil, err
	}
	return &Writer{w: bw, table: uint32(h.TableNumber), buf: make([]byte, 8)}, nil
}

// WriteRecord writes one record whose CRC-32C is already known (oesim's
// storage keeps it next to the record, so a dump copies without hashing).
func (w *Writer) WriteRecord(rec []byte, crc uint32) error {
	binary.LittleEndian.PutUint32(w.buf[0:], uint32(len(rec)))
	binary.LittleEndian.PutUint32(w.buf[4:], w.table)
	if _, err := w.w.Write(w.buf[:8]); err != nil {
		return err
	}
	if _, err := w.w.Write(rec); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(w.buf[0:], crc)
	if _, err := w.w.Write(w.buf[:4]); err != nil {
		return err
	}
	w.count++
	return nil
}

// Count is the number of records written.
func (w *Writer) Count() int64 { return w.count }

// Close writes the trailer and flushes; it does not close the underlying
// writer.
func (w *Writer) Close() error {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, trailerMark)
	cnt := binary.LittleEndian.AppendUint64(nil, uint64(w.count))
	b = append(b, cnt...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(cnt, castagnoli))
	if _, err := w.w.Write(b); err != nil {
		return err
	}
	return w.w.Flush()
}

// Abandon flushes what was written and stops without the trailer, as a
// dump that died leaves its file (the simulator's truncate fault).
func (w *Writer) Abandon() error { return w.w.Flush() }

// Reader reads one .bd section.
type Reader struct {
	r      *bufio.Reader
	Header *Header
	count  int64
	buf    []byte
	done   bool
}

// NewReader reads and checks the header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, BufferSize)
	pre := make([]byte, len(magic)+4)
	if _, err := io.ReadFull(br, pre); err != nil {
		return nil, shortRead(err, ErrNotDump)
	}
	if string(pre[:len(magic)]) != magic {
		return nil, ErrNotDump
	}
	n := binary.LittleEndian.Uint32(pre[len(magic):])
	if n > 1<<16 {
		return nil, ErrCorrupt
	}
	body := make([]byte, n+4)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, shortRead(err, ErrTruncated)
	}
	if crc32.Checksum(body[:n], castagnoli) != binary.LittleEndian.Uint32(body[n:]) {
		return nil, fmt.Errorf("%w: header checksum", ErrCorrupt)
	}
	h, err := decodeHeader(body[:n])
	if err != nil {
		return nil, err
	}
	return &Reader{r: br, Header: h, buf: make([]byte, 0, 4096)}, nil
}

// Next returns the next record and its CRC (valid until the next call), or
// io.EOF after a complete trailer. Damage is reported as an error wrapping
// ErrCorrupt or ErrTruncated, with the record number.
func (r *Reader) Next() ([]byte, uint32, error) {
	if r.done {
		return nil, 0, io.EOF
	}
	var pre [8]byte
	if _, err := io.ReadFull(r.r, pre[:4]); err != nil {
		return nil, 0, shortRead(err, fmt.Errorf("%w: ends after record %d without its trailer", ErrTruncated, r.count))
	}
	n := binary.LittleEndian.Uint32(pre[:4])
	if n == trailerMark {
		var t [12]byte
		if _, err := io.ReadFull(r.r, t[:]); err != nil {
			return nil, 0, shortRead(err, fmt.Errorf("%w: trailer cut short", ErrTruncated))
		}
		if crc32.Checksum(t[:8], castagnoli) != binary.LittleEndian.Uint32(t[8:]) {
			return nil, 0, fmt.Errorf("%w: trailer checksum", ErrCorrupt)
		}
		if c := int64(binary.LittleEndian.Uint64(t[:8])); c != r.count {
			return nil, 0, fmt.Errorf("%w: trailer says %d records, file holds %d", ErrCorrupt, c, r.count)
		}
		r.done = true
		return nil, 0, io.EOF
	}
	if n > maxRecord {
		return nil, 0, fmt.Errorf("%w: record %d has an impossible length %d", ErrCorrupt, r.count+1, n)
	}
	if _, err := io.ReadFull(r.r, pre[4:8]); err != nil {
		return nil, 0, shortRead(err, fmt.Errorf("%w: record %d cut short", ErrTruncated, r.count+1))
	}
	if binary.LittleEndian.Uint32(pre[4:8]) != uint32(r.Header.TableNumber) {
		return nil, 0, fmt.Errorf("%w: record %d belongs to table number %d, not %d", ErrCorrupt, r.count+1,
			binary.LittleEndian.Uint32(pre[4:8]), r.Header.TableNumber)
	}
	if cap(r.buf) < int(n)+4 {
		r.buf = make([]byte, int(n)+4)
	}
	r.buf = r.buf[:n+4]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		return nil, 0, shortRead(err, fmt.Errorf("%w: record %d cut short", ErrTruncated, r.count+1))
	}
	rec := r.buf[:n]
	crc := binary.LittleEndian.Uint32(r.buf[n:])
	if crc32.Checksum(rec, castagnoli) != crc {
		return nil, 0, fmt.Errorf("%w: record %d fails its checksum", ErrCorrupt, r.count+1)
	}
	r.count++
	return rec, crc, nil
}

// shortRead is the error of a failed io.ReadFull: damage when the file
// ended too soon, else the reader's own error (an I/O error is not a
// damaged file).
func shortRead(err, damage error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return damage
	}
	return err
}

// Count is the number of records read so far.
func (r *Reader) Count() int64 { return r.count }
