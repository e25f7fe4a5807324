//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"

	"studio/engine/scheduler"
)

// stopAfterClaimEnv names the process tests' hook (lease_process_test.go):
// when it is set, the process says "claimed <release>" on stderr right after
// its first claim of a release and stops itself with SIGSTOP there, between
// the claim and the run's effect, as a frozen ticker would (the test then
// continues it with SIGCONT, or kills it). Nothing sets it outside tests.
const stopAfterClaimEnv = "STUDIO_TEST_STOP_AFTER_CLAIM"

// withTestHooks returns st, wrapped when a test hook is asked for.
func withTestHooks(st scheduler.Store) scheduler.Store {
	if os.Getenv(stopAfterClaimEnv) == "" {
		return st
	}
	return &stopAfterClaim{Store: st}
}

type stopAfterClaim struct {
	scheduler.Store
	once sync.Once
}

func (s *stopAfterClaim) ClaimRelease(ctx context.Context, c scheduler.Claim) (bool, error) {
	ok, err := s.Store.ClaimRelease(ctx, c)
	if ok && err == nil {
		s.once.Do(func() {
			fmt.Fprintln(os.Stderr, "claimed", c.ReleaseID)
			syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		})
	}
	return ok, err
}
