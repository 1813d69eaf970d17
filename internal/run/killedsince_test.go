package run

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sysproc"
)

// TestForeignSession: a log line written at or after the journal's last
// record by a process the journal never started is someone else's; lines
// before it and lines of the run's utilities and brokers are not; a line
// with no time and PID is unplaced unless a later entry is older.
func TestForeignSession(t *testing.T) {
	since := time.Date(2026, 11, 28, 15, 29, 41, 50_400_000, time.UTC)
	ours := journalledPIDs([]journal.Record{
		{Job: "load:PUB.Customer", State: journal.Running, Proc: &sysproc.ID{PID: 100}},
		{Job: "serve:target", State: journal.Done, Broker: &sysproc.ID{PID: 200}},
	}, nil)
	for _, tc := range []struct {
		name, log      string
		line, unplaced int
	}{
		{"only the run's, before and after", "[2026/11/28@15:29:40.000+0000] P-999 T-0 I PROUTIL : (451) before the kill\n" +
			"[2026/11/28@15:29:42.000+0000] P-100 T-0 I PROUTIL : Binary load of table PUB.Customer (6256)\n" +
			"[2026/11/28@15:29:43.000+0000] P-200 T-0 I BROKER  : (1613) Shutdown is executing.\n", 0, 0},
		{"a broker the run did not start", "[2026/11/28@15:29:42.000+0000] P-100 T-0 I PROUTIL : (6256)\n" +
			"[2026/11/28@15:30:00.000+0000] P-300 T-0 I BROKER  : (333) Multi-user session begin.\n", 2, 0},
		{"the same millisecond as the last record", "[2026/11/28@15:29:41.050+0000] P-301 T-0 I PROUTIL : (451)\n", 1, 0},
		{"another zone, after", "[2026/11/28@16:29:42.000+0100] P-302 T-0 I ABL 5: (452) Login by dba.\n", 1, 0},
		{"lines without a time and PID", "a note\n\n[not a time] P-303\n", 0, 1},
		{"lines without a time and PID, then an older entry", "a note\n[2026/11/28@15:29:40.000+0000] P-999 T-0 I PROUTIL : (451)\n", 0, 0},
		{"a wrapped message goes with its entry", "[2026/11/28@15:29:42.000+0000] P-100 T-0 W PROUTIL : (5408) a long\nmessage\n", 0, 0},
		{"a wrapped message after a blank line", "[2026/11/28@15:29:42.000+0000] P-100 T-0 W PROUTIL : (5408) a long\n\nmessage\n", 0, 0},
		{"after a session's date line, a line of no layout", "                Sat Nov 28 15:29:42 2026\nmessage\n", 0, 2},
		// The machine's clock stepped back an hour between the kill and the
		// DBA's session (safety trial 14): its lines come after the run's
		// in the file, stamped before the journal's last record.
		{"the clock stepped back after the run's last line", "[2026/11/28@15:29:41.000+0000] P-100 T-0 I PROUTIL : (6256)\n" +
			"[2026/11/28@14:30:00.000+0000] P-304 T-0 I ABL 5: (452) Login by dba.\n", 2, 0},
		{"an older entry a moment after a later one (two writers)", "[2026/11/28@15:29:40.900+0000] P-100 T-0 I PROUTIL : (6256)\n" +
			"[2026/11/28@15:29:40.400+0000] P-999 T-0 I PROUTIL : (451) before the kill\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg := filepath.Join(t.TempDir(), "db.lg")
			require.NoError(t, os.WriteFile(lg, []byte(tc.log), 0o644))
			read, err := readLogSince(manifest.OS{}, lg, since, ours)
			require.NoError(t, err)
			if tc.unplaced == 0 {
				assert.Nil(t, read.unplaced)
			} else if assert.NotNil(t, read.unplaced) {
				assert.Equal(t, tc.unplaced, read.unplaced.n)
			}
			if tc.line == 0 {
				assert.Empty(t, read.foreign)
				return
			}
			require.NotEmpty(t, read.foreign)
			assert.Equal(t, tc.line, read.foreign[0].n, read.foreign[0].text)
		})
	}
	read, err := readLogSince(manifest.OS{}, filepath.Join(t.TempDir(), "gone.lg"), since, ours)
	require.NoError(t, err)
	assert.Equal(t, logSince{}, read)
}

