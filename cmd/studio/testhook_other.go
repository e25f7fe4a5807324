//go:build !unix

package main

import "studio/engine"

// withTestHooks returns st: the process tests' hooks need Unix signals.
func withTestHooks(st engine.Store) engine.Store { return st }
