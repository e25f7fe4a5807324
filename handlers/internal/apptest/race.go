//go:build race

package apptest

// RaceDetector is on: timings mean nothing, only what they measure is kept.
const RaceDetector = true
