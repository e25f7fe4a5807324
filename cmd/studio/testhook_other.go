//go:build !unix

package main

import (
	"studio/engine/jobs"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/store"
)

// withTestHooks returns st: the process tests' hooks need Unix signals.
func withTestHooks(st scheduler.Store) scheduler.Store { return st }

// testJobs is nil: the process tests' hooks need Unix signals.
func testJobs() jobs.Stepper { return nil }

// withServeHooks returns st: the process tests' hooks need Unix signals.
func withServeHooks(st *store.Store) services.Store { return st }
