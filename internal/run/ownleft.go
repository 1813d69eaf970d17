package run

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/manifest"
)

// A resume of the run that made the target works on it as its own: the
// no-integrity rebuild removes it and creates it again, a crash-safe
// resume truncates its dirty areas and loads into them. That is right
// while every write since the record's last stamp is the run's (a kill -9
// ends an invocation without a stamp). It is not once an invocation ended
// and left the target (manifest.Record.Leave, after the invocation's last
// write): a run that failed at a load, whose target the DBA then loaded
// by hand, served and went live on, was removed whole by the resume given
// weeks later from the shell's history (safety trial 11). So when the
// record was left after the journal's last invocation began, the target
// must be untouched since, as for --force (force-live), by the stricter
// rule that a file put anew at a recorded name is a change too.

// lastInvocationStart is when the journal's last invocation began.
func lastInvocationStart(rp *journal.Replayed) time.Time {
	var at time.Time
	for _, r := range rp.Runs {
		if r.State == journal.Started {
			at = r.Time
		}
	}
	return at
}

// leftAfter: the record was left by an invocation that began at start or
// later, that is, no invocation of the run began after the last one that
// ended (and none was killed since).
func leftAfter(rec *manifest.Record, start time.Time) bool {
	return rec.Left != nil && !start.IsZero() && !rec.Left.Before(start)
}

// ownLeftAlone refuses a resume onto the run's own target changed since an
// invocation of the run left it, naming the first changed file.
func ownLeftAlone(c *Config, rec *manifest.Record, view manifest.FS) error {
	err := rec.UntouchedSinceOwnRunLeft(view)
	var nl *manifest.NotLeftError
	if !errors.As(err, &nl) {
		return err
	}
	return precondition("the target %s is not as this run's last invocation left it when it ended: %s. Someone used it since (a DBA loading it by hand, or going live on it: OpenEdge writes a database in place), and the resume would remove it or truncate its areas: it is not the run's to write any more. Check what it is; if nothing in it is needed, remove it yourself (prodel %s, or rm of the files %s names) and resume, which creates it again; otherwise keep it and start any new migration in a new --work with another --target",
		c.Target, nl.Why, execx.ShellQuote(c.Target), filepath.Base(manifest.RecordPath(c.Target)))
}
