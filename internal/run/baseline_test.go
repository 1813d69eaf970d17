package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

func TestFrozenBaseline(t *testing.T) {
	analysis := func(seq int64, path string, size int64, frozen bool) journal.Record {
		return journal.Record{Seq: seq, Job: string(schedule.KindAnalyzeSource), Kind: string(schedule.KindAnalyzeSource),
			State: journal.Done, Frozen: frozen, Files: []journal.File{{Path: path, Size: size}}}
	}
	const report = "source tally\n"
	tests := []struct {
		name    string
		recs    func(path string) []journal.Record
		wantSeq int64 // journal.Writer numbers the records 1, 2, ...
		want    bool
	}{
		{"the run counted the frozen source", func(p string) []journal.Record {
			return []journal.Record{analysis(7, p, int64(len(report)), true)}
		}, 1, true},
		{"dumped online (--online-source)", func(p string) []journal.Record {
			return []journal.Record{analysis(7, p, int64(len(report)), false)}
		}, 7, false},
		{"the file changed since", func(p string) []journal.Record {
			return []journal.Record{analysis(7, p, int64(len(report))+1, true)}
		}, 7, false},
		{"another file", func(p string) []journal.Record {
			return []journal.Record{analysis(7, p+".old", int64(len(report)), true)}
		}, 0, false},
		{"a later analysis decides", func(p string) []journal.Record {
			return []journal.Record{analysis(7, p, int64(len(report)), true), analysis(9, p, int64(len(report)), false)}
		}, 2, false},
		{"a failed analysis is no proof", func(p string) []journal.Record {
			r := analysis(7, p, int64(len(report)), true)
			r.State = journal.Failed
			return []journal.Record{r}
		}, 0, false},
		{"no journal", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, SourceAnalysis)
			require.NoError(t, os.WriteFile(path, []byte(report), 0o644))
			if tt.recs != nil {
				w, _, err := journal.Open(filepath.Join(dir, journal.FileName))
				require.NoError(t, err)
				for _, r := range tt.recs(path) {
					require.NoError(t, w.Append(r))
				}
				require.NoError(t, w.Close())
			}
			seq, ok := FrozenBaseline(path)
			assert.Equal(t, tt.want, ok)
			if tt.want {
				assert.Equal(t, tt.wantSeq, seq)
			}
		})
	}
}
