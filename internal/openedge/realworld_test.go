package openedge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
)

// realWorld is the top-level testdata/: files of our own that reproduce
// layouts seen in public material (where each was seen: its README.md).
const realWorld = "../../testdata"

// realWorldKinds maps a directory of the corpus to what its files are read
// with. Each reader returns what the file means to oedl (or the error that
// names its line), marshalled to testdata/golden/<dir>/<file>.json.
var realWorldKinds = map[string]func(t *testing.T, name string, data []byte) any{
	"tabanalys": realWorldAnalysis,
	"csoutput":  realWorldCSOutput,
	"df":        realWorldDF,
	"st":        realWorldStructure,
	"logs":      realWorldLog,
	"describe":  realWorldDescribe,
	"dblog":     realWorldDBLog,
}

// TestRealWorldLayouts reads every file of the corpus with its parser and
// compares the result with its golden file (go test -update rewrites
// them). A file that should be refused has its error, with the line it
// names, as golden.
func TestRealWorldLayouts(t *testing.T) {
	seen := 0
	for kind, read := range realWorldKinds {
		root := filepath.Join(realWorld, kind)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(realWorld, path)
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				got, err := json.MarshalIndent(read(t, filepath.ToSlash(rel), data), "", "  ")
				require.NoError(t, err)
				golden.Assert(t, filepath.Join(realWorld, "golden", rel+".json"), append(got, '\n'))
			})
			seen++
			return nil
		})
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, seen, 20, "the corpus holds at least 20 layouts")
	requireNoStaleGoldens(t)
}

// requireNoStaleGoldens fails on a golden file whose fixture is gone.
func requireNoStaleGoldens(t *testing.T) {
	root := filepath.Join(realWorld, "golden")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fixture := filepath.Join(realWorld, strings.TrimSuffix(rel, ".json"))
		if _, err := os.Stat(fixture); err != nil {
			t.Errorf("golden %s has no fixture %s", path, fixture)
		}
		return nil
	})
	require.NoError(t, err)
}

// failure is the golden form of a refused file.
type failure struct {
	Error string `json:"error"`
}

func realWorldAnalysis(t *testing.T, name string, data []byte) any {
	a, err := ParseAnalysis(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	checkWriteParseFixedPoint(t, name, a)
	return a
}

// checkWriteParseFixedPoint: what oesim would print of the report reads
// back to the same tables, in any layout the report came in.
func checkWriteParseFixedPoint(t *testing.T, name string, a *Analysis) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteAnalysis(&buf, a))
	b, err := ParseAnalysis(&buf, name+" (written)")
	require.NoError(t, err)
	require.Equal(t, tableCounts(a), tableCounts(b))
}

func tableCounts(a *Analysis) []string {
	var out []string
	for _, tb := range a.Tables {
		out = append(out, tb.QualifiedName()+"."+tb.Partition+"/"+tb.Tenancy+"="+strconv.FormatInt(tb.Records, 10))
	}
	slices.Sort(out)
	return out
}

