package openedge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The .st samples under testdata/structure are the documented ones of
// openedge-formats.md §5.1 (the real prostrct list output, the version 9
// KB sample, the documentation sample with AI areas) plus a hand-written
// file with every syntax the grammar allows (comments of the three kinds,
// blank lines, CRLF, tabs, quoted paths with blanks, "v <size>", t lines,
// several AI areas, non-ASCII names). For each, two goldens: what the parser
// understood (.parsed) and what WriteStructure prints (.written).

func stSamples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "structure", "*.st"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

func parseSTFile(t *testing.T, path string) *Structure {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := ParseStructure(f, filepath.Base(path))
	require.NoError(t, err)
	return s
}

func TestParseStructureGolden(t *testing.T) {
	for _, path := range stSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := parseSTFile(t, path)
			require.NoError(t, s.Validate())
			base := strings.TrimSuffix(filepath.Base(path), ".st")
			assertGolden(t, "structure/"+base+".parsed", []byte(dumpStructure(s)))

			var out bytes.Buffer
			require.NoError(t, WriteStructure(&out, s))
			assertGolden(t, "structure/"+base+".written", out.Bytes())
		})
	}
}

func TestStructureRoundTrip(t *testing.T) {
	for _, path := range stSamples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := parseSTFile(t, path)
			var out bytes.Buffer
			require.NoError(t, WriteStructure(&out, s))
			again, err := ParseStructure(&out, s.Source)
			require.NoError(t, err)
			require.NoError(t, again.Validate())
			assert.Equal(t, withoutLines(s), withoutLines(again))
		})
	}
}

// TestWriteStructureIsProstrctList: the real `prostrct list` output is
// already in the writer's layout, so it comes back byte for byte.
func TestWriteStructureIsProstrctList(t *testing.T) {
	path := filepath.Join("testdata", "structure", "prostrct-list.st")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteStructure(&out, parseSTFile(t, path)))
	assert.Equal(t, string(data), out.String())
}

func TestParseStructureGrouping(t *testing.T) {
	s := parseSTFile(t, filepath.Join("testdata", "structure", "mixed.st"))
	var got []string
	for _, a := range s.Areas {
		got = append(got, fmt.Sprintf("%c %q %d extents", a.Type, a.Name, len(a.Extents)))
	}
	assert.Equal(t, []string{
		`b "" 3 extents`, // unnamed b lines: one Primary Recovery Area
		`d "Schema Area" 1 extents`,
		`d "Order Data" 2 extents`,
		`d "Order Index" 2 extents`,
		`d "Ünïcode ärea" 1 extents`,
		`t "" 1 extents`,
		`a "" 1 extents`, // every unnamed a line is an AI area of its own
		`a "" 1 extents`,
		`a "" 1 extents`,
	}, got)

	data := s.Area("order DATA")
	require.NotNil(t, data, "Area is case-insensitive")
	assert.Equal(t, Extent{Path: "/data vol 1/order", Fixed: true, SizeKB: 2048000, Line: 10}, data.Extents[0])
	assert.Equal(t, Extent{Path: "/data vol 2/order", SizeKB: 1024000, Line: 11}, data.Extents[1])
	assert.True(t, data.TypeII())
	assert.Nil(t, s.Area("missing"))

	cased := parseSTString(t, "d \"Data\":7 /a f 1024\nd \"DATA\":7 /b\n")
	require.Len(t, cased.Areas, 1, "area names are compared case-insensitively")
	assert.Equal(t, "Data", cased.Areas[0].Name)

	old := parseSTString(t, "d .\nd . f 1024\n")
	require.Len(t, old.Areas, 1, "version 8 unnamed d lines are the Schema Area")
	assert.Equal(t, SchemaAreaName, old.Areas[0].Name)
}

func parseSTString(t *testing.T, text string) *Structure {
	t.Helper()
	s, err := ParseStructure(strings.NewReader(text), "x.st")
	require.NoError(t, err)
	return s
}

func TestParseStructureErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown type", "b .\nx /db\n", `x.st:2: unknown line type "x"`},
		{"upper-case type", "D \"Data\" .\n", `x.st:1: unknown line type "D"`},
		{"type glued to name", "d\"Data\" .\n", `x.st:1: unknown line type`},
		{"unterminated name", "d \"Data .\n", `x.st:1: unterminated area name`},
		{"empty name", "d \"\":7 .\n", `x.st:1: empty area name`},
		{"bad number", "\n\nd \"Data\":x,32 .\n", `x.st:3: area "Data": area number "" is not a positive number`},
		{"zero rpb", "d \"Data\":7,0 .\n", `x.st:1: area "Data": records per block "0" is not a positive number`},
		{"junk after info", "d \"Data\":7,32;8x .\n", `x.st:1: area "Data": unexpected "x"`},
		{"missing path", "d \"Data\":7\n", `x.st:1: missing extent path`},
		{"unterminated quoted path", "a !\"/ai data f 10\n", `x.st:1: unterminated quoted path`},
		{"plain quoted path", "b \"/bi\"\n", `x.st:1: missing extent path`},
		{"bang path", "b !/bi\n", `x.st:1: path !/bi: write a quoted path`},
		{"unquoted blank in path", "a /ai data f 1024\n", `x.st:1: unexpected "data" after path "/ai"`},
		{"fixed without size", "d \"Data\":7 /db f\n", `x.st:1: fixed extent "/db" has no size`},
		{"size not a number", "d \"Data\":7 /db f 10K\n", `x.st:1: extent size "10K" is not a number of KB`},
		{"negative size", "d \"Data\":7 /db f -64\n", `x.st:1: extent size "-64"`},
		{"extra words", "d \"Data\":7 /db f 64 v\n", `x.st:1: unexpected "v" after the extent size`},
		{"new extent types", "d \"Data\":7 /db ev 64\n", `x.st:1: unexpected "ev" after path "/db"`},
		{"line too long", "b .\n" + strings.Repeat("x", 2<<20), `x.st:2: bufio.Scanner: token too long`},
		{"crlf line numbers", "b .\r\n\r\n# c\r\nq .\r\n", `x.st:4: unknown line type "q"`},
		// Notepad before Windows 10 1903 saved UTF-8 with a BOM.
		{"UTF-16", "\xff\xfeb\x00 \x00.\x00", `x.st:1: the file is UTF-16 (byte order mark FF FE)`},
		{"byte order mark", "\ufeff#\r\nb .\r\n", `x.st:1: the file starts with a UTF-8 byte order mark`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseStructure(strings.NewReader(tt.text), "x.st")
			require.Error(t, err)
			assert.Nil(t, s, "no partial result")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStructureValidate(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // one message per line, in line order; nil = valid
	}{
		{"documented samples are valid", "b .\nd \"Schema Area\":6,32;1 .\nd \"Data\":7,256;512 . f 1024\nd \"Data\":7,256;512 .\n", nil},
		{"rpb not a power of 2", "d \"Data\":7,48;8 .\n", []string{`x.st:1: area "Data": records per block 48 is not a power of 2 from 1 to 256`}},
		{"rpb above 256", "d \"Schema Area\":6,32 .\n\nd \"Data\":7,512;8 .\n", []string{`x.st:3: area "Data": records per block 512 is not a power of 2`}},
		{"bpc", "d \"Data\":7,32;16 .\n", []string{`x.st:1: area "Data": blocks per cluster 16 is not 1, 8, 64 or 512`}},
		{"numbers all or none", "d \"Schema Area\" .\nd \"Data\":7 .\nd \"Index\" .\n", []string{`x.st:3: area "Index" has no area number but area "Data" (line 2) has one`}},
		{"schema area is 6", "d \"Schema Area\":7 .\n", []string{`x.st:1: area "Schema Area": the Schema Area is always area 6, not 7`}},
		{"user areas from 7", "d \"Data\":5 .\nd \"Big\":32001 .\n", []string{
			`x.st:1: area "Data": data area numbers run from 7 to 32000`,
			`x.st:2: area "Big": data area numbers run from 7 to 32000`,
		}},
		{"same name same info", "d \"Data\":7,32;8 /a f 1024\nd \"Data\":8,32;8 /b\n", []string{
			`x.st:2: area "Data" is ":8,32;8" here but ":7,32;8" on line 1`,
		}},
		{"numbers unique", "d \"Data\":7 .\nd \"Index\":8 .\nd \"Lobs\":7 .\n", []string{
			`x.st:3: area "Lobs" uses area number 7, already used by area "Data" (line 1)`,
		}},
		{"one variable extent, last", "d \"Data\":7 /a\nd \"Data\":7 /b f 1024\nd \"Data\":7 /c\n", []string{
			`x.st:1: area "Data": a variable extent must be the last extent of its area (line 2 follows)`,
		}},
		{"two variable extents", "b /bi1\nb /bi2\n", []string{
			`x.st:1: b area: a variable extent must be the last extent of its area (line 2 follows)`,
		}},
		{"size above 32 KB", "d \"Data\":7 /a f 32\nd \"Data\":7 /b v 16\n", []string{
			`x.st:1: area "Data": extent size 32 KB is not more than 32 KB`,
			`x.st:2: area "Data": extent size 16 KB is not more than 32 KB`,
		}},
		{"no rpb on a/b/t", "b \"BI\",32 /bi\na \"AI\";8 /ai\n", []string{
			`x.st:1: area "BI": records per block and blocks per cluster are only for data areas`,
			`x.st:2: area "AI": records per block and blocks per cluster are only for data areas`,
		}},
		{"schema area is Type I", "d \"Schema Area\":6,64;8 .\n", []string{
			`x.st:1: area "Schema Area": the Schema Area is a Type I area (blocks per cluster 1), not 8`,
		}},
		{"transaction log has fixed extents only", "t . f 1024\nt .\n", []string{
			`x.st:2: t area: the transaction log area has fixed extents only`,
		}},
		{"an extent of 1 TB is the largest", "d \"Data\":7 /a f 1073741824\nd \"Data\":7 /b f 1073741952\nd \"Data\":7 /c v 1073741825\n", []string{
			`x.st:2: area "Data": extent size 1073741952 KB is more than 1 TB`,
			`x.st:3: area "Data": extent size 1073741825 KB is more than 1 TB`,
		}},
		{"1024 extents are the most", strings.Repeat("d \"Data\":7 . f 1024\n", 1024) + "d \"Data\":7 .\n", []string{
			`x.st:1025: area "Data": 1025 extents; an area has at most 1024`,
		}},
		{"1024 extents are valid", strings.Repeat("d \"Data\":7 . f 1024\n", 1023) + "d \"Data\":7 .\n", nil},
		{"several problems sorted by line", "d \"Data\":7,3;8 .\nd \"Index\":7,32;9 .\n", []string{
			`x.st:1: area "Data": records per block 3 is not a power of 2`,
			`x.st:2: area "Index" uses area number 7`,
			`x.st:2: area "Index": blocks per cluster 9`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := parseSTString(t, tt.text).Validate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			lines := strings.Split(err.Error(), "\n")
			require.Len(t, lines, len(tt.want), err.Error())
			for i, w := range tt.want {
				assert.Contains(t, lines[i], w)
			}
		})
	}
}

