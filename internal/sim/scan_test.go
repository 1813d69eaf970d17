package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/vdisk"
)

// scanST is targetST with a fixed extent in Small larger than what its
// tables fill: formatted blocks above the high-water mark.
const scanST = `b .
d "Schema Area":6,64;1 .
d "Data":7,64;64 .
d "Index":8,64;8 .
d "Small":9,32;8 . f 1024
d "Small":9,32;8 .
`

// TestAnalysesReadWhatTheRealOnesRead: on a loaded, rebuilt target in
// scanST's Type II areas (tables in Data and Small, their indexes in
// Index; the Schema Area is Type I), each analysis reads, once and in
// sequence, what scan.go says the real one reads, counted here from the
// dbanalys report's block analysis: a tabanalys the tables' areas below
// their high-water marks (the area's header block aside) and not the
// Index area; an ixanalys the Index area and not the tables'; a dbanalys
// every area to its high-water mark, and not the formatted, never used
// blocks of Small's fixed extent. Before, all three read the record blocks
// in use and every index block.
func TestAnalysesReadWhatTheRealOnesRead(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and rebuilds a database")
	}
	env, src := fixtures.source(t, "erp", "2MB")
	work := t.TempDir()
	dumpDir := filepath.Join(work, "dump")
	require.NoError(t, os.MkdirAll(dumpDir, 0o755))
	var files []string
	for _, ts := range analysis(t, env, src).Tables {
		env.ok(t, "proutil", src, "-C", "dump", ts.QualifiedName(), dumpDir)
		files = append(files, filepath.Join(dumpDir, ts.Name+".bd"))
	}
	tgt := buildTarget(t, env, src, work, "scan", scanST)
	loadAll(t, env, tgt, files, nil, "")

	areas := blockAnalysis(t, env.ok(t, "proutil", tgt, "-C", "dbanalys"))
	require.NotEmpty(t, areas)
	want := map[string]int64{}
	var unused int64
	for _, ar := range areas {
		switch ar.Name {
		case "Control Area":
			continue
		case "Schema Area": // Type I: read whole by each
			want["tabanalys"] += ar.HighWater
			want["ixanalys"] += ar.HighWater
		case "Index":
			require.Zero(t, ar.Record, "the Index area holds indexes only")
			want["ixanalys"] += ar.HighWater - 1
		default:
			require.Zero(t, ar.Index, "area %s holds tables only", ar.Name)
			want["tabanalys"] += ar.HighWater - 1
		}
		want["dbanalys"] += ar.HighWater
		unused += ar.Total - ar.HighWater
	}
	require.Positive(t, unused, "Small's fixed extent has blocks above the high-water mark")
	require.Less(t, want["tabanalys"], want["dbanalys"])

	for _, kind := range []string{"tabanalys", "ixanalys", "dbanalys"} {
		t.Run(kind, func(t *testing.T) {
			state := t.TempDir()
			r := env.run(t, []string{"OESIM_STATE=" + state, vdisk.EnvIOPS + "=1000000"}, "", "proutil", tgt, "-C", kind)
			require.Equal(t, 0, r.code, r.out)
			c := diskstats(t, state)
			// The connect reads the master block first (docs/oesim.md).
			assert.Equal(t, (1+want[kind])*8192, c[1]*512, "bytes read (%d blocks of 8 KiB and the master block expected)", want[kind])
		})
	}
}

// blockAnalysis reads the "AREA ... BLOCK ANALYSIS" sections of a dbanalys
// (openedge.ParseAnalysis reads the record and index summaries only).
func blockAnalysis(t *testing.T, out string) []openedge.AreaAnalysis {
	var areas []openedge.AreaAnalysis
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, s)
		return n
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "AREA \"") && strings.HasSuffix(line, "BLOCK ANALYSIS"):
			name := line[len("AREA \""):strings.LastIndex(line, "\"")]
			areas = append(areas, openedge.AreaAnalysis{Name: name})
		case len(areas) == 0:
		case strings.HasPrefix(line, "Current high water mark:"):
			areas[len(areas)-1].HighWater = num(f[4])
		case strings.HasSuffix(line, "block(s) found in the area."):
			areas[len(areas)-1].Total = num(f[0])
		case strings.HasSuffix(line, "record block(s) found in the area"):
			areas[len(areas)-1].Record = num(f[0])
		case strings.HasSuffix(line, "index block(s) found in the area"):
			areas[len(areas)-1].Index = num(f[0])
		}
	}
	return areas
}
