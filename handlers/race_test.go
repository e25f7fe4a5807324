//go:build race

package handlers_test

// raceDetector is on: timings mean nothing, only what they measure is kept.
const raceDetector = true
