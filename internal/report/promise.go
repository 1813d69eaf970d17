package report

import (
	"time"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/units"
)

// againstEstimate says which way the outage went from the window the
// estimate gave before the run (its P50, the figure a DBA promises), and,
// when the estimate had a range, whether the outage stayed inside its
// P90: "5.7s shorter than the 13s estimated", "2s longer than the 13s
// estimated, within its P90 of 17s". "" without an estimate. A
// percentage error alone does not say which way, and a manager reads
// "+84%" as 84% over (nu-trial10).
func againstEstimate(e *event.Estimate, outage time.Duration) string {
	if e == nil || e.Window <= 0 || outage <= 0 {
		return ""
	}
	est := "the " + units.FormatDuration(e.Window) + " estimated"
	diff := outage - e.Window
	by := units.FormatDuration(max(diff, -diff))
	switch {
	case by == "0s":
		return "as " + est // off by less than the tenth shown
	case diff < 0:
		return by + " shorter than " + est
	case e.P90 <= e.Window:
		return by + " longer than " + est
	case outage <= e.P90:
		return by + " longer than " + est + ", within its P90 of " + units.FormatDuration(e.P90)
	}
	return by + " longer than " + est + ", past its P90 of " + units.FormatDuration(e.P90)
}
