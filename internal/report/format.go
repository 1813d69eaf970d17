package report

import (
	"strconv"

	"github.com/oedl/oedl/internal/units"
)

func itoa(n int) string { return strconv.Itoa(n) }

// plural writes "1 job", "2 jobs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return units.Thousands(int64(n)) + " " + noun + "s"
}