// TestJournalledPIDsOfTheTargetsMachine: on a run across hosts, the
// processes that count as the run's in the target's log are those on the
// target's machine: a utility's PID its host reported (the Running
// record's host), a broker of a serve there, this machine's when the
// target is here; a PID of another machine names nothing there.
func TestJournalledPIDsOfTheTargetsMachine(t *testing.T) {
	recs := []journal.Record{
		{Job: "dump:PUB.a", State: journal.Started, Host: "src"},
		{Job: "dump:PUB.a", State: journal.Running, Host: "src", Proc: &sysproc.ID{PID: 10}},
		{Job: "load:PUB.a", State: journal.Started, Host: "tgt"},
		{Job: "load:PUB.a", State: journal.Running, Host: "tgt", Proc: &sysproc.ID{PID: 20}},
		{Job: "serve:target", State: journal.Started, Host: "tgt"},
		{Job: "serve:target", State: journal.Done, Broker: &sysproc.ID{PID: 30}},
		{Job: journal.RunJob, State: journal.Started, Proc: &sysproc.ID{PID: 40}}, // oedl, here
	}
	for _, tc := range []struct {
		name   string
		target string // the machine the target is on
		want   []int
	}{
		{"the target on its own host", "tgt", []int{20, 30}},
		{"the target here", "", []int{40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onTarget := func(host string) bool {
				machine := map[string]string{"src": "src", "tgt": "tgt"}[host]
				return machine == tc.target
			}
			got := journalledPIDs(recs, onTarget)
			var pids []int
			for p := range got {
				pids = append(pids, p)
			}
			assert.ElementsMatch(t, tc.want, pids)
		})
	}
	assert.Len(t, journalledPIDs(recs, nil), 4, "one machine: every one")
}

// TestUnrecordedAllowance: a kill between a utility's start and its
// Running record leaves at most one unnamed process per job in flight
// (and a serve's broker): a single-call job whose process is recorded
// has none; ended jobs none.
func TestUnrecordedAllowance(t *testing.T) {
	proc := &sysproc.ID{PID: 1}
	started := func(job, kind string) journal.Record {
		return journal.Record{Job: job, Kind: kind, State: journal.Started}
	}
	for _, tc := range []struct {
		name string
		recs []journal.Record
		want int
	}{
		{"nothing in flight", []journal.Record{started("load:a", "load"), {Job: "load:a", State: journal.Running, Proc: proc}, {Job: "load:a", State: journal.Done}}, 0},
		{"a load with its process recorded", []journal.Record{started("load:a", "load"), {Job: "load:a", State: journal.Running, Proc: proc}}, 0},
		{"a load killed before its record", []journal.Record{started("load:a", "load")}, 1},
		{"a load tried again, its new attempt unrecorded", []journal.Record{started("load:a", "load"), {Job: "load:a", State: journal.Running, Proc: proc},
			{Job: "load:a", State: journal.Failed}, started("load:a", "load")}, 1},
		{"create-target after one of its calls", []journal.Record{started("create-target", "create-target"), {Job: "create-target", State: journal.Running, Proc: proc}}, 1},
		{"a serve: its broker and its three calls beside each other", []journal.Record{started("serve:target", "serve"), {Job: "serve:target", State: journal.Running, Proc: proc}}, 4},
		{"a batch's members: the batch's process is theirs", []journal.Record{started("load-batch:A:1", "load-batch"), {Job: "load-batch:A:1", State: journal.Running, Proc: proc},
			{Job: "load:a", Kind: "load", State: journal.Started, Batch: "load-batch:A:1"}}, 0},
		{"two loads, one recorded", []journal.Record{started("load:a", "load"), started("load:b", "load"), {Job: "load:b", State: journal.Running, Proc: proc}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, unrecordedAllowance(tc.recs, 3))
		})
	}
}

