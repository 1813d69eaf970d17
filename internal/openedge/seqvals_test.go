package openedge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseSeqvals: the sequence values files of testdata/seqvals (their
// layouts and where each was seen: README.md there) read as the same
// sequences, the Data Administration's with their numbers.
func TestParseSeqvals(t *testing.T) {
	odd := `Next"Odd"Name`
	tests := []struct {
		file string
		want []SeqValue
	}{
		{"dictionary_seqvals.d", []SeqValue{{0, "NextCustNum", 2101, 1}, {1, "NextInvNum", 1000, 2}, {2, odd, -5, 3}, {3, "NextOrdNum", 6070, 4}}},
		{"dump_seqvals.out", []SeqValue{{-1, "NextCustNum", 2101, 1}, {-1, "NextInvNum", 1000, 2}, {-1, odd, -5, 3}, {-1, "NextOrdNum", 6070, 4}}},
		{"oesim_tab.out", []SeqValue{{-1, "NextCustNum", 2101, 1}, {-1, "NextInvNum", 1000, 2}, {-1, "NextOrdNum", 6070, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "seqvals", tt.file))
			require.NoError(t, err)
			defer f.Close()
			got, err := ParseSeqvals(f, tt.file)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseSeqvalsRefuses(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"one field", "\"a\" 1\n\"b\"\n", "s.d:2: 1 fields"},
		{"two layouts", "\"a\" 1\n\n0 \"b\" 2\n", "s.d:3: 3 fields where line 1 has 2"},
		{"value not an integer", "\"a\" x\n", "s.d:1: \"a x\" is not a sequence name"},
		{"number not an integer", "x \"a\" 1\n", "s.d:1: sequence number \"x\""},
		{"unknown value", "\"a\" ?\n", "s.d:1:"},
		{"unterminated name", "\"a 1\n", "s.d:1: unterminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSeqvals(strings.NewReader(tt.in), "s.d")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// TestAppendSeqvalRoundTrip: what AppendSeqval writes (oedl's
// dump_seqvals.p layout) reads back the same, quotes and all.
func TestAppendSeqvalRoundTrip(t *testing.T) {
	var b []byte
	b = AppendSeqval(b, `a "b" c`, -9223372036854775808)
	b = AppendSeqval(b, "next-cust", 1000)
	assert.Equal(t, "\"a \"\"b\"\" c\" -9223372036854775808\n\"next-cust\" 1000\n", string(b))
	got, err := ParseSeqvals(strings.NewReader(string(b)), "x")
	require.NoError(t, err)
	assert.Equal(t, []SeqValue{{-1, `a "b" c`, -9223372036854775808, 1}, {-1, "next-cust", 1000, 2}}, got)
}

func FuzzParseSeqvals(f *testing.F) {
	for _, name := range []string{"dictionary_seqvals.d", "dump_seqvals.out", "oesim_tab.out"} {
		data, err := os.ReadFile(filepath.Join("testdata", "seqvals", name))
		require.NoError(f, err)
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, in string) {
		vals, err := ParseSeqvals(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		// What parses writes back in oedl's layout and reads the same.
		var b []byte
		for _, v := range vals {
			b = AppendSeqval(b, v.Name, v.Value)
		}
		again, err := ParseSeqvals(strings.NewReader(string(b)), "again")
		require.NoError(t, err, "%q", b)
		require.Len(t, again, len(vals))
		for i := range vals {
			assert.Equal(t, vals[i].Name, again[i].Name)
			assert.Equal(t, vals[i].Value, again[i].Value)
		}
	})
}
