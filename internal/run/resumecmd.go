package run

import (
	"path/filepath"

	"github.com/oedl/oedl/internal/execx"
)

// ResumeCommand is the command that continues this run, as the DBA pastes
// it at 3 a.m. from whatever directory the shell is in: every input a
// resume must repeat (the journal refuses others), absolute and
// shell-quoted. Tuning flags are left out: a resume takes them afresh.
func (c *Config) ResumeCommand() string {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	argv := []string{"oedl", "run", "--resume", "--work", abs(c.Work)}
	if c.Hosts != nil && c.Hosts.Path != "" {
		argv = append(argv, "--hosts", abs(c.Hosts.Path))
	} else {
		argv = append(argv, "--source", abs(c.Source), "--target", abs(c.Target))
	}
	argv = append(argv, "--plan", abs(c.PlanDir))
	return execx.ShellQuoteArgv(argv)
}