func realWorldCSOutput(t *testing.T, name string, data []byte) any {
	a, err := ParseCSTab(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	require.True(t, IsCSTab(data), "%s is recognised as a -csoutput table file by its content", name)
	return a
}

// dfMeaning is what a .df says to oedl and oesim.
type dfMeaning struct {
	Codepage      string
	Tables        []*DFTable
	Sequences     []*DFSequence
	OrphanFields  []*DFField  `json:",omitempty"`
	OrphanIndexes []*DFIndex  `json:",omitempty"`
	Changes       []*DFChange `json:",omitempty"`
	Steps         int
}

func realWorldDF(t *testing.T, name string, data []byte) any {
	d, err := ParseDF(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	var out bytes.Buffer
	_, err = d.WriteTo(&out)
	require.NoError(t, err)
	require.Equal(t, string(data), out.String(), "%s writes back byte for byte", name)
	return dfMeaning{Codepage: d.Codepage(), Tables: d.Tables(), Sequences: d.Sequences(), OrphanFields: d.OrphanFields(),
		OrphanIndexes: d.OrphanIndexes(), Changes: d.Changes(), Steps: len(d.Steps())}
}

// stMeaning is a structure file as prostrct reads it, with what Validate
// says of it.
type stMeaning struct {
	Areas    []*StructArea
	Validate string `json:",omitempty"`
}

func realWorldStructure(t *testing.T, name string, data []byte) any {
	s, err := ParseStructure(bytes.NewReader(data), name)
	if err != nil {
		return failure{err.Error()}
	}
	m := stMeaning{Areas: s.Areas}
	if err := s.Validate(); err != nil {
		m.Validate = err.Error()
	}
	var out bytes.Buffer
	require.NoError(t, WriteStructure(&out, s))
	back, err := ParseStructure(&out, name+" (written)")
	require.NoError(t, err)
	require.Equal(t, len(s.Areas), len(back.Areas), "%s writes and reads back", name)
	return m
}

// logMeaning is what oedl decides from a utility's console output: the
// message numbers, success (CheckSuccess, as if the exit code were 0) and
// the figures the result parsers read.
type logMeaning struct {
	Utility  string
	Messages []int
	Check    string          `json:",omitempty"` // CheckSuccess's error
	Dump     *DumpResult     `json:",omitempty"`
	Load     *LoadResult     `json:",omitempty"`
	Idxbuild *IdxbuildResult `json:",omitempty"`
	Broker   int             `json:",omitempty"` // proserve: the broker's PID (BrokerPID)
	Error    string          `json:",omitempty"` // the result parser's error
}

// logUtilities name the utility of a log by the start of its file name.
var logUtilities = []string{"dump", "load", "idxbuild", "procopy", "prostrct", "truncate", "aimage", "proserve"}

func realWorldLog(t *testing.T, name string, data []byte) any {
	base := filepath.Base(name)
	m := logMeaning{}
	for _, u := range logUtilities {
		if strings.HasPrefix(base, u+"_") {
			m.Utility = u
		}
	}
	require.NotEmpty(t, m.Utility, "%s: name a log after its utility (%v)", name, logUtilities)
	out := string(data)
	for _, msg := range ScanMessages(out) {
		m.Messages = append(m.Messages, msg.Num)
	}
	if err := CheckSuccess(m.Utility, out, 0); err != nil {
		m.Check = err.Error()
	}
	var err error
	switch m.Utility {
	case "dump":
		var r DumpResult
		r, err = ParseDumpOutput(out)
		m.Dump = &r
	case "load":
		var r LoadResult
		r, err = ParseLoadOutput(out)
		m.Load = &r
	case "idxbuild":
		var r IdxbuildResult
		r, err = ParseIdxbuildOutput(out)
		m.Idxbuild = &r
	case "proserve":
		m.Broker, _ = BrokerPID(out)
	}
	if err != nil {
		m.Error = err.Error()
	}
	return m
}

// describeMeaning is a describe output as oedl reads it, or its error.
type describeMeaning struct {
	Description *Description `json:",omitempty"`
	Error       string       `json:",omitempty"`
}

func realWorldDescribe(t *testing.T, name string, data []byte) any {
	d, err := ParseDescribe(string(data))
	if err != nil {
		require.Contains(t, name, "refused", "%s: only a file named *refused* may fail", name)
		return describeMeaning{Error: err.Error()}
	}
	require.NotContains(t, name, "refused", "%s: named refused but read", name)
	return describeMeaning{Description: &d}
}

// dbLogLine is one line of a database log as oedl reads it.
type dbLogLine struct {
	Line int
	LogLine
}

// dbLogMeaning is a database log as oedl reads it: each line that is not
// blank, and the message numbers the utility-output reader (ScanMessages)
// would take from it (none from a 10.1A+ entry, whose number comes first).
type dbLogMeaning struct {
	Lines    []dbLogLine
	Messages []int `json:",omitempty"`
}

func realWorldDBLog(t *testing.T, name string, data []byte) any {
	var m dbLogMeaning
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l := ParseLogLine(line); l.Kind != LogBlank {
			m.Lines = append(m.Lines, dbLogLine{Line: i + 1, LogLine: l})
		}
	}
	for _, msg := range ScanMessages(string(data)) {
		m.Messages = append(m.Messages, msg.Num)
	}
	return m
}
