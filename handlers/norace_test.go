//go:build !race

package handlers_test

// raceDetector is off: timing bars apply.
const raceDetector = false
