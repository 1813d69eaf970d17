package store

import (
	"bytes"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordRoundTrip(t *testing.T) {
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	old := time.Date(1901, 12, 13, 0, 0, 0, 0, time.UTC)
	stamp := time.Date(2024, 2, 29, 13, 14, 15, 16e6, time.UTC)
	row := []any{int64(-5), "Hello", 3.25, true, false, day, old, stamp, []byte{0, 1, 2}, nil,
		[]any{int64(1), nil, "x"}, int64(math.MaxInt64), ""}
	rec, err := EncodeRecord(nil, row)
	require.NoError(t, err)
	got, err := DecodeRecord(rec)
	require.NoError(t, err)
	assert.Equal(t, row, got)
}

func TestEncodeRejectsUnknownType(t *testing.T) {
	_, err := EncodeRecord(nil, []any{struct{}{}})
	assert.Error(t, err)
}

func TestDecodeRejectsDamage(t *testing.T) {
	rec, err := EncodeRecord(nil, []any{"a longer string", int64(7)})
	require.NoError(t, err)
	first, err := skipValue(rec)
	require.NoError(t, err)
	for cut := 1; cut < len(rec); cut++ {
		if cut == first {
			continue // a whole first field is a valid one-field record
		}
		_, err := DecodeRecord(rec[:cut])
		assert.Error(t, err, "cut at %d", cut)
	}
}

// Keys must sort as OpenEdge orders values: numbers numerically, character
// case-insensitively, unknown last, DESCENDING reversed.
func TestKeyOrder(t *testing.T) {
	tests := []struct {
		name   string
		values []any // in the expected ascending order
		desc   bool
	}{
		{"integers", []any{int64(math.MinInt64), int64(-2), int64(0), int64(3), int64(math.MaxInt64), nil}, false},
		{"decimals", []any{-10.5, -0.25, 0.0, 1e-9, 2.5, 1e9, nil}, false},
		{"strings", []any{"", "a", "AB", "abc", "b", "b\x00", nil}, false},
		{"dates", []any{time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), nil}, false},
		{"descending", []any{nil, int64(9), int64(1), int64(-1)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys [][]byte
			for _, v := range tt.values {
				f, err := AppendValue(nil, v)
				require.NoError(t, err)
				keys = append(keys, AppendKeyComponent(nil, f, tt.desc))
			}
			assert.True(t, sort.SliceIsSorted(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 }))
			for i := 1; i < len(keys); i++ {
				assert.NotEqual(t, keys[i-1], keys[i], "values %v and %v", tt.values[i-1], tt.values[i])
			}
		})
	}
}

func TestKeyCaseInsensitive(t *testing.T) {
	a, _ := AppendValue(nil, "Smith  ")
	b, _ := AppendValue(nil, "SMITH")
	assert.Equal(t, AppendKeyComponent(nil, a, false), AppendKeyComponent(nil, b, false))
}

func TestWordKeys(t *testing.T) {
	f, _ := AppendValue(nil, "Big red-ball, 42 times")
	var words []string
	for _, k := range WordKeys(f) {
		words = append(words, string(bytes.TrimSuffix(k[1:], []byte{0, 1})))
	}
	assert.Equal(t, []string{"BIG", "RED", "BALL", "42", "TIMES"}, words)
}

func FuzzDecodeRecord(f *testing.F) {
	seed, _ := EncodeRecord(nil, []any{int64(1), "x", nil, []any{true}, 2.5, []byte("z")})
	f.Add(seed)
	f.Add([]byte{tagArray, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		row, err := DecodeRecord(b)
		if err != nil {
			return
		}
		again, err := EncodeRecord(nil, row)
		if err != nil {
			t.Fatalf("decoded %v does not encode: %v", row, err)
		}
		if _, err := DecodeRecord(again); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
	})
}
