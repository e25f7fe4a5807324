package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine/localtime"
	"studio/engine/scheduler"
)

// TestRetentionIsDailyBoundedAndKeepsAudit: schedules.retention deletes
// runs older than 90 days and terminal releases older than 400 days, at
// most RetentionBatch a tick by one watermark, keeps their audit rows, and
// comes back a day later.
func TestRetentionIsDailyBoundedAndKeepsAudit(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(r.When.At)
	if rep := b.Tick(t); rep.Published != 1 {
		t.Fatalf("publish: %+v", rep)
	}
	audits := b.Count(t, `SELECT count(*) FROM audit`)
	// Age the release and its run past the limits, and add 1,100 old runs
	// and one recent one.
	old := localtime.FormatInstant(b.Clock.Now().Add(-401 * 24 * time.Hour))
	b.Exec(t, `UPDATE releases SET updated_at = ? WHERE id = ?`, old, r.ID)
	b.Exec(t, `UPDATE schedule_runs SET created_at = ?`, old)
	for i := range 1100 {
		b.Exec(t, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state, attempt, rev, created_at, updated_at)
			VALUES (?, ?, 'automation', 'aut_x', ?, 'succeeded', 1, 1, ?, ?)`, fmt.Sprintf("run_old%05d", i), b.Site.ID,
			localtime.FormatInstant(b.Clock.Now().Add(-time.Duration(i+1)*time.Minute)), old, old)
	}
	b.Exec(t, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state, attempt, rev, created_at, updated_at)
		VALUES ('run_recent', ?, 'automation', 'aut_x', ?, 'succeeded', 1, 1, ?, ?)`, b.Site.ID, old,
		localtime.FormatInstant(b.Clock.Now().Add(-89*24*time.Hour)), old)
	// A finding seen by an old run and by the recent one (engine/jobs): the
	// old run's sighting goes with it, the recent one's stays.
	b.Exec(t, `INSERT INTO job_findings (id, automation_id, key, site_id, job, code, node_id, node_kind, field, target, detail,
		hits, first_run, first_at, last_run, last_at) VALUES (1, 'aut_x', 'k', ?, 'broken-links', 'broken-internal-link', '', '', '', '/x', '{}',
		1, 'run_old00000', ?, 'run_recent', ?)`, b.Site.ID, old, old)
	b.Exec(t, `INSERT INTO job_finding_runs (run_id, finding_id, seen) VALUES ('run_old00000', 1, 'new'), ('run_recent', 1, 'still')`)

	if rep := b.Tick(t); rep.Retention != (scheduler.RetentionTally{}) {
		t.Fatalf("retention ran before it was scheduled: %+v", rep.Retention)
	}
	if err := b.Sched.ScheduleSystemJobs(ctx); err != nil {
		t.Fatal(err)
	}
	b.Clock.Advance(time.Hour)
	var got []scheduler.RetentionTally
	for range 4 {
		got = append(got, b.Tick(t).Retention)
		b.Clock.Advance(time.Second)
	}
	want := []scheduler.RetentionTally{{Runs: 500, Releases: 1}, {Runs: 500}, {Runs: 101}, {}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	if n := b.Count(t, `SELECT count(*) FROM schedule_runs`); n != 1 {
		t.Fatalf("%d runs left, want the recent one", n)
	}
	if got := b.Text(t, `SELECT group_concat(run_id) FROM job_finding_runs`); got != "run_recent" {
		t.Fatalf("finding sightings left: %s, want the recent run's", got)
	}
	if n := b.Count(t, `SELECT count(*) FROM releases WHERE id = ?`, r.ID); n != 0 {
		t.Fatal("the old release stayed")
	}
	if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ?`, r.ID); n != 0 {
		t.Fatal("its items stayed")
	}
	if n := b.Count(t, `SELECT count(*) FROM audit`); n != audits {
		t.Fatalf("audit rows %d, want %d", n, audits)
	}
	j, err := b.Store.SystemJob(ctx, scheduler.RetentionJob)
	if err != nil || j.Watermark != nil || j.Done != 1102 || !j.NextAt.After(b.Clock.Now().Add(23*time.Hour)) {
		t.Fatalf("job after the pass: %+v %v", j, err)
	}
}