// TestNoSessionSinceKill: unknown processes in the target's log are taken
// for the killed run's unrecorded utilities only within killWindow of the
// journal's last record and only as many as the journal allows.
func TestNoSessionSinceKill(t *testing.T) {
	last := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	at := func(d time.Duration, pid int) string {
		return fmt.Sprintf("[%s] P-%d T-0 I PROUTIL : (6256)\n", last.Add(d).Format("2006/01/02@15:04:05.000-0700"), pid)
	}
	for _, tc := range []struct {
		name       string
		log        string
		unrecorded int
		refused    bool
	}{
		{"one unknown within the window, one allowed", at(time.Second, 7), 1, false},
		{"one unknown within the window, none allowed", at(time.Second, 7), 0, true},
		{"two unknown within the window, one allowed", at(time.Second, 7) + at(2*time.Second, 8), 1, true},
		{"one unknown after the window", at(killWindow+time.Second, 7), 5, true},
		{"the run's own after the window", at(time.Minute, 100), 0, false},
	} {
		// On this machine, and on a target's host (safety-hosts): the log
		// there is read through the host's view, not from this machine,
		// where the old code read it (and a run across hosts skipped
		// the check).
		for _, where := range []string{"here", "on its host"} {
			t.Run(tc.name+", "+where, func(t *testing.T) {
				target := filepath.Join(t.TempDir(), "tgt")
				var view manifest.FS = manifest.OS{}
				if where == "here" {
					require.NoError(t, os.WriteFile(target+".lg", []byte(tc.log), 0o644))
				} else {
					view = hostFiles{target + ".lg": tc.log}
				}
				r := &runner{cfg: &Config{Target: target}, lastRecord: last, ownPIDs: map[int]bool{100: true}, unrecorded: tc.unrecorded}
				err := r.noSessionSinceKill(view, &manifest.Record{})
				if !tc.refused {
					assert.NoError(t, err)
					return
				}
				var pe *PreconditionError
				require.ErrorAs(t, err, &pe)
				assert.Contains(t, err.Error(), target+".lg line 1")
			})
		}
	}
}

// hostFiles are files of another host, as its view reads them: none of
// them is on this machine.
type hostFiles map[string]string

func (h hostFiles) Lstat(name string) (fs.FileInfo, error)     { return nil, fs.ErrNotExist }
func (h hostFiles) Readlink(name string) (string, error)       { return "", fs.ErrNotExist }
func (h hostFiles) ReadDir(name string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }
func (h hostFiles) Birth(string) (int64, bool)                 { return 0, false }
func (h hostFiles) ReadFile(name string) ([]byte, error) {
	data, ok := h[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: "host:" + name, Err: fs.ErrNotExist}
	}
	return []byte(data), nil
}

// FuzzReadLogSince: any log is read without a panic; a line it names is
// one of the log's, at or after since; and a log that passes still fails
// with a line of the pre-10.1A layout, of no layout, or of a stranger
// after it: what oedl cannot read never passes.
func FuzzReadLogSince(f *testing.F) {
	f.Add("[2026/11/28@15:29:42.000+0000] P-7 T-0 I PROUTIL : (6256)\n")
	f.Add("[2026/11/28@15:29:42.000+0000] P-1 T-0 I PROUTIL : (6256)\n")
	f.Add("[2026/11/28@15:29:42.000+9999] P-99999999999999999999 T-0\n[] P-\n")
	fixtures, err := filepath.Glob(filepath.Join(realWorldLogs, "*.lg"))
	require.NoError(f, err)
	for _, path := range fixtures {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(string(data))
	}
	since := time.Date(2026, 11, 28, 15, 29, 41, 0, time.UTC)
	f.Fuzz(func(t *testing.T, log string) {
		dir := t.TempDir()
		read := func(log string) (logSince, error) {
			lg := filepath.Join(dir, "db.lg")
			require.NoError(t, os.WriteFile(lg, []byte(log), 0o644))
			return readLogSince(manifest.OS{}, lg, since, map[int]bool{1: true})
		}
		got, err := read(log)
		if err != nil {
			return // a line longer than the scanner takes: the check refuses
		}
		for _, o := range got.foreign {
			// Before since only past a clock stepped back (an entry stamped
			// clockStepBack or more before one above it counts as since).
			if o.at.Before(since.Truncate(time.Millisecond)) {
				assert.True(t, steppedBack(log), "%q named, stamped before since, with no clock step back above it", o.text)
			}
			assert.Contains(t, log, o.text)
		}
		if len(got.foreign) > 0 || got.remote != nil || got.unplaced != nil {
			return
		}
		if log != "" && !strings.HasSuffix(log, "\n") {
			log += "\n"
		}
		for _, tail := range []string{
			"12:25:08 BROKER  0: Multi-user session begin. (333)\n",
			"\x00\x00\n",
			"[2026/11/28@15:29:45.000+0000] P-           T-       I ABL    27: (452)   Login by report.\n",
			"[2026/11/28@15:29:45.000+0000] P-8 T-0 I ABL 5: (452) Login by dba.\n",
		} {
			after, err := read(log + "\n" + tail)
			require.NoError(t, err)
			assert.True(t, len(after.foreign) > 0 || after.remote != nil || after.unplaced != nil, "%q after a log that passes passes", tail)
		}
	})
}

