//go:build !unix

package main

import "studio/engine/scheduler"

// withTestHooks returns st: the process tests' hooks need Unix signals.
func withTestHooks(st scheduler.Store) scheduler.Store { return st }
