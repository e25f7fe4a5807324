//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"studio/engine/jobs"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/store"
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

// ApplyRelease refuses the tick's one-transaction publish, as a failed
// write would, so the process takes the claimed way and stops between its
// claim and its effect.
func (s *stopAfterClaim) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if a.Claim != nil {
		return false, errors.New("test hook: the one-transaction publish is refused")
	}
	return s.Store.ApplyRelease(ctx, a)
}

func (s *stopAfterClaim) ClaimRelease(ctx context.Context, c scheduler.Claim) (bool, error) {
	ok, err := s.Store.ClaimRelease(ctx, c)
	if ok && err == nil {
		s.once.Do(func() {
			fmt.Fprintln(os.Stderr, "claimed", c.ReleaseID)
			stopHere()
		})
	}
	return ok, err
}

// The automations' process test (automation_process_test.go) runs real
// processes with a fake job: when testJobsEnv names a file, every step of a
// run appends "start <run> <cursor>" to it, and "done <run> <cursor>" once
// it has done its work; a run has three steps. With testStopInStepEnv set to
// a cursor, the process stops itself with SIGSTOP inside that step, before
// its work is done, as a process killed mid-step would leave it. Nothing
// sets them outside tests.
const (
	testJobsEnv       = "STUDIO_TEST_JOBS"
	testStopInStepEnv = "STUDIO_TEST_STOP_IN_STEP"
)

// testJobs is the fake job when a test asks for one, else nil.
func testJobs() jobs.Stepper {
	path := os.Getenv(testJobsEnv)
	if path == "" {
		return nil
	}
	return &fileJobs{path: path, stopAt: os.Getenv(testStopInStepEnv)}
}

type fileJobs struct {
	path   string
	stopAt string
}

func (f *fileJobs) note(line string) error {
	file, err := os.OpenFile(f.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer file.Close()
	_, err = fmt.Fprintln(file, line)
	return err
}

func (f *fileJobs) Step(_ context.Context, run jobs.Run, cursor string) (jobs.Step, error) {
	if err := f.note("start " + run.ID + " " + cursor); err != nil {
		return jobs.Step{}, err
	}
	if f.stopAt != "" && cursor == f.stopAt {
		fmt.Fprintln(os.Stderr, "stopped in step", run.ID, cursor)
		stopHere() // the test kills it there
	}
	n, _ := strconv.Atoi(cursor)
	if err := f.note("done " + run.ID + " " + cursor); err != nil {
		return jobs.Step{}, err
	}
	return jobs.Step{Cursor: strconv.Itoa(n + 1), Done: n+1 >= 3, Counts: map[string]int{"checked": n + 1}}, nil
}

// stopHere stops the process with SIGSTOP and returns only once a test
// continues it (SIGCONT). The stop reaches the process a moment after the
// kill, on any of its threads; without waiting for the continue, the run
// could get on with its effect first.
func stopHere() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	<-cont
}

// slowApplyEnv names the graceful shutdown's process test hook
// (shutdown_process_test.go): a duration by which `studio serve` delays each
// release run's effect, after its claim, saying "applying <release>" on
// stderr first. The run's context still stops the wait, as a slow database
// write would be stopped. Nothing sets it outside tests.
const slowApplyEnv = "STUDIO_TEST_SLOW_APPLY"

// withServeHooks returns st, wrapped when a test hook is asked for.
func withServeHooks(st *store.Store) services.Store {
	d, err := time.ParseDuration(os.Getenv(slowApplyEnv))
	if err != nil || d <= 0 {
		return st
	}
	return &slowApply{Store: st, wait: d}
}

type slowApply struct {
	*store.Store
	wait time.Duration
}

// ApplyRelease refuses the one-transaction publish, so the run takes the
// claimed way, and delays the claimed run's effect.
func (s *slowApply) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	if a.Claim != nil {
		return false, errors.New("test hook: the one-transaction publish is refused")
	}
	fmt.Fprintln(os.Stderr, "applying", a.ReleaseID)
	select {
	case <-time.After(s.wait):
	case <-ctx.Done():
		return false, ctx.Err()
	}
	return s.Store.ApplyRelease(ctx, a)
}
