package run

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// SourceTaskFile is the name of the file dump_lasttask.p (and
// dump_lasttask_df.p) write the source's last transaction id into: in a
// scratch directory since i12-prep; earlier runs wrote WORK/source.lasttask
// and removed it once read.
const SourceTaskFile = "source.lasttask"

// What tells that a source changed since the run froze it. A resume that
// dumps the rest of a source someone wrote to meanwhile leaves a target
// holding tables from two moments of it, which nothing can tell afterwards.
// The files cannot tell it: OpenEdge writes the open dates of the master
// block (.db), of every extent's header (a mismatch is (9213)/(9215)) and
// of the BI on every open, so a broker's start or stop, or a tabanalys,
// changes every file's mtime and bytes. The master block's last
// transaction id (_MstrBlk-Lasttask) changes with every transaction that
// writes and with nothing else: it is read single-user by
// dump_lasttask.p, journalled on the preflight's record when the run is
// about to freeze the source, and read again by a resume's preflight.

// readSourceTaskAndDF reads the source's last transaction id and dumps
// its definitions in one single-user session (dump_lasttask_df.p, one
// utility start-up for the two), into the scratch directory dir: the id
// is returned, the .df left at dir/SourceDF for checkSourceSchema. The
// session fails on a source anyone holds (checkSourceFree).
func (r *runner) readSourceTaskAndDF(ctx context.Context, dir string) (int64, error) {
	c := r.cfg
	ablDir := c.work("abl")
	if err := os.MkdirAll(ablDir, 0o755); err != nil {
		return 0, err
	}
	data, err := ablSource(ablDumpLastTaskDF)
	if err != nil {
		return 0, err
	}
	proc := filepath.Join(ablDir, ablDumpLastTaskDF)
	if err := atomicfile.WriteFile(proc, data); err != nil {
		return 0, err
	}
	out := filepath.Join(dir, SourceTaskFile)
	for _, f := range []string{out, filepath.Join(dir, SourceDF)} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	argv := []string{c.bin("_progres"), "-b", "-db", c.db(schedule.DBSource), "-1", "-p", proc, "-param", dir}
	if err := r.call(ctx, step{argv: argv, dir: dir}); err != nil {
		return 0, precondition("read the source's last transaction id and definitions: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return 0, precondition("read the source's last transaction id: %v", err)
	}
	return parseSourceTask(b, out)
}

// readSourceTaskOn reads the source's last transaction id on its host of
// a run across hosts: dump_lasttask.p shipped into that host's WORK/abl (as
// writeHostFiles ships every procedure) and run there by argv, its file
// written into a scratch directory read back and removed.
func (r *runner) readSourceTaskOn(ctx context.Context) (int64, error) {
	c := r.cfg
	host := c.hostLayout().Source
	m := c.machine(host)
	data, err := ablSource(ablDumpLastTask)
	if err != nil {
		return 0, err
	}
	proc := path.Join(m.work, "abl", ablDumpLastTask)
	if err := m.fs.MkdirAll(ctx, path.Dir(proc)); err != nil {
		return 0, precondition("host %s: %v", host, err)
	}
	if err := m.fs.WriteFile(ctx, proc, data); err != nil {
		return 0, precondition("host %s: %v", host, err)
	}
	out, err := r.scratchOutput(ctx, host, SourceTaskFile, func(hc *Config, file string) []string {
		return []string{hc.bin("_progres"), "-b", "-db", hc.Source, "-1", "-p", proc, "-param", file}
	})
	if err != nil {
		return 0, precondition("read the source's last transaction id on %s: %v", host, err)
	}
	return parseSourceTask(out, host+":"+SourceTaskFile)
}

// parseSourceTask reads the one decimal line dump_lasttask.p writes
// (name says where it was read).
func parseSourceTask(b []byte, name string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, precondition("%s: the source's last transaction id is not a number: %q", name, strings.TrimSpace(string(b)))
	}
	return v, nil
}

// frozenSourceTask is the last transaction id the journal holds for the
// source: the latest preflight's that read one (a resume that went on
// journals the value it compared).
func frozenSourceTask(recs []journal.Record) (journal.Record, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Job == string(schedule.KindPreflight) && r.State == journal.Done && r.SourceTask != nil {
			return r, true
		}
	}
	return journal.Record{}, false
}

// sourcePending tells whether the resume still runs anything that reads
// the source's contents (a dump, its tabanalys, .df, sequences, users).
// One that only loads needs the source no more: its dumps are proven, all
// of one moment.
func sourcePending(b *schedule.Built, p *resumePlan) bool {
	for _, j := range b.Jobs() {
		switch j.Kind {
		case schedule.KindDump, schedule.KindAnalyzeSource, schedule.KindDumpDF, schedule.KindDumpSeq, schedule.KindDumpSecurity:
			if !p.skip[j.ID] && (j.DB == "" || j.DB == schedule.DBSource) {
				return true
			}
		}
	}
	return false
}

// checkSourceUnchanged refuses a resume that would read a source whose
// last transaction id differs from the one journalled at the freeze.
func (r *runner) checkSourceUnchanged(recs []journal.Record, b *schedule.Built, p *resumePlan) error {
	frozen, ok := frozenSourceTask(recs)
	if !ok || r.sourceTask == nil || *r.sourceTask == *frozen.SourceTask || !sourcePending(b, p) {
		return nil
	}
	c := r.cfg
	return precondition("the source %s%s changed since this run froze it: its last transaction id (_MstrBlk-Lasttask) is %d, it was %d when the run began (%s, journal record %d); "+
		"the tables dumped before the change and those still to dump would be from two different moments of it. "+
		"Start the migration again in a new --work directory (the target %s is this run's: remove it or name another)",
		c.Source, r.onHost(schedule.DBSource), *r.sourceTask, *frozen.SourceTask, frozen.Time.Local().Format("2006-01-02 15:04:05"), frozen.Seq, c.Target)
}
