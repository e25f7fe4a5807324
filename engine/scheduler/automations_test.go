package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
)

// fakeJobs is a jobs.Stepper with known steps: every run takes Steps steps
// (cursor "1", "2", …), finds Findings things and, with Fail, fails. It
// records every (run, cursor) it was asked, so a test sees each step done
// exactly once.
type fakeJobs struct {
	Steps    int
	Findings int
	Fail     bool

	mu    sync.Mutex
	calls map[string]int // run id + " " + cursor → times asked
	runs  []jobs.Run
}

func (f *fakeJobs) Step(_ context.Context, run jobs.Run, cursor string) (jobs.Step, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[run.ID+" "+cursor]++
	f.runs = append(f.runs, run)
	if f.Fail {
		return jobs.Step{}, errors.New("the job broke")
	}
	n := 0
	if cursor != "" {
		n, _ = strconv.Atoi(cursor)
	}
	n++
	steps := max(f.Steps, 1)
	return jobs.Step{Cursor: strconv.Itoa(n), Done: n >= steps, Counts: map[string]int{"checked": n * 10}, Findings: f.Findings}, nil
}

func (f *fakeJobs) asked() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.calls {
		out[k] = v
	}
	return out
}

// newAutomation creates a built-in automation as the owner.
func (b *testBundle) newAutomation(tb testing.TB, name, preset, rule, start string) automations.Automation {
	tb.Helper()
	a, err := automations.New(b.Store, b.Eng).Create(context.Background(), b.Owner, b.Site.ID, automations.Input{Name: name,
		Builtin: automation.BuiltinBrokenLinks, Preset: preset, Rule: rule, Start: start})
	if err != nil {
		tb.Fatalf("create %s: %v", name, err)
	}
	return a
}

func (b *testBundle) automation(tb testing.TB, id string) automations.Automation {
	tb.Helper()
	a, err := b.Store.Automation(context.Background(), b.Site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

func (b *testBundle) runsOf(tb testing.TB, id string) []automations.Run {
	tb.Helper()
	runs, err := b.Store.Runs(context.Background(), automations.RunFilter{SiteID: b.Site.ID, AutomationID: id, Limit: 1000})
	if err != nil {
		tb.Fatal(err)
	}
	return runs
}

// TestAutomationWeekOfDowntimeCoalesces: after a week with no tick, each
// hourly automation runs its latest occurrence once and records the other
// 167 as one skipped run (§8.6), in one tick.
func TestAutomationWeekOfDowntimeCoalesces(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Steps: 1}
	b.Sched.SetJobs(fj)
	var ids []string
	for i := range 3 {
		ids = append(ids, b.newAutomation(t, fmt.Sprintf("Sweep %d", i), "", "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=7", "2026-11-02T08:07").ID)
	}
	b.Tick(t) // nothing due yet
	b.Clock.Advance(7 * 24 * time.Hour)
	rep := b.Tick(t)
	if rep.Automations.Claimed != 3 || rep.Automations.Skipped != 3 || rep.Automations.Ended != 3 {
		t.Fatalf("tick after a week: %+v", rep.Automations)
	}
	for _, id := range ids {
		runs := b.runsOf(t, id)
		if len(runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", id, len(runs))
		}
		ran, skipped := runs[0], runs[1]
		if ran.State != string(automation.RunSucceeded) || ran.Outcome != string(automation.OutcomeNothingToDo) {
			t.Errorf("ran: %s %s", ran.State, ran.Outcome)
		}
		if skipped.State != string(automation.RunSkipped) || skipped.Counts[automation.CountCoalesced] != 7*24-1 {
			t.Errorf("skipped: %s %v", skipped.State, skipped.Counts)
		}
		if *ran.LatenessSeconds != int64(b.Clock.Now().Sub(ran.OccurrenceAt)/time.Second) {
			t.Errorf("lateness %d", *ran.LatenessSeconds)
		}
		a := b.automation(t, id)
		if a.NextRunAt == nil || !a.NextRunAt.After(b.Clock.Now()) || a.OpenRunID != "" {
			t.Errorf("after: next %v open %q", a.NextRunAt, a.OpenRunID)
		}
	}
	// Ticking again changes nothing.
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("second tick: %+v", rep.Automations)
	}
}

