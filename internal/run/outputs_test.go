package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
)

// Safety trial 7: dump_df.p, dump_seqvals.p and dump_security.p write
// their output by opening its name in the work directory (OUTPUT TO: a
// truncate, through a link, into a file with a second name; the fake's
// utilities write as they do). A resume whose WORK/source.df or
// sequences.d became a link to a database's extent (a resume's work
// directory is not checked again) dumped again into it. Each output's
// name is removed before its job runs: what it led to stays as it was.
func TestResumeNeverWritesAnOutputThroughALink(t *testing.T) {
	for how, link := range map[string]func(oldname, newname string) error{"symbolic link": os.Symlink, "hard link": os.Link} {
		t.Run(how, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			oe.hangLoad["PUB.order"] = true
			cfg.Runner, cfg.DumpJobs, cfg.LoadJobs = oe, 2, 2
			ctx, cancel := context.WithCancel(context.Background())
			cfg.Events = event.SinkFunc(func(e event.Event) {
				if e.Kind == event.JobStarted && e.Job == "load:PUB.order" {
					cancel()
				}
			})
			_, err := Run(ctx, cfg)
			require.ErrorIs(t, err, context.Canceled)

			extents := t.TempDir()
			for _, name := range []string{SourceDF, SequenceValues} {
				extent := filepath.Join(extents, name+".d1")
				require.NoError(t, os.WriteFile(extent, []byte("another database's extent"), 0o644))
				require.NoError(t, os.Remove(cfg.work(name)))
				require.NoError(t, link(extent, cfg.work(name)))
			}

			oe.hangLoad["PUB.order"] = false
			cfg.Events, cfg.Resume = nil, true
			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			assert.True(t, res.Verify.OK)
			for _, name := range []string{SourceDF, SequenceValues} {
				got, err := os.ReadFile(filepath.Join(extents, name+".d1"))
				require.NoError(t, err)
				assert.Equal(t, "another database's extent", string(got), name)
				fi, err := os.Lstat(cfg.work(name))
				require.NoError(t, err)
				assert.True(t, fi.Mode().IsRegular(), "%s is the run's own file again", name)
			}
		})
	}
}
