package run

import (
	"path/filepath"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/journal"
)

// ResumeCommand is the command that continues this run, as the DBA pastes
// it at 3 a.m. from whatever directory the shell is in: every input a
// resume must repeat (the journal refuses others), absolute and
// shell-quoted, and the --calibration the run was estimated with. Tuning
// flags are left out: a resume takes them afresh.
func (c *Config) ResumeCommand() string {
	return resumeCommand(c.Work, c.hostsFile(), c.Source, c.Target, c.PlanDir, absOr(c.CalibrationFile))
}

// hostsFile is the --hosts file's name, "" on one machine.
func (c *Config) hostsFile() string {
	if c.Hosts == nil {
		return ""
	}
	return absOr(c.Hosts.Path)
}

// ResumeCommand is the command that continues the run whose journal this
// is, built from its last invocation's started record as Config.ResumeCommand
// builds it; "" when that record is of an oedl that did not keep the plan
// directory (the caller says --work alone then).
func (s *Status) ResumeCommand(work string) string {
	runs := s.Replayed.Runs
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; r.State == journal.Started {
			if r.PlanDir == "" {
				return ""
			}
			return resumeCommand(work, r.HostsFile, r.Source, r.Target, r.PlanDir, r.Calibration)
		}
	}
	return ""
}

func resumeCommand(work, hostsFile, source, target, planDir, calibration string) string {
	argv := []string{"oedl", "run", "--resume", "--work", absOr(work)}
	if hostsFile != "" {
		argv = append(argv, "--hosts", hostsFile)
	} else {
		argv = append(argv, "--source", absOr(source), "--target", absOr(target))
	}
	argv = append(argv, "--plan", absOr(planDir))
	if calibration != "" {
		argv = append(argv, "--calibration", calibration)
	}
	return execx.ShellQuoteArgv(argv)
}

// absOr is p made absolute, or p when it cannot be.
func absOr(p string) string {
	if p == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
