package run

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/schedule"
)

// movesFrom reports whether a file dumped on host h must move to the
// target's machine.
func (e *Executor) movesFrom(h string) bool {
	l := e.cfg.hostLayout()
	return l != nil && l.Moves != nil && l.Moves(h)
}

// moveJob copies a table's dump (or one section of a threaded dump) from
// the host that dumped it to the target's, while other work goes on:
// each file streams through this machine into a part file there, and
// takes its name only when the size and SHA-256 of the file at rest on
// the dump's host, of the bytes that crossed, and of the copy at rest on
// the target agree (hostfs.Copy). The journal's record lists the copies,
// with their host and SHA-256: the load reads only them, and a resume
// proves them by their sizes there.
func (e *Executor) moveJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	var rec journal.Record
	var err error
	from := e.cfg.machine(j.Host)
	target := e.cfg.hostLayout().Target
	to := e.cfg.machine(target)
	srcDir, dstDir := e.cfg.at(j.Host).dumpDir(j.Table), e.cfg.at(target).dumpDir(j.Table)

	// The files and their sums: the dump's own record once it is done
	// (the sums it took of the files at rest); a section of a dump still
	// running is summed on its host now.
	var want []hostfs.Sum
	journalled := e.dumpFiles(j.Table)
	if j.Section > 0 {
		f := sectionFile(srcDir, j.Table, max(1, j.Section))
		if jf, ok := journalled[f]; ok && jf.SHA256 != "" {
			want = []hostfs.Sum{{Path: f, Size: jf.Size, SHA256: jf.SHA256}}
		} else if want, err = from.fs.Sums(ctx, f); err != nil {
			return rec, err
		}
	} else {
		for _, jf := range journalled {
			if jf.SHA256 == "" {
				return rec, fmt.Errorf("the dump of %s on %s has no SHA-256 in the journal to check a copy against: dump it again", j.Table, from.name)
			}
			want = append(want, hostfs.Sum{Path: jf.Path, Size: jf.Size, SHA256: jf.SHA256})
		}
		if len(want) == 0 {
			return rec, fmt.Errorf("no finished dump of %s on %s in the journal", j.Table, from.name)
		}
		sort.Slice(want, func(a, b int) bool { return sectionOf(want[a].Path, j.Table) < sectionOf(want[b].Path, j.Table) })
		// A table moves whole into a directory of its own: nothing of an
		// earlier dump stays beside it for its load to read.
		if err := to.fs.Fresh(ctx, dstDir); err != nil {
			return rec, err
		}
	}
	var bytes int64
	for _, w := range want {
		dst := path.Join(dstDir, path.Base(w.Path))
		fmt.Fprintf(log, "copy %s:%s -> %s:%s (%d bytes, sha256 %s)\n", from.name, w.Path, to.name, dst, w.Size, w.SHA256)
		got, err := hostfs.Copy(ctx, from.fs, w.Path, to.fs, dst, w)
		if err != nil {
			fmt.Fprintf(log, "  failed: %v\n", err)
			return rec, err
		}
		rec.Files = append(rec.Files, journal.File{Path: got.Path, Size: got.Size, Host: to.name, SHA256: got.SHA256})
		bytes += got.Size
	}
	rec.Message = fmt.Sprintf("%d file(s), %d bytes, %s -> %s, sha256 checked at both ends", len(rec.Files), bytes, from.name, to.name)
	return rec, nil
}

// dumpFiles are the files of a table's latest finished dump as the
// journal proves them, by path.
func (e *Executor) dumpFiles(table string) map[string]journal.File {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]journal.File{}
	if r := e.latestDoneRecord(schedule.KindDump, table, anySection); r != nil {
		for _, f := range r.Files {
			out[f.Path] = f
		}
	}
	return out
}

// sizeOn is the size of a file on a host (0 when it cannot be read).
func (e *Executor) sizeOn(ctx context.Context, host, p string) int64 {
	m := e.cfg.machine(host)
	if !m.remote {
		return sizeOf(p)
	}
	got, err := m.fs.Lstat(ctx, p)
	if err != nil {
		return 0
	}
	return got[p].Size
}

// fetchOutputs brings back what a job wrote on another host and the run
// keeps here: the source's .df (dump-df), sequence values (dump-seq), and
// the security files (dump-security, and the target's, load-security).
func (e *Executor) fetchOutputs(ctx context.Context, j *schedule.Job) error {
	m := e.cfg.machine(j.Host)
	if !m.remote {
		return nil
	}
	for _, name := range producedNames(j) {
		data, err := m.fs.ReadFile(ctx, e.cfg.at(j.Host).work(name))
		if err != nil {
			return fmt.Errorf("%s reported success but its %s on %s cannot be read: %w", j.ID, name, m.name, err)
		}
		if err := atomicfile.WriteFile(e.cfg.work(name), data); err != nil {
			return err
		}
	}
	return nil
}

// pushInputs puts on a job's host what it reads that the run keeps here:
// the sequence values for load-sequences, the source's users, grants and
// views for load-security.
func (e *Executor) pushInputs(ctx context.Context, j *schedule.Job) error {
	m := e.cfg.machine(j.Host)
	if !m.remote {
		return nil
	}
	var names []string
	switch j.Kind {
	case schedule.KindLoadSeq:
		names = []string{SequenceValues}
	case schedule.KindLoadSecurity:
		names = securityFiles(SecurityDir)
	}
	for _, name := range names {
		data, err := os.ReadFile(e.cfg.work(name))
		if err != nil {
			return err
		}
		if err := m.fs.WriteFile(ctx, e.cfg.at(j.Host).work(name), data); err != nil {
			return err
		}
	}
	return nil
}

// movedFiles are the files a load reads when its dump was moved: those
// of the latest finished move of the table (or of its section), as the
// journal names them on the target (nil when nothing was moved).
func (e *Executor) movedFiles(j *schedule.Job) []string {
	if e.cfg.hostLayout() == nil || !e.movesFrom(e.dumpHost(j.Table)) {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var files []string
	if r := e.latestDoneRecord(schedule.KindMove, j.Table, j.Section); r != nil {
		for _, f := range r.Files {
			files = append(files, f.Path)
		}
	}
	return files
}

// dumpHost is the host a table is dumped on.
func (e *Executor) dumpHost(table string) string {
	if d := e.built.Job(schedule.DumpID(table)); d != nil {
		return d.Host
	}
	return ""
}
