package bd

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample(t testing.TB, n int) ([]byte, [][]byte) {
	var buf bytes.Buffer
	h := &Header{Created: time.Unix(1700000000, 0), Table: "customer", TableNumber: 2, CRC: 0xdeadbeef, Fields: 12,
		Database: "sports", Section: 2, FirstRecord: 896, Owner: "PUB"}
	w, err := NewWriter(&buf, h)
	require.NoError(t, err)
	var recs [][]byte
	for i := range n {
		rec := []byte(fmt.Sprintf("record %d %s", i, bytes.Repeat([]byte{'x'}, i%50)))
		recs = append(recs, rec)
		require.NoError(t, w.WriteRecord(rec, crc32.Checksum(rec, castagnoli)))
	}
	require.NoError(t, w.Close())
	return buf.Bytes(), recs
}

func readAll(b []byte) (*Header, [][]byte, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	var out [][]byte
	for {
		rec, _, err := r.Next()
		if err == io.EOF {
			return r.Header, out, nil
		}
		if err != nil {
			return r.Header, out, err
		}
		out = append(out, append([]byte(nil), rec...))
	}
}

func TestRoundTrip(t *testing.T) {
	file, recs := sample(t, 1000)
	h, got, err := readAll(file)
	require.NoError(t, err)
	assert.Equal(t, recs, got)
	assert.Equal(t, Header{Version: Version, Created: time.Unix(1700000000, 0), Table: "customer", TableNumber: 2,
		CRC: 0xdeadbeef, Fields: 12, Database: "sports", Section: 2, FirstRecord: 896, Owner: "PUB"}, *h)
}

func TestDamageIsDetected(t *testing.T) {
	file, _ := sample(t, 200)
	tests := []struct {
		name   string
		damage func([]byte) []byte
		want   error
	}{
		{"not a dump", func(b []byte) []byte { return []byte("hello world, not a dump") }, ErrNotDump},
		{"flipped record byte", func(b []byte) []byte {
			c := bytes.Clone(b)
			c[bytes.Index(c, []byte("record 100"))+3] ^= 1
			return c
		}, ErrCorrupt},
		{"header byte", func(b []byte) []byte { c := bytes.Clone(b); c[20] ^= 1; return c }, ErrCorrupt},
		{"cut in a record", func(b []byte) []byte { return b[:len(b)*2/3] }, ErrTruncated},
		{"trailer missing", func(b []byte) []byte { return b[:len(b)-16] }, ErrTruncated},
		{"empty", func(b []byte) []byte { return nil }, ErrNotDump},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readAll(tt.damage(file))
			require.Error(t, err)
			assert.True(t, errors.Is(err, tt.want), "got %v, want %v", err, tt.want)
		})
	}
}

func TestAbandonLeavesNoTrailer(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &Header{Table: "t", TableNumber: 1})
	require.NoError(t, err)
	require.NoError(t, w.WriteRecord([]byte("a"), crc32.Checksum([]byte("a"), castagnoli)))
	require.NoError(t, w.Abandon())
	_, got, err := readAll(buf.Bytes())
	assert.ErrorIs(t, err, ErrTruncated)
	assert.Len(t, got, 1)
}

func FuzzReader(f *testing.F) {
	file, _ := sample(f, 5)
	f.Add(file)
	f.Add(file[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		// Whatever the bytes, the reader ends with EOF or an error, never
		// a panic or an endless loop.
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		for i := 0; i <= len(b); i++ {
			if _, _, err := r.Next(); err != nil {
				return
			}
		}
		t.Fatalf("more records than bytes")
	})
}
