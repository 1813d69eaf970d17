package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/hostfs"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
	"github.com/oedl/oedl/internal/schedule"
)

// createTargetJob creates the target: it proves the target's files again
// (the preflight's proof may be minutes old), removes only what that
// proof allows (the files of an earlier oedl target its record names with
// their inodes, or this run's own half-made target), writes the target's
// record naming every file it is about to create, runs prostrct create,
// procopy and load_df.p, then stamps the record with each file's device
// and inode and journals the files it created.
func (e *Executor) createTargetJob(ctx context.Context, j *schedule.Job, log *os.File) (journal.Record, error) {
	p := e.proof
	if p == nil {
		return journal.Record{}, fmt.Errorf("create-target without a preflight proof of its files")
	}
	tf := e.cfg.targetFiles(ctx)
	view := tf.view
	recPath := manifest.RecordPath(e.cfg.Target)
	rules := p.rules
	// A record this run wrote (an earlier attempt of this job, or an
	// invocation of this run that was killed) names the files it made.
	if cur, err := manifest.ReadRecord(view, recPath); err == nil && cur != nil && filepath.Clean(cur.Work) == filepath.Clean(e.cfg.Work) {
		rules.Record, rules.Replace = cur, true
		if p.ownWritten {
			rules.Record = cur.ForOwnRun()
		}
	}
	found, err := manifest.Prove(view, p.entries, rules)
	if err != nil {
		return journal.Record{}, err
	}
	if len(found) > 0 && p.leftSince != nil {
		// A broker started since the preflight, on the target an earlier
		// invocation of this run left (ownleft.go).
		if cur, err := manifest.ReadRecord(view, recPath); err != nil || cur == nil || !ownRecord(cur, e.cfg.Work) || cur.Left == nil || !cur.Left.Equal(*p.leftSince) {
			return journal.Record{}, fmt.Errorf("the target's record %s changed since the preflight proved it (%v): nothing removed", recPath, err)
		} else if err := ownLeftAlone(e.cfg, cur, view); err != nil {
			return journal.Record{}, err
		}
	}
	if len(found) > 0 && !ownRecord(rules.Record, e.cfg.Work) {
		// Another run's target, proven left alone by the preflight
		// minutes ago: a broker started since would have written it.
		if err := forceLeftAlone(e.cfg, rules.Record, view); err != nil {
			return journal.Record{}, err
		}
	}
	if err := manifest.RemoveWith(view, tf.remove, found); err != nil {
		return journal.Record{}, fmt.Errorf("replace the earlier target: %w", err)
	}
	var files []manifest.Entry
	for _, en := range p.entries {
		if en.Path != recPath {
			files = append(files, en)
		}
	}
	rec := manifest.NewRecord(rules.Target, e.cfg.Work, files)
	if err := tf.write(rec, recPath); err != nil {
		return journal.Record{}, fmt.Errorf("write the target's record %s: %w", recPath, err)
	}
	jr, err := e.runSteps(ctx, j, e.cfg.steps(j, nil), log)
	if err != nil {
		return jr, err
	}
	view = e.cfg.targetFiles(ctx).view // what the utilities made, not what the proof saw
	if v, ok := view.(*hostfs.View); ok {
		paths := make([]string, 0, len(rec.Files))
		for _, f := range rec.Files {
			paths = append(paths, f.Path)
		}
		_ = v.Prefetch(paths...) // one call, not one per file
	}
	if err := rec.Stamp(view, rules.Protected...); err != nil {
		return jr, fmt.Errorf("stamp the target's record: %w", err)
	}
	if err := tf.write(rec, recPath); err != nil {
		return jr, fmt.Errorf("write the target's record %s: %w", recPath, err)
	}
	for _, f := range rec.Files {
		if f.ID != nil {
			if fi, err := view.Lstat(f.Path); err == nil {
				jr.Created = append(jr.Created, journal.File{Path: f.Path, Size: fi.Size(), Host: tf.host})
			}
		}
	}
	jr.Message = fmt.Sprintf("%d files created, named in %s", len(jr.Created), filepath.Base(recPath))
	if len(found) > 0 {
		jr.Message += fmt.Sprintf("; %d files of an earlier oedl target replaced", len(found))
	}
	return jr, nil
}

// targetFS is the target's files as the proof and create-target reach
// them: this machine's, or the target host's through its connection.
type targetFS struct {
	host   string
	view   manifest.FS
	remove func(path string) error
	write  func(rec *manifest.Record, path string) error
}

func (c *Config) targetFiles(ctx context.Context) targetFS {
	l := c.hostLayout()
	if l == nil || !c.machine(l.Target).remote {
		host := ""
		if l != nil {
			host = l.Target
		}
		return targetFS{host: host, view: manifest.OS{}, remove: os.Remove,
			write: func(rec *manifest.Record, p string) error { return rec.Write(p) }}
	}
	m := c.machine(l.Target)
	return targetFS{host: l.Target, view: hostfs.NewView(ctx, m.fs),
		remove: func(p string) error {
			// Allowed one by one: the file the proof found oedl's.
			m.fs.Allow(p)
			return m.fs.RemoveFile(ctx, p)
		},
		write: func(rec *manifest.Record, p string) error {
			data, err := rec.Bytes()
			if err != nil {
				return err
			}
			return m.fs.WriteFile(ctx, p, data)
		}}
}
