//go:build !unix

package main

import (
	"studio/engine/jobs"
	"studio/engine/scheduler"
)

// withTestHooks returns st: the process tests' hooks need Unix signals.
func withTestHooks(st scheduler.Store) scheduler.Store { return st }

// testJobs is nil: the process tests' hooks need Unix signals.
func testJobs() jobs.Stepper { return nil }
