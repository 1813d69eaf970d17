package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteJSONGolden(t *testing.T) {
	for _, tc := range []struct {
		golden             string
		failLoad, mismatch bool
		state              string
	}{
		{"report.json", true, false, "verified"},
		{"report_mismatch.json", false, true, "mismatch"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			d, err := FromWork(fixture(t, tc.failLoad, tc.mismatch))
			require.NoError(t, err)
			d.Work = "/work" // the temp dir differs per run
			var out bytes.Buffer
			require.NoError(t, WriteJSON(&out, d))
			assertGolden(t, tc.golden, out.Bytes())

			// What a script reads back: the verdict's word, and every
			// table's row with the counts report.md shows.
			var back map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &back))
			assert.Equal(t, float64(JSONVersion), back["v"])
			assert.Equal(t, tc.state, back["verdict"].(map[string]any)["state"])
			assert.Len(t, back["tables"], len(d.Tables))
			assert.Len(t, back["critical_path"], len(d.Critical))
		})
	}
}

func TestJSONListsAreNeverNull(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteJSON(&out, Data{Title: "empty"}))
	for _, key := range []string{"phases", "kinds", "tables", "slowest", "critical_path", "throughput", "failures"} {
		assert.Contains(t, out.String(), `"`+key+`": []`, "a script ranges over %s without a null check", key)
	}
	assert.NotContains(t, out.String(), `"records"`, "no verification: no counts rather than zeros")
}