// TestLogThatLostLines: the resume of a killed run refuses a target whose
// log lost lines the journal saw (truncated, replaced, removed: prolog, a
// copy): it proves no longer that nobody opened the target since. The
// old resume read the shorter log, found nobody, and went on. A log
// that grew passes; --force is the DBA saying he knows.
func TestLogThatLostLines(t *testing.T) {
	last := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	line := fmt.Sprintf("[%s] P-100 T-0 I PROUTIL : (6256)\n", last.Add(-time.Minute).Format("2006/01/02@15:04:05.000-0700"))
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, lg string)
		force   bool
		refused string
	}{
		{"grown", func(t *testing.T, lg string) { appendTo(t, lg, line) }, false, ""},
		{"truncated (prolog)", func(t *testing.T, lg string) { require.NoError(t, os.Truncate(lg, 0)) }, false, "it is 0 bytes, it was"},
		{"replaced", func(t *testing.T, lg string) {
			require.NoError(t, os.Remove(lg))
			require.NoError(t, os.WriteFile(lg, []byte(line+line+line), 0o644))
		}, false, "it is another file"},
		{"removed", func(t *testing.T, lg string) { require.NoError(t, os.Remove(lg)) }, false, "it is gone"},
		{"truncated, and the DBA says he knows", func(t *testing.T, lg string) { require.NoError(t, os.Truncate(lg, 0)) }, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "tgt")
			lg := target + manifest.SuffixLog
			require.NoError(t, os.WriteFile(lg, []byte(line+line), 0o644))
			cfg := &Config{Target: target, Force: tc.force}
			seen := cfg.targetLogSeen(context.Background())
			require.NotNil(t, seen)
			recs := []journal.Record{{Seq: 7, Job: "load:PUB.a", State: journal.Done, TargetLog: seen}}
			r := &runner{cfg: cfg, lastRecord: last, ownPIDs: map[int]bool{100: true}}
			r.logSeen, r.logSeenAt = lastLogSeen(recs)
			tc.change(t, lg)
			err := r.noSessionSinceKill(manifest.OS{}, &manifest.Record{})
			if tc.refused == "" {
				assert.NoError(t, err)
				return
			}
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tc.refused)
			assert.Contains(t, err.Error(), lg+" lost lines the journal saw (record 7)")
			assert.Contains(t, err.Error(), "--force")
		})
	}
	// A creation of the target since the log was seen: a new database,
	// a new log, nothing to compare.
	seen, _ := lastLogSeen([]journal.Record{{Seq: 3, TargetLog: &journal.LogSeen{Size: 9}}, {Seq: 4, Job: "create-target", State: journal.Started}})
	assert.Nil(t, seen)
}

func appendTo(t *testing.T, path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// steppedBack says whether an entry of log is stamped clockStepBack or
// more before an entry above it.
func steppedBack(log string) bool {
	var latest time.Time
	for _, line := range strings.Split(log, "\n") {
		l := openedge.ParseLogLine(strings.TrimSuffix(line, "\r"))
		if l.Kind != openedge.LogEntry {
			continue
		}
		if !latest.IsZero() && l.At.Before(latest.Add(-clockStepBack)) {
			return true
		}
		if l.At.After(latest) {
			latest = l.At
		}
	}
	return false
}