// TestAutomationStepsSpanTicks: a run takes one step a tick from its
// stored cursor until the job is done; state and outcome are apart.
func TestAutomationStepsSpanTicks(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Steps: 3, Findings: 2}
	b.Sched.SetJobs(fj)
	a := b.newAutomation(t, "Weekly sweep", "weekly", "", "2026-11-02T09:00")
	if a.Preset != "weekly" || a.StartLocal != fmt.Sprintf("2026-11-02T09:%02d", minuteOffset(a.ID)) {
		t.Fatalf("preset start %s %s", a.Preset, a.StartLocal)
	}
	b.Clock.Set(*a.NextRunAt)
	for i := range 3 {
		rep := b.Tick(t)
		if rep.Automations.Steps != 1 {
			t.Fatalf("tick %d: %+v", i, rep.Automations)
		}
		b.Clock.Advance(time.Second)
	}
	runs := b.runsOf(t, a.ID)
	if len(runs) != 1 || runs[0].State != "succeeded" || runs[0].Outcome != "did-work" || runs[0].Counts["checked"] != 30 {
		t.Fatalf("runs: %+v", runs)
	}
	want := map[string]int{runs[0].ID + " ": 1, runs[0].ID + " 1": 1, runs[0].ID + " 2": 1}
	if got := fj.asked(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("steps asked %v, want %v", got, want)
	}
	if rep := b.Tick(t); rep.Automations.Steps != 0 {
		t.Fatalf("after the run: %+v", rep.Automations)
	}
}

func minuteOffset(id string) int {
	// recurrence.MinuteOffset, spelled here so the test notices a change.
	h := uint32(2166136261)
	for _, c := range []byte(id) {
		h ^= uint32(c)
		h *= 16777619
	}
	return int(h % 10)
}

// TestAutomationKilledStepResumesFromCursor: a step whose process died
// (its lease taken, never saved) is taken over when the lease ends, from
// the same cursor, once, with the attempt counted. (A store-level crash:
// the lease is taken as a dying process would and left.)
func TestAutomationKilledStepResumesFromCursor(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Steps: 2}
	b.Sched.SetJobs(fj)
	a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
	b.Clock.Set(*a.NextRunAt)
	b.Tick(t) // step 1 saved, cursor "1"
	run := b.runsOf(t, a.ID)[0]
	b.Clock.Advance(time.Second)
	// Another process takes step 2 and dies in it.
	ok, err := b.Store.TakeStep(context.Background(), scheduler.StepClaim{RunID: run.ID, Rev: run.Rev, AutomationID: a.ID, Token: "lease_dead",
		Until: b.Clock.Now().Add(45 * time.Second), Now: b.Clock.Now()})
	if err != nil || !ok {
		t.Fatalf("take: %v %v", ok, err)
	}
	if rep := b.Tick(t); rep.Automations.Steps != 0 {
		t.Fatalf("a live lease was stepped over: %+v", rep.Automations)
	}
	b.Clock.Advance(46 * time.Second)
	if rep := b.Tick(t); rep.Automations.Steps != 1 || rep.Automations.Ended != 1 {
		t.Fatalf("take-over: %+v", rep.Automations)
	}
	got := b.runsOf(t, a.ID)[0]
	if got.State != "succeeded" || got.Attempt != 2 {
		t.Fatalf("run after take-over: %s attempt %d", got.State, got.Attempt)
	}
	if n := fj.asked()[run.ID+" 1"]; n != 1 {
		t.Fatalf("step from cursor 1 asked %d times", n)
	}
}

