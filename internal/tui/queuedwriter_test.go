package tui

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueuedWriter: what is written arrives in order once Close returns;
// a failed write is the error of every later Write and of Close, and
// nothing more is written after it; Write after Close fails.
func TestQueuedWriter(t *testing.T) {
	t.Run("in order", func(t *testing.T) {
		var buf bytes.Buffer
		q := NewQueuedWriter(&buf)
		for _, s := range []string{"a", "b", "c"} {
			n, err := q.Write([]byte(s))
			require.NoError(t, err)
			assert.Equal(t, 1, n)
		}
		require.NoError(t, q.Close())
		assert.Equal(t, "abc", buf.String())
		_, err := q.Write([]byte("d"))
		assert.ErrorIs(t, err, os.ErrClosed)
		require.NoError(t, q.Close(), "Close twice")
		assert.Equal(t, "abc", buf.String())
	})
	t.Run("first error kept", func(t *testing.T) {
		broken := errors.New("broken pipe")
		calls := 0
		q := NewQueuedWriter(writerFunc(func([]byte) (int, error) { calls++; return 0, broken }))
		_, err := q.Write([]byte("a"))
		require.NoError(t, err, "queued: the error comes with the write")
		assert.ErrorIs(t, q.Close(), broken)
		_, err = q.Write([]byte("b"))
		assert.ErrorIs(t, err, broken)
		assert.Equal(t, 1, calls, "a broken pipe is not written to again")
	})
}
