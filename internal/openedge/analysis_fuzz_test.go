package openedge

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseAnalysis: never panics, never returns a report together with an
// error, and whatever parses can be written and parsed again, after which
// writing is a fixed point (the first rewrite may round sizes and factors).
func FuzzParseAnalysis(f *testing.F) {
	for _, name := range []string{"sports2000_11.5.1.dbanalys", "old_spacing_10.1.tabanalys", "partitions_11.7.tabanalys", "sample.written"} {
		b, err := os.ReadFile("testdata/analysis/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(report("PUB.a\n 1 1.0B 1 1 1 1 1.0 1.0\n")))
	f.Add([]byte(report("LOB SUMMARY FOR AREA x: 1\nSummary for AREA \"Data\": 7\nSubtotals: 0 0.0B 0 0 0 0 0.0 1.0\n")))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := ParseAnalysis(bytes.NewReader(in), "fuzz")
		if err != nil {
			require.Nil(t, a)
			return
		}
		require.NotNil(t, a)
		var w1 bytes.Buffer
		require.NoError(t, WriteAnalysis(&w1, a))
		a2, err := ParseAnalysis(bytes.NewReader(w1.Bytes()), "rewrite")
		require.NoError(t, err, "the writer's output must parse:\n%s", w1.String())
		require.Len(t, a2.Tables, len(a.Tables))
		require.Len(t, a2.Indexes, len(a.Indexes))

		var w2, w3 bytes.Buffer
		require.NoError(t, WriteAnalysis(&w2, a2))
		a3, err := ParseAnalysis(bytes.NewReader(w2.Bytes()), "rewrite2")
		require.NoError(t, err)
		require.NoError(t, WriteAnalysis(&w3, a3))
		require.Equal(t, w2.String(), w3.String())
		require.Equal(t, a2.Tables, a3.Tables)
		require.Equal(t, a2.Indexes, a3.Indexes)
	})
}
