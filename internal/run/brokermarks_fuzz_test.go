package run

import (
	"fmt"
	"strings"
	"testing"
)

// parseBrokerMarks reads what brokerMarksScript prints on a host: a line
// "PID =WORK" per broker whose environment was read, "PID ?" per one whose
// was not. What decides a shutdown must not be misread: a broker is
// readable (and so possibly this run's) only when its line said "=", and
// then its work directory is the line's rest exactly; any output parses
// without a panic.
func FuzzParseBrokerMarks(f *testing.F) {
	f.Add(12, "/w/a", "13 ?\nnoise\n")
	f.Add(0, "", "")
	f.Add(-1, "=x y", "14 =\n\n")
	f.Fuzz(func(t *testing.T, pid int, work, noise string) {
		marks := parseBrokerMarks(noise)
		for _, m := range marks {
			if !m.unreadable && !strings.Contains(noise, fmt.Sprintf("%d =%s", m.pid, m.work)) {
				t.Fatalf("%+v read as readable from %q", m, noise)
			}
		}
		if strings.ContainsAny(work, "\n") {
			return // a work directory with a line break is refused long before (safety trial 7)
		}
		got := parseBrokerMarks(fmt.Sprintf("%d =%s\n", pid, work))
		if len(got) != 1 || got[0].pid != pid || got[0].work != work || got[0].unreadable {
			t.Fatalf("%d =%s read as %+v", pid, work, got)
		}
	})
}
