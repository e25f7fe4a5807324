//go:build !race

package apptest

// RaceDetector is off: timing bars apply.
const RaceDetector = false
