//go:build !race

package openedge

const raceDetector = false
