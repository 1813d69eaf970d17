package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/manifest"
)

// TestForceRefusesATargetUsedSince: a run ends verified, the DBA goes live
// on its target and shuts it down (OpenEdge writes in place: every device
// and inode the record names is unchanged), and the old command line runs
// again with --force. It used to replace the production database; now it
// refuses (a precondition, exit 3) naming the target, the file and what
// changed, and leaves every file as it was. A target untouched since
// still is replaced.
func TestForceRefusesATargetUsedSince(t *testing.T) {
	long := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name string
		use  func(t *testing.T, target string)
		want func(target string) []string // in the error; nil: --force replaces
	}{
		{name: "untouched since the run left it", use: func(*testing.T, string) {}},
		{name: "a transaction grew the control area", use: func(t *testing.T, target string) {
			f, err := os.OpenFile(target+".db", os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString("a block more")
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}, want: func(target string) []string { return []string{target + ".db changed since the oedl run in", "size: "} }},
		{name: "the control area written in place", use: func(t *testing.T, target string) {
			require.NoError(t, os.Chtimes(target+".db", long, long))
		}, want: func(target string) []string {
			return []string{target + ".db changed since the oedl run in", "modified 2021-05-06T07:08:09"}
		}},
		{name: "a record of an older oedl", use: func(t *testing.T, target string) {
			path := target + manifest.RecordSuffix
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var rec map[string]any
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // inodes and birth times as written
			require.NoError(t, dec.Decode(&rec))
			delete(rec, "left")
			for _, f := range rec["files"].([]any) {
				delete(f.(map[string]any), "state")
			}
			data, err = json.Marshal(rec)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}, want: func(string) []string { return []string{"records no size or times of", "written by an oedl older than"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			cfg.Runner = newFakeOE(cfg.Plan)
			_, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			tt.use(t, cfg.Target)
			before := sums(t, filepath.Dir(cfg.Target))

			again := cfg
			again.Work, again.Force = filepath.Join(t.TempDir(), "work2"), true
			_, err = Run(context.Background(), again)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			for _, w := range append(tt.want(cfg.Target), "--force replaces a target only while it is exactly as the oedl run that made it left it, and "+cfg.Target+" is not",
				"remove it yourself (prodel", "or choose another --target") {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, before, sums(t, filepath.Dir(cfg.Target)), "every file of the target as it was")
		})
	}
}

// sums is the SHA-256 of every file in dir, by name.
func sums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string][32]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = sha256.Sum256(data)
	}
	return out
}
