package openedge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseStructure: the parser never panics and never returns a structure
// with an error; whatever Validate accepts writes out and parses back equal
// (line numbers aside) and valid.
func FuzzParseStructure(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "structure", "*.st"))
	corpus, _ := filepath.Glob(filepath.Join(realWorld, "st", "*.st")) // e lines, CRLF, Windows paths
	files = append(files, corpus...)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(data))
	}
	f.Add("d \"Data\":7,32;8 !\"/a b\" f 1024\nd \"Data\":7,32;8 /c\n")
	f.Add("a !\"!x\" v 64\n* c\n: c\n# c\nt \"T\":3 . f 33\n")
	f.Add("\ufeff#\r\nd \"D\":7,32;8 D:\\db\\prod f 1024\r\n") // a BOM, CRLF and a Windows path
	f.Add("\xff\xfeb\x00 \x00.\x00")                           // UTF-16LE: refused
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseStructure(strings.NewReader(text), "fuzz.st")
		if err != nil {
			require.Nil(t, s)
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.st:"), "error names the file: %v", err)
			return
		}
		if s.Validate() != nil {
			return
		}
		var out bytes.Buffer
		require.NoError(t, WriteStructure(&out, s))
		again, err := ParseStructure(bytes.NewReader(out.Bytes()), "fuzz.st")
		require.NoError(t, err, "written:\n%s", out.String())
		require.NoError(t, again.Validate())
		require.Equal(t, withoutLines(s), withoutLines(again), "written:\n%s", out.String())
	})
}
