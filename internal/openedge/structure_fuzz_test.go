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
	// The limits: a Type II Schema Area, a variable transaction log, past
	// 1 TB, and the 2 GiB large-files edge (2097024 KB is the largest at 8 KB).
	f.Add("d \"Schema Area\":6,64;8 .\nt . f 1024\nt .\nd \"D\":7 . f 1073741952\nd \"D\":7 . v 2097025\n")
	f.Add("b . f 2097152\nb .\nd \"D\":7,64;512 . f 2097024\nd \"D\":7,64;512 .\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseStructure(strings.NewReader(text), "fuzz.st")
		if err != nil {
			require.Nil(t, s)
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.st:"), "error names the file: %v", err)
			return
		}
		// Every extent needing large files is a real line of the file.
		for _, e := range s.LargeFileExtents(8192) {
			require.Positive(t, e.Line, "a large-files extent names its line")
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