// TestAutomationThreeFailuresAutoPause: the third failed run in a row
// auto-pauses the automation with reason failures; no occurrence starts
// after it.
func TestAutomationThreeFailuresAutoPause(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Fail: true}
	b.Sched.SetJobs(fj)
	a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
	for i := range 3 {
		b.Clock.Set(*b.automation(t, a.ID).NextRunAt)
		rep := b.Tick(t)
		if rep.Automations.Failed != 1 {
			t.Fatalf("run %d: %+v", i, rep.Automations)
		}
		got := b.automation(t, a.ID)
		if i < 2 && (got.State != "active" || got.ConsecutiveFailures != i+1) {
			t.Fatalf("after %d failures: %s %d", i+1, got.State, got.ConsecutiveFailures)
		}
	}
	got := b.automation(t, a.ID)
	if got.State != "auto-paused" || got.PausedReason != "failures" || got.ConsecutiveFailures != 3 || got.DueAt != nil {
		t.Fatalf("after three failures: %s %s %d due %v", got.State, got.PausedReason, got.ConsecutiveFailures, got.DueAt)
	}
	runs := b.runsOf(t, a.ID)
	if len(runs) != 3 || runs[0].ErrorCode != "job_failed" {
		t.Fatalf("runs %+v", runs)
	}
	// The owner's bell: the pause once, each failed run once (§14); not
	// another person's.
	notes, err := b.Sched.Notifications(context.Background(), b.Owner, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, n := range notes {
		kinds[n.Kind]++
		if n.Kind == scheduler.NoticeAutomationPaused && (n.PausedReason != "failures" || n.AutomationID != a.ID) {
			t.Errorf("paused notice %+v", n)
		}
	}
	if kinds[scheduler.NoticeAutomationPaused] != 1 || kinds[scheduler.NoticeAutomationFailed] != 3 {
		t.Fatalf("owner's notices %v", kinds)
	}
	notes, _ = b.Sched.Notifications(context.Background(), b.Editor, b.Site.ID)
	for _, n := range notes {
		if n.AutomationID != "" {
			t.Fatalf("another person got %+v", n)
		}
	}
	b.Clock.Advance(48 * time.Hour)
	if rep := b.Tick(t); rep.Automations.Claimed != 0 {
		t.Fatalf("an auto-paused automation ran: %+v", rep.Automations)
	}
	// Resuming starts the count afresh and counts from now.
	if _, err := automations.New(b.Store, b.Eng).Resume(context.Background(), b.Owner, b.Site.ID, a.ID, got.Rev); err != nil {
		t.Fatal(err)
	}
	if got := b.automation(t, a.ID); got.State != "active" || got.ConsecutiveFailures != 0 {
		t.Fatalf("resumed: %s %d", got.State, got.ConsecutiveFailures)
	}
	if rep := b.Tick(t); rep.Automations.Claimed != 0 {
		t.Fatalf("resume ran the paused occurrences: %+v", rep.Automations)
	}
}

// TestAutomationKillSwitch: pausing the site kills an open run at once
// and pauses its automations; while it is paused no occurrence starts;
// resuming makes them active again from now, as a person's Resume does: the
// occurrences that passed meanwhile do not run, the next one does.
func TestAutomationKillSwitch(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Steps: 5}
	b.Sched.SetJobs(fj)
	a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
	other := b.newAutomation(t, "Other", "daily", "", "2026-11-02T10:00")
	b.Clock.Set(*a.NextRunAt)
	b.Tick(t) // a's run: step 1
	s := b.Pause(t, b.Admin, "incident")
	if runs := b.runsOf(t, a.ID); runs[0].State != "killed" || runs[0].ErrorCode != "kill-switch" {
		t.Fatalf("open run after the pause: %s (%s)", runs[0].State, runs[0].ErrorCode)
	}
	for _, id := range []string{a.ID, other.ID} {
		if got := b.automation(t, id); got.State != "paused" || got.PausedReason != "kill-switch" || got.DueAt != nil {
			t.Fatalf("%s after the pause: %s (%s) due %v", id, got.State, got.PausedReason, got.DueAt)
		}
	}
	b.Clock.Set(b.automation(t, other.ID).NextRunAt.Add(time.Minute))
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("paused tick: %+v", rep.Automations)
	}
	if runs := b.runsOf(t, other.ID); len(runs) != 0 {
		t.Fatalf("an occurrence started while paused: %+v", runs)
	}
	if _, err := settingsOf(b).SetKillSwitch(context.Background(), b.Admin, b.Site.ID, false, "resolved", s.Rev); err != nil {
		t.Fatal(err)
	}
	// Resumed from now: other's 10:00 passed while paused and does not
	// run; tomorrow's does.
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) || len(b.runsOf(t, other.ID)) != 0 {
		t.Fatalf("after resume: %+v", rep.Automations)
	}
	got := b.automation(t, other.ID)
	if got.State != "active" || got.PausedReason != "" || got.NextRunAt == nil || got.DueAt == nil ||
		!got.NextRunAt.Equal(other.NextRunAt.AddDate(0, 0, 1)) {
		t.Fatalf("other after resume: %s (%s) next %v due %v", got.State, got.PausedReason, got.NextRunAt, got.DueAt)
	}
	b.Clock.Set(*got.NextRunAt)
	if rep := b.Tick(t); rep.Automations.Claimed != 2 || rep.Automations.Skipped != 0 {
		t.Fatalf("the next day: %+v", rep.Automations)
	}
}

