package run

import (
	"slices"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/poststeps"
	"github.com/oedl/oedl/internal/report"
	"github.com/oedl/oedl/internal/verify"
)

// WorkEntries are the names a work directory may hold at its top after
// oedl prepare, run (any options, a resume, a kill), report and status,
// and the post-load script the run writes there: the one list of them.
// oedl demo clears an earlier demo's work directory only when it holds
// nothing else (cli/demo_clear.go); a name a run writes that is missing
// here made the next demo refuse its own directory (stop 30 review).
// e2e's verified() walks every finished run's work directory against it.
func WorkEntries() []string {
	names := append([]string{
		LogFile, LockFile, PlanFile, journal.FileName, journal.PrepareFileName,
		SourceTaskFile, PreparedAnalysis, SourceAnalysis, TargetAnalysis, SourceDF,
		SequenceValues, TargetSequenceValues, ETAFile, ETATraceFile, RusageFile,
		report.MarkdownFile, report.HTMLFile,
		verify.JSONFile, verify.BeforeList, verify.AfterList,
		poststeps.JSONFile, poststeps.ScriptFile, poststeps.StatisticsFile, poststeps.StatisticsOutput,
	}, workDirs...)
	slices.Sort(names)
	return names
}

// IsWorkEntry: name is one of WorkEntries, or what a run killed while it
// wrote one left (atomicfile's temporary file of it: the resume writes the
// file again and leaves that one, as TestKillAndResume found).
func IsWorkEntry(name string) bool {
	if of, ok := atomicfile.TempFor(name); ok {
		name = of
	}
	_, ok := slices.BinarySearch(WorkEntries(), name)
	return ok
}
