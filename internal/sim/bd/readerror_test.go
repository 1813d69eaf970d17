package bd

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// failingReader hands over the first n bytes of b, then fails.
type failingReader struct {
	b   []byte
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := copy(p, f.b[:min(f.n, len(f.b))])
	f.b, f.n = f.b[k:], f.n-k
	return k, nil
}

// TestReadErrorIsNotDamage: a read that fails (an I/O error, the virtual
// disk refusing a charge) is reported as itself, not as a file that is not
// a dump or is cut short, which would send the DBA after the wrong cause.
func TestReadErrorIsNotDamage(t *testing.T) {
	file, _ := sample(t, 50)
	boom := errors.New("read failed")
	for _, tc := range []struct {
		name  string
		after int // bytes read before the failure
	}{
		{"in the magic", 3},
		{"in the header", 20},
		{"in a record", len(file) / 2},
		{"in the trailer", len(file) - 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAllFrom(&failingReader{b: file, n: tc.after, err: boom})
			assert.ErrorIs(t, err, boom)
			assert.NotErrorIs(t, err, ErrNotDump)
			assert.NotErrorIs(t, err, ErrTruncated)
		})
	}
	// A short file is still damage.
	_, _, err := readAllFrom(bytes.NewReader(file[:len(file)/2]))
	assert.ErrorIs(t, err, ErrTruncated)
}

func readAllFrom(src io.Reader) (*Header, int, error) {
	r, err := NewReader(src)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for {
		_, _, err := r.Next()
		if err == io.EOF {
			return r.Header, n, nil
		}
		if err != nil {
			return nil, n, err
		}
		n++
	}
}