func TestWriteStructureRefuses(t *testing.T) {
	tests := []struct {
		name string
		area *StructArea
		want string
	}{
		{"quote in name", &StructArea{Type: AreaData, Name: `Da"ta`, Extents: []Extent{{Path: "."}}}, "cannot hold a quote"},
		{"quote in quoted path", &StructArea{Type: AreaData, Name: "Data", Extents: []Extent{{Path: `/a "b"`}}}, "cannot hold a quote"},
		{"empty path", &StructArea{Type: AreaData, Name: "Data", Extents: []Extent{{}}}, "empty extent path"},
		{"number without name", &StructArea{Type: AreaBeforeImage, Number: 3, Extents: []Extent{{Path: "."}}}, "without a name cannot carry a number"},
		{"unknown type", &StructArea{Type: 'x', Name: "X", Extents: []Extent{{Path: "."}}}, "unknown area type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteStructure(&bytes.Buffer{}, &Structure{Areas: []*StructArea{tt.area}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestWriteStructureQuoting(t *testing.T) {
	s := &Structure{Source: "x.st", Areas: []*StructArea{
		{Type: AreaAfterImage, Extents: []Extent{{Path: "/ai data", Fixed: true, SizeKB: 1024}}},
		{Type: AreaData, Name: `C:\db\Area`, Number: 7, Extents: []Extent{{Path: `C:\db`, SizeKB: 512}, {Path: "!odd"}}},
	}}
	var out bytes.Buffer
	require.NoError(t, WriteStructure(&out, s))
	assert.Equal(t, "#\na !\"/ai data\" f 1024\n#\nd \"C:\\db\\Area\":7 C:\\db v 512\nd \"C:\\db\\Area\":7 !\"!odd\"\n", out.String())
	again, err := ParseStructure(&out, "x.st")
	require.NoError(t, err)
	assert.Equal(t, withoutLines(s), withoutLines(again))
}

func TestRoundExtentKB(t *testing.T) {
	tests := []struct {
		size      int64
		blockSize int
		want      int64
	}{
		{100000, 8192, 100096}, // the Index extent of the prostrct list sample
		{100096, 8192, 100096}, // already a multiple: unchanged
		{1, 8192, 128},
		{320, 1024, 320},
		{321, 1024, 336},
		{1000, 4096, 1024},
		{0, 8192, 0},
		{500, 0, 500}, // no block size: nothing to round to
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, RoundExtentKB(tt.size, tt.blockSize), "RoundExtentKB(%d, %d)", tt.size, tt.blockSize)
	}
}

// dumpStructure prints what the parser understood, one line per area and
// per extent, for the .parsed goldens.
func dumpStructure(s *Structure) string {
	var b strings.Builder
	for _, a := range s.Areas {
		fmt.Fprintf(&b, "%c %q number=%d rpb=%d bpc=%d typeII=%t line=%d\n", a.Type, a.Name, a.Number, a.RPB, a.BPC, a.TypeII(), a.Line)
		for _, e := range a.Extents {
			kind := "variable"
			if e.Fixed {
				kind = "fixed"
			}
			fmt.Fprintf(&b, "    %s %d KB %q line=%d\n", kind, e.SizeKB, e.Path, e.Line)
		}
	}
	return b.String()
}

// withoutLines returns a copy of s with line numbers cleared: a rewritten
// file places the same extents on other lines.
func withoutLines(s *Structure) *Structure {
	c := &Structure{Source: s.Source, mismatches: s.mismatches}
	for _, a := range s.Areas {
		ac := *a
		ac.Line = 0
		ac.Extents = make([]Extent, len(a.Extents))
		for i, e := range a.Extents {
			e.Line = 0
			ac.Extents[i] = e
		}
		c.Areas = append(c.Areas, &ac)
	}
	return c
}

// TestLargeFileExtents: without large files an extent stays below 2 GiB,
// at the largest multiple of 16 blocks (Progress KB P4211's table), and
// LargeFileExtents names the extents over it as prostrct rounds them.
func TestLargeFileExtents(t *testing.T) {
	for _, tt := range []struct {
		blockSize int
		want      int64
	}{{1024, 2097136}, {2048, 2097120}, {4096, 2097088}, {8192, 2097024}} {
		assert.Equal(t, tt.want, MaxExtentKBWithoutLargeFiles(tt.blockSize), "block size %d", tt.blockSize)
	}
	tests := []struct {
		name  string
		text  string
		lines []int // of the extents that need large files
	}{
		{"the largest without", "d \"Data\":7 . f 2097024\nd \"Data\":7 .\n", nil},
		{"rounded up past the limit", "d \"Data\":7 . f 2097025\nd \"Data\":7 .\n", []int{1}},
		{"exactly 2 GiB", "b . f 2097152\nb .\nd \"Data\":7 . f 1024\n", []int{1}},
		{"a variable extent's maximum", "d \"Data\":7 . f 1024\nd \"Data\":7 . v 3145728\na . f 4194304\n", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []int
			for _, e := range parseSTString(t, tt.text).LargeFileExtents(8192) {
				lines = append(lines, e.Line)
			}
			assert.Equal(t, tt.lines, lines)
		})
	}
}
