package event

import "strings"

// StableID is the job ID the events carry: the scheduler's ID without the
// "@rN" it gives a job done again (schedule.AgainID: a reload after a
// repair, a new dump of a table whose load failed). A table's load is
// "load:PUB.customer" on every attempt, and Attempt says which one it is,
// so a consumer follows one job from its first try to its last. The
// journal keeps the scheduler's IDs: its records pair starts with ends by
// them.
func StableID(id string) string {
	i := strings.LastIndex(id, "@r")
	if i < 0 || i+2 == len(id) {
		return id
	}
	for _, c := range id[i+2:] {
		if c < '0' || c > '9' {
			return id
		}
	}
	return id[:i]
}
