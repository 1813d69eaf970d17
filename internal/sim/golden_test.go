package sim

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// assertGolden compares got with testdata/<name>, or rewrites it under -update.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", filepath.FromSlash(name)), got)
}

var (
	completeLine = regexp.MustCompile(`Database analysis complete .*`)
	dateLine     = regexp.MustCompile(`(?m)^Date: .*$`)
	dbLine       = regexp.MustCompile(`(?m)^Database: .*$`)
)

// The reports of a generated sports database are deterministic: the
// generator is seeded and the storage accounting has no randomness. A
// change in record placement, block accounting or index building shows
// here as a diff.
func TestAnalysisGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a database")
	}
	base := filepath.Join(t.TempDir(), "sports")
	_, err := generateDatabase(base, "sports", 1<<20, 5, false)
	require.NoError(t, err)
	db, err := store.Open(store.PathsFor(base))
	require.NoError(t, err)
	defer db.Close()
	for _, kind := range []string{"tabanalys", "dbanalys"} {
		a, err := analyse(db, kind)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, openedge.WriteAnalysis(&buf, a))
		out := dateLine.ReplaceAll(buf.Bytes(), []byte("Date: (date)"))
		out = completeLine.ReplaceAll(out, []byte("Database analysis complete (date)"))
		out = dbLine.ReplaceAll(out, []byte("Database: (path)"))
		assertGolden(t, "sports-"+kind+".txt", out)

		back, err := openedge.ParseAnalysis(bytes.NewReader(buf.Bytes()), kind)
		require.NoError(t, err)
		assert.Equal(t, len(a.Tables), len(back.Tables), "the report parses back")
		if kind == "dbanalys" {
			// The whole layout of a real dbanalys (openedge-formats.md §1.2).
			for _, want := range []string{`CHAIN ANALYSIS FOR AREA "Control Area": 1`, `AREA "Control Area": 1  BLOCK ANALYSIS`,
				`RECORD BLOCK SUMMARY FOR AREA "Control Area": 1`, "PUB._AreaExtent", "PUB._Field", "DATABASE SUMMARY",
				"DATABASE BLOCK ANALYSIS:", "total blocks found in the database.", "Database analysis complete "} {
				assert.Contains(t, buf.String(), want)
			}
		}
	}
}
