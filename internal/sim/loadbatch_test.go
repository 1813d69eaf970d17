package sim

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// batchSource dumps the three smallest non-empty tables of a small
// database and returns them with their dump files.
func batchSource(t *testing.T) (*dlcEnv, string, []openedge.TableStat, []string) {
	env, db := smallDB(t)
	a := analysis(t, env, db)
	ts := make([]openedge.TableStat, 0, len(a.Tables))
	for _, s := range a.Tables {
		if s.Records > 1 {
			ts = append(ts, s)
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Records < ts[j].Records })
	require.GreaterOrEqual(t, len(ts), 3)
	ts = ts[:3]
	dir := filepath.Join(env.work, "dumps")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	files := make([]string, len(ts))
	for i, s := range ts {
		env.ok(t, "proutil", db, "-C", "dump", s.QualifiedName(), dir)
		files[i] = filepath.Join(dir, openedge.DumpFileBase(s.Owner, s.Name)+".bd")
	}
	return env, db, ts, files
}

func writeList(t *testing.T, dir string, files ...string) string {
	list := filepath.Join(dir, "batch.lst")
	require.NoError(t, os.WriteFile(list, []byte(strings.Join(files, "\n")+"\n"), 0o644))
	return list
}

// A -dumplist naming several tables loads each as its own load would:
// the per-table messages in list order, one (15167) per table.
func TestLoadBatchOfTables(t *testing.T) {
	env, db, ts, files := batchSource(t)
	tgt := emptyCopy(t, env, db, "batch")
	list := writeList(t, env.work, files...)
	out := env.ok(t, "proutil", tgt, "-C", "load", files[0], "-dumplist", list)

	counts15167 := messagesNumbered(out, openedge.MsgLoadedRecords)
	require.Len(t, counts15167, len(ts), out)
	assert.Len(t, messagesNumbered(out, openedge.MsgLoadComplete), len(ts), "one (6256) per table")
	for i, m := range counts15167 {
		assert.Contains(t, m.Text, strconv.FormatInt(ts[i].Records, 10), "count of %s, in list order", ts[i].Name)
	}
	got := counts(analysis(t, env, tgt))
	for _, s := range ts {
		assert.Equal(t, s.Records, got[s.QualifiedName()], s.Name)
	}
}

// The files of one table must be next to each other in the list; a list
// that splits a table is refused before anything is written.
func TestLoadBatchSplitTableRefused(t *testing.T) {
	env, db, ts, files := batchSource(t)
	tgt := emptyCopy(t, env, db, "split")
	list := writeList(t, env.work, files[0], files[1], files[0])
	r := env.run(t, nil, "", "proutil", tgt, "-C", "load", files[0], "-dumplist", list)
	assert.Equal(t, exitFail, r.code, r.out)
	assert.Contains(t, r.out, list)
	got := counts(analysis(t, env, tgt))
	for _, s := range ts {
		assert.Zero(t, got[s.QualifiedName()], s.Name)
	}
}

// A load fault names a table: in a batch it strikes at that table's N-th
// record, after the tables before it were loaded whole.
func TestLoadBatchCrashInSecondTable(t *testing.T) {
	env, db, ts, files := batchSource(t)
	tgt := emptyCopy(t, env, db, "crash")
	list := writeList(t, env.work, files...)
	r := env.run(t, []string{"OESIM_FAULTS=load:" + ts[1].QualifiedName() + ":crash-after=1"}, "", "proutil", tgt, "-C", "load", files[0], "-dumplist", list)
	assert.Equal(t, -1, r.code, "killed by SIGKILL: %s", r.out)
	assert.Len(t, messagesNumbered(r.out, openedge.MsgLoadedRecords), 1, "the first table finished")
	got := counts(analysis(t, env, tgt))
	assert.Equal(t, ts[0].Records, got[ts[0].QualifiedName()], "the table before the crash is whole")
	assert.Zero(t, got[ts[2].QualifiedName()], "the table after the crash was not begun")
	active := indexesActive(t, tgt)
	assert.Equal(t, []bool{false, false, true}, []bool{active[ts[0].QualifiedName()], active[ts[1].QualifiedName()], active[ts[2].QualifiedName()]},
		"the tables begun have their indexes off, the one after has them on")
}

// A load switches each table's indexes off with a schema note of a few
// bytes appended to DB.db, as OpenEdge writes a few blocks and BI notes:
// the control file is not written again whole for every table.
func TestLoadBatchSwitchesIndexesOffInPlace(t *testing.T) {
	env, db, ts, files := batchSource(t)
	tgt := emptyCopy(t, env, db, "inplace")
	before, err := os.Stat(tgt + ".db")
	require.NoError(t, err)
	env.ok(t, "proutil", tgt, "-C", "load", files[0], "-dumplist", writeList(t, env.work, files...))
	after, err := os.Stat(tgt + ".db")
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "DB.db replaced by a rewrite")
	assert.LessOrEqual(t, after.Size()-before.Size(), int64(32*len(ts)), "bytes written to DB.db for %d switch-offs", len(ts))
	active := indexesActive(t, tgt)
	for _, s := range ts {
		assert.False(t, active[s.QualifiedName()], "%s's indexes off, as another process reads them", s.Name)
	}
}

// indexesActive reports, per table of db that has indexes, whether any is
// active, from DB.db as a new process reads it.
func indexesActive(t *testing.T, db string) map[string]bool {
	t.Helper()
	c, err := store.ReadControl(store.PathsFor(db))
	require.NoError(t, err)
	out := map[string]bool{}
	for _, tb := range c.Tables {
		for _, ix := range tb.Indexes {
			out[tb.QualifiedName()] = out[tb.QualifiedName()] || ix.Active
		}
	}
	return out
}

// messagesNumbered is every message num of out, in order.
func messagesNumbered(out string, num int) []openedge.Message {
	var ms []openedge.Message
	for _, m := range openedge.ScanMessages(out) {
		if m.Num == num {
			ms = append(ms, m)
		}
	}
	return ms
}
