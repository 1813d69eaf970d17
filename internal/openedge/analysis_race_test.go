//go:build race

package openedge

// raceDetector is true under go test -race, which makes the 100,000-table
// measurement slow and its memory figures meaningless.
const raceDetector = true
