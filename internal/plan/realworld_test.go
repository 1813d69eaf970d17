package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/openedge"
)

// realWorldReports are the reports of the top-level testdata/ (ours,
// reproducing layouts seen in public material: testdata/README.md).
const realWorldReports = "../../testdata/tabanalys"

// TestPlanRealWorldReports plans every real-world report: the parser
// refuses it (a cut-off report), or Make refuses it (a multi-tenant,
// partitioned or non-UTF-8 source), or the plan keeps every invariant; the
// golden (testdata/golden/realworld/<file>.txt) says which, with the error
// or the placements. A layout that starts to plan differently shows here.
func TestPlanRealWorldReports(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realWorldReports, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var out strings.Builder
			a, err := openedge.ParseAnalysis(bytes.NewReader(openedge.FromUTF16(data)), name)
			if err != nil {
				out.WriteString("not read: " + err.Error() + "\n")
				golden.Assert(t, filepath.Join("testdata", "golden", "realworld", name+".txt"), []byte(out.String()))
				return
			}
			in := Input{Analysis: a, AnalysisName: name}
			p, err := Make(in, testOptions())
			if err != nil {
				require.Nil(t, p)
				out.WriteString("not planned: " + err.Error() + "\n")
			} else {
				checkInvariants(t, p, in)
				for _, tp := range p.Tables {
					out.WriteString(tp.Table + " -> " + tp.DataArea + " " + string(tp.Class) + "\n")
				}
			}
			golden.Assert(t, filepath.Join("testdata", "golden", "realworld", name+".txt"), []byte(out.String()))
		})
	}
}
