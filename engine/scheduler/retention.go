package scheduler

import (
	"context"
	"time"
)

// The system job schedules.retention (RFC §8.6, §11.1 cleanup's share):
// once a day it deletes runs older than RunsKeptFor and terminal releases
// older than ReleasesKeptFor (with their items and approvals; their audit
// rows stay, so History's record of who did what outlives them). A pass
// deletes at most RetentionBatch rows a tick by one fixed cut-off, its
// watermark, so a first pass over years of rows spans several ticks and
// never holds the write lock for long.

// Retention's limits.
const (
	RetentionJob    = "schedules.retention"
	RunsKeptFor     = 90 * 24 * time.Hour
	ReleasesKeptFor = 400 * 24 * time.Hour
	RetentionBatch  = 500
	retentionEvery  = 24 * time.Hour
)

// SystemJob is a system job's row: when it is due, and its watermark.
type SystemJob struct {
	Name      string
	NextAt    time.Time
	Watermark *time.Time // the cut-off of the pass in progress; nil between passes
	Done      int64
}

// RetentionPass is one bounded batch of retention at Now: terminal runs
// created before RunsBefore and terminal releases last changed before
// ReleasesBefore (both counted back from the pass's watermark), at most
// Limit of each.
type RetentionPass struct {
	RunsBefore     time.Time
	ReleasesBefore time.Time
	Limit          int
	Now            time.Time
}

// RetentionStore is what the retention job needs. Package store
// implements it.
type RetentionStore interface {
	SystemJob(ctx context.Context, name string) (SystemJob, error)
	// Retain deletes one batch and returns the runs and releases deleted.
	Retain(ctx context.Context, p RetentionPass) (runs, releases int, err error)
	// WriteSystemJob records a job's next time and watermark, guarded on
	// its row being as read (NextAt): another ticker's pass wins.
	WriteSystemJob(ctx context.Context, j SystemJob, read time.Time, now time.Time) (bool, error)
	// ScheduleSystemJob sets a job's first time when it has none.
	ScheduleSystemJob(ctx context.Context, name string, at time.Time) error
}

// firstRetentionAfter is how long after a ticker first starts on a database
// retention runs for the first time.
const firstRetentionAfter = time.Hour

// ScheduleSystemJobs gives the system jobs their first time if they have
// none: an hour from now. The ticker loop calls it as it starts, and so
// does `studio schedules run-due`; a tick alone never schedules them, so
// ticks in tests cost what they did.
func (t *Scheduler) ScheduleSystemJobs(ctx context.Context) error {
	return t.store.ScheduleSystemJob(ctx, RetentionJob, t.e.Now().Add(firstRetentionAfter))
}

// RetentionTally says what one tick's retention did.
type RetentionTally struct {
	Runs, Releases int
}

// runRetention does one batch of retention when it is due at now and
// returns when it is due next.
func (t *Scheduler) runRetention(ctx context.Context, now time.Time, tally *RetentionTally) (time.Time, error) {
	j, err := t.store.SystemJob(ctx, RetentionJob)
	if err != nil {
		return time.Time{}, err
	}
	if j.NextAt.After(now) {
		return j.NextAt, nil
	}
	cutoff := now
	if j.Watermark != nil {
		cutoff = *j.Watermark
	}
	// Claim the batch first: only the ticker whose write lands does it.
	read := j.NextAt
	j.Watermark, j.NextAt = &cutoff, now.Add(leaseFor)
	if ok, err := t.store.WriteSystemJob(ctx, j, read, now); err != nil || !ok {
		return time.Time{}, err
	}
	runs, releases, err := t.store.Retain(ctx, RetentionPass{RunsBefore: cutoff.Add(-RunsKeptFor), ReleasesBefore: cutoff.Add(-ReleasesKeptFor),
		Limit: RetentionBatch, Now: now})
	if err != nil {
		return time.Time{}, err
	}
	tally.Runs, tally.Releases = runs, releases
	claimed := j.NextAt
	j.Done += int64(runs + releases)
	if runs >= RetentionBatch || releases >= RetentionBatch {
		j.NextAt = now // more to do: the next tick goes on by the same watermark
	} else {
		j.Watermark, j.NextAt = nil, cutoff.Add(retentionEvery)
	}
	if _, err := t.store.WriteSystemJob(ctx, j, claimed, now); err != nil {
		return time.Time{}, err
	}
	if runs+releases > 0 {
		t.log.Info("schedules.retention", "runs", runs, "releases", releases, "cutoff", cutoff.UTC().Format(time.RFC3339))
	}
	return j.NextAt, nil
}
