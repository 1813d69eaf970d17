package openedge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseDF: the parser never panics and never returns a DF with an
// error; whatever parses writes back to the same bytes, except the trailer
// offset when the input's was stale (then only those digits differ); the
// output parses again to the same typed views and is a fixed point.
func FuzzParseDF(f *testing.F) {
	// Seeds are the samples cut at blank lines into single statements (and
	// the trailer), whole only when small: the fuzzer minimizes every new
	// input it finds, which takes seconds on a 5 KB file and would use most
	// of a short run. The whole samples are covered by the unit tests.
	files, _ := filepath.Glob(filepath.Join("testdata", "df", "*.df"))
	corpus, _ := filepath.Glob(filepath.Join(realWorld, "df", "*.df")) // real layouts: # comments, DECIMALS ?, ADD FILE, incremental
	for _, p := range append(files, corpus...) {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		if len(data) <= 1024 {
			f.Add(data)
			continue
		}
		sep := []byte("\n\n")
		if bytes.Contains(data, []byte("\r\n\r\n")) {
			sep = []byte("\r\n\r\n")
		}
		for chunk := range bytes.SplitSeq(data, sep) {
			f.Add(append(chunk, sep...))
		}
	}
	f.Add([]byte("ADD TABLE \"T\" AREA \"A\"\r\n  INDEX-FIELD\n"))
	f.Add([]byte("OpenEdge Release 11.7.4 as of Fri Jul 13 19:01:25 EDT 2018\n\nPROGRESS Database Analysis\n")) // a report given as the .df
	f.Add([]byte("\xef\xbb\xbfADD INDEX \"i\" ON \"t\" \n  WORD\n.\nPSC\n.\n 12 \n\n"))
	f.Add([]byte("\xff\xfeA\x00D\x00D\x00 \x00T\x00")) // UTF-16LE (Notepad's "Unicode"): refused
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ParseDF(bytes.NewReader(in), "fuzz.df")
		if err != nil {
			require.Nil(t, d)
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.df:"), "error names the file: %v", err)
			return
		}
		var out bytes.Buffer
		_, err = d.WriteTo(&out)
		require.NoError(t, err)
		if !bytes.Equal(in, out.Bytes()) {
			old, new := onlyDifference(in, out.Bytes())
			require.True(t, isDigits(old) && isDigits(new), "only the trailer offset may change: %q became %q", old, new)
		}

		again, err := ParseDF(bytes.NewReader(out.Bytes()), "fuzz.df")
		require.NoError(t, err)
		require.Equal(t, d.Tables(), again.Tables())
		require.Equal(t, d.Sequences(), again.Sequences())
		require.Equal(t, d.OrphanFields(), again.OrphanFields())
		require.Equal(t, d.OrphanIndexes(), again.OrphanIndexes())
		require.Equal(t, d.Codepage(), again.Codepage())
		var out2 bytes.Buffer
		_, err = again.WriteTo(&out2)
		require.NoError(t, err)
		require.Equal(t, out.String(), out2.String())

		// The whole-schema check reads every statement: it never panics
		// and every problem it finds names the file and a line.
		if err := CheckSchema(d, nil); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				require.Regexp(t, `^fuzz\.df:\d+: `, line)
			}
		}
	})
}

// onlyDifference strips the common prefix and suffix of a and b.
func onlyDifference(a, b []byte) ([]byte, []byte) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	a, b = a[p:], b[p:]
	s := 0
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return a[:len(a)-s], b[:len(b)-s]
}

func isDigits(b []byte) bool {
	return len(bytes.Trim(b, "0123456789")) == 0
}

// FuzzDFSetAreas: on whatever parses, moving every table, index and LOB to
// the fuzzed area name gives a file that parses again, shows that area
// everywhere and is otherwise the same definitions.
func FuzzDFSetAreas(f *testing.F) {
	for _, p := range []string{"sports.df", "incremental.df", "bom-tabs.df"} {
		data, err := os.ReadFile(filepath.Join("testdata", "df", p))
		require.NoError(f, err)
		f.Add(data, "New Area")
	}
	f.Add([]byte("ADD TABLE \"T\"\n\nADD FIELD \"b\" OF \"T\" AS blob\n  POSITION 2\n\nADD INDEX \"i\" ON \"T\"\n  INDEX-FIELD \"b\""), "a \"quoted\"\nline")
	f.Fuzz(func(t *testing.T, in []byte, area string) {
		d, err := ParseDF(bytes.NewReader(in), "fuzz.df")
		if err != nil {
			return
		}
		before := withoutAreas(d.Clone())
		for _, tb := range d.Tables() {
			require.NoError(t, d.SetTableArea(tb.Name, area))
			for _, ix := range tb.Indexes {
				require.NoError(t, d.SetIndexArea(tb.Name, ix.Name, area))
			}
			for _, fl := range tb.Fields {
				if fl.IsLOB() {
					require.NoError(t, d.SetLobArea(tb.Name, fl.Name, area))
				}
			}
		}
		var out bytes.Buffer
		_, err = d.WriteTo(&out)
		require.NoError(t, err)
		again, err := ParseDF(bytes.NewReader(out.Bytes()), "fuzz.df")
		require.NoError(t, err, "rewritten:\n%s", out.String())
		for _, tb := range again.Tables() {
			require.Equal(t, area, tb.Area)
			for _, ix := range tb.Indexes {
				require.Equal(t, area, ix.Area)
			}
			for _, fl := range tb.Fields {
				if fl.IsLOB() {
					require.Equal(t, area, fl.LobArea)
				}
			}
		}
		require.Equal(t, before, withoutAreas(again), "only the areas changed")
	})
}

// withoutAreas returns the typed views of d with every area cleared, line
// numbers too (an inserted AREA line moves what follows).
func withoutAreas(d *DF) []DFTable {
	var out []DFTable
	for _, tb := range d.Tables() {
		c := *tb
		c.Area, c.Line = "", 0
		c.Fields, c.Indexes = nil, nil
		for _, fl := range tb.Fields {
			fc := *fl
			fc.Line = 0
			fc.LobArea = ""
			c.Fields = append(c.Fields, &fc)
		}
		for _, ix := range tb.Indexes {
			ic := *ix
			ic.Area, ic.Line = "", 0
			c.Indexes = append(c.Indexes, &ic)
		}
		out = append(out, c)
	}
	return out
}