// TestAutomationsOff: with automations off for the deployment nothing
// runs, releases still publish; on again, the latest occurrence runs.
func TestAutomationsOff(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{}
	b.Sched.SetJobs(fj)
	b.Sched.SetAutomationsOff(true)
	a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T08:30")
	r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(r.When.At)
	rep := b.Tick(t)
	if rep.Published != 1 || rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("off: %+v", rep)
	}
	if len(fj.asked()) != 0 || len(b.runsOf(t, a.ID)) != 0 {
		t.Fatal("an automation ran while off")
	}
	b.Sched.SetAutomationsOff(false)
	if rep := b.Tick(t); rep.Automations.Claimed != 1 {
		t.Fatalf("on again: %+v", rep.Automations)
	}
}

// TestAutomationFourTickersRunEachOccurrenceOnce: four schedulers on
// separate connection pools of one file, ticking at once: each occurrence
// is claimed once and each step taken once.
func TestAutomationFourTickersRunEachOccurrenceOnce(t *testing.T) {
	b := newBundle(t)
	fj := &fakeJobs{Steps: 3}
	var ids []string
	for i := range 10 {
		ids = append(ids, b.newAutomation(t, fmt.Sprintf("Sweep %d", i), "daily", "", "2026-11-02T09:00").ID)
	}
	b.Sched.SetJobs(fj)
	scheds := []*scheduler.Scheduler{b.Sched}
	for range 3 {
		s, err := store.Open(context.Background(), b.Path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		sc := scheduler.New(releases.New(engine.New(s, b.Clock, nil), s), s, nil)
		sc.SetJobs(fj)
		scheds = append(scheds, sc)
	}
	b.Clock.Set(nine.Add(11 * time.Minute)) // every one's 09:0x has come
	var mu sync.Mutex
	claimed := 0
	for round := range 4 {
		var wg sync.WaitGroup
		for _, s := range scheds {
			wg.Go(func() {
				rep, err := s.RunDue(context.Background(), "node")
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				claimed += rep.Automations.Claimed
				mu.Unlock()
			})
		}
		wg.Wait()
		_ = round
		b.Clock.Advance(time.Second)
	}
	if claimed != 10 {
		t.Fatalf("claimed %d occurrences, want 10", claimed)
	}
	for k, n := range fj.asked() {
		if n != 1 {
			t.Errorf("step %q taken %d times", k, n)
		}
	}
	for _, id := range ids {
		runs := b.runsOf(t, id)
		if len(runs) != 1 || runs[0].State != "succeeded" {
			t.Errorf("%s: %+v", id, runs)
		}
	}
}

// TestIdleTickWithAutomationsIsOneStatement: fifty automations configured,
// none due: the tick reads one statement (automations_due beside the
// releases' query).
func TestIdleTickWithAutomationsIsOneStatement(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	for i := range 50 {
		b.newAutomation(t, fmt.Sprintf("Sweep %d", i), "daily", "", "2026-11-02T20:00")
	}
	b.Tick(t) // the heartbeat
	b.Clock.Advance(time.Minute)
	before := b.Store.Statements()
	b.Tick(t)
	if n := b.Store.Statements() - before; n != 1 {
		t.Fatalf("idle tick with 50 automations: %d statements", n)
	}
}

// TestStatementsPerAutomationPath holds the automation paths of a tick to
// a statement budget, as the release paths are (store's
// TestStatementsPerTickPath, BEGIN and COMMIT counted): a change that
// adds a query shows here.
func TestStatementsPerAutomationPath(t *testing.T) {
	measure := func(b *testBundle) int64 {
		before := b.Store.Statements()
		b.Tick(t)
		return b.Store.Statements() - before
	}
	cases := []struct {
		name   string
		budget int64
		run    func(t *testing.T) int64
	}{
		// due work, due automations, the claim (guard, run), the step's
		// end (run, automation, audit), the heartbeat: 8 measured.
		{"OneStepRun", 12, func(t *testing.T) int64 {
			b := newBundle(t)
			b.Sched.SetJobs(&fakeJobs{Steps: 1})
			a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
			b.Tick(t)
			b.Clock.Set(*a.NextRunAt)
			return measure(b)
		}},
		// After a week down: the same, with the skipped run.
		{"CoalescedRun", 13, func(t *testing.T) int64 {
			b := newBundle(t)
			b.Sched.SetJobs(&fakeJobs{Steps: 1})
			b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
			b.Tick(t)
			b.Clock.Advance(7 * 24 * time.Hour)
			return measure(b)
		}},
		// A middle step of a sweep: due work, due automations, the run,
		// the step's claim (run, automation), its save (run, automation),
		// the heartbeat: 8 measured.
		{"MiddleStep", 12, func(t *testing.T) int64 {
			b := newBundle(t)
			b.Sched.SetJobs(&fakeJobs{Steps: 3})
			a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
			b.Clock.Set(*a.NextRunAt)
			b.Tick(t)
			b.Clock.Advance(time.Second)
			return measure(b)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.run(t)
			t.Logf("%s: %d statements (budget %d)", c.name, got, c.budget)
			if got > c.budget {
				t.Errorf("%s took %d statements, budget %d", c.name, got, c.budget)
			}
		})
	}
}

// TestAutomationOnceEndsAndDSTGapIsRecorded: a once automation runs once
// and ends; a daily 02:30 in Berlin runs at 03:30 on the spring change and
// its run says dst-gap.
func TestAutomationOnceEndsAndDSTGapIsRecorded(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	ctx := context.Background()
	au := automations.New(b.Store, b.Eng)
	once, err := au.Create(ctx, b.Owner, b.Site.ID, automations.Input{Name: "Once", Builtin: automation.BuiltinCleanup,
		Preset: "once", Start: "2026-11-02T10:15"})
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(*once.NextRunAt)
	if rep := b.Tick(t); rep.Automations.Ended != 1 {
		t.Fatalf("once: %+v", rep.Automations)
	}
	got := b.automation(t, once.ID)
	if got.State != automations.AutomationEnded || got.EndedAt == nil || got.NextRunAt != nil || got.DueAt != nil {
		t.Fatalf("once after its run: %s ended %v next %v due %v", got.State, got.EndedAt, got.NextRunAt, got.DueAt)
	}

	b.Clock.Set(time.Date(2027, 3, 27, 12, 0, 0, 0, time.UTC))
	berlin, err := au.Create(ctx, b.Owner, b.Site.ID, automations.Input{Name: "Night", Builtin: automation.BuiltinStaleContent,
		Rule: "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", Start: "2027-03-01T02:30", TimeZone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	gap := time.Date(2027, 3, 28, 1, 30, 0, 0, time.UTC) // 03:30 CEST: 02:30 does not exist that night
	if !berlin.NextRunAt.Equal(gap) {
		t.Fatalf("next run %v, want %v", berlin.NextRunAt, gap)
	}
	b.Clock.Set(gap)
	b.Tick(t)
	runs := b.runsOf(t, berlin.ID)
	if len(runs) != 1 || runs[0].Adjusted != "dst-gap" || !runs[0].OccurrenceAt.Equal(gap) {
		t.Fatalf("runs %+v", runs)
	}
}

// TestMigratedAutomationsGetTheirNextRun: rows from before the runner
// (migration 0014 makes them due at once, handled then) get their next run
// on the first tick, and run nothing from before; an agent task keeps its
// next run and is not looked at again.
func TestMigratedAutomationsGetTheirNextRun(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	ctx := context.Background()
	a := b.newAutomation(t, "Sweep", "daily", "", "2026-11-02T09:00")
	task, err := automations.New(b.Store, b.Eng).CreateAutomation(ctx, b.Owner, b.Site.ID, "Triage", automations.JobAgentTask,
		"FREQ=DAILY;BYHOUR=10;BYMINUTE=7", "2026-11-02T10:07")
	if err != nil {
		t.Fatal(err)
	}
	b.Clock.Advance(3 * 24 * time.Hour)
	now := localtime.FormatInstant(b.Clock.Now())
	b.Exec(t, `UPDATE automations SET next_run_at = NULL, due_at = ?, handled_at = ?`, now, now)
	if rep := b.Tick(t); rep.Automations.Claimed != 0 {
		t.Fatalf("a migrated automation ran its past: %+v", rep.Automations)
	}
	for _, id := range []string{a.ID, task.ID} {
		got := b.automation(t, id)
		if got.NextRunAt == nil || !got.NextRunAt.After(b.Clock.Now()) {
			t.Fatalf("%s: next %v", id, got.NextRunAt)
		}
		if (got.DueAt != nil) != (id == a.ID) {
			t.Fatalf("%s: due %v", id, got.DueAt)
		}
	}
}
