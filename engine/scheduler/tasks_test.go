package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
)

// keyMinter mints keys in memory for the agent tasks of these tests.
type keyMinter struct{ n int }

func (k *keyMinter) MintForAutomation(_ context.Context, _ engine.User, _, automationID, _ string, _ policy.Mode, _ []policy.Scope) (string, string, error) {
	k.n++
	return fmt.Sprintf("key_%d", k.n), "secret_" + automationID, nil
}

// newTask creates a daily 09:00 agent task (30-minute window, 15-minute
// runs) as the owner, and returns the use cases and the call of its key.
func (b *testBundle) newTask(tb testing.TB) (*automations.Automations, automations.Automation, engine.User) {
	tb.Helper()
	au := automations.New(b.Store, b.Eng)
	au.SetKeyMinter(&keyMinter{})
	untrusted := false
	a, err := au.Create(context.Background(), b.Owner, b.Site.ID, automations.Input{Name: "Morning agent", Preset: "daily",
		Start: "2026-11-02T09:00", Task: &automations.TaskInput{Instructions: "Propose the day's article.", ReadsUntrustedText: &untrusted,
			WindowMinutes: 30}})
	if err != nil {
		tb.Fatal(err)
	}
	key := b.Owner
	key.Agent = &engine.AgentCall{KeyID: a.NewKey.ID, Mode: policy.ModeEdits, AutomationID: a.ID}
	return au, a, key
}

// day is 09:00 + minutes in Istanbul on 2 November 2026 plus days.
func day(days, minutes int) time.Time {
	return nine.AddDate(0, 0, days).Add(time.Duration(minutes) * time.Minute)
}

// TestAgentRunLeftOpenFailsNotEndedThenAutoPauses: a run the agent never
// ends fails not_ended at its endsAt; the third in a row auto-pauses the
// automation and its owner is told.
func TestAgentRunLeftOpenFailsNotEndedThenAutoPauses(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	ctx := context.Background()
	au, a, key := b.newTask(t)
	for d := range 3 {
		b.Clock.Set(day(d, 1))
		env, err := au.BeginRun(ctx, key, a.ID)
		if err != nil {
			t.Fatalf("day %d: %v", d, err)
		}
		sameInstant(t, "endsAt", env.EndsAt, day(d, 16))
		b.Clock.Set(day(d, 15))
		if rep := b.Tick(t); rep.Automations.Ended != 0 {
			t.Fatalf("day %d: ended before endsAt: %+v", d, rep.Automations)
		}
		b.Clock.Set(day(d, 16))
		if rep := b.Tick(t); rep.Automations.Failed != 1 {
			t.Fatalf("day %d: tick at endsAt: %+v", d, rep.Automations)
		}
		r, err := b.Store.Run(ctx, b.Site.ID, env.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if r.State != string(automation.RunFailed) || r.ErrorCode != scheduler.CodeNotEnded {
			t.Fatalf("day %d: run %s %s", d, r.State, r.ErrorCode)
		}
		if _, ok, _ := au.OpenRun(ctx, key); ok {
			t.Fatalf("day %d: the run is still open", d)
		}
		got := b.automation(t, a.ID)
		if got.ConsecutiveFailures != d+1 {
			t.Fatalf("day %d: failures %d", d, got.ConsecutiveFailures)
		}
	}
	got := b.automation(t, a.ID)
	if got.State != automations.AutomationAutoPaused || got.PausedReason != string(automation.ReasonFailures) {
		t.Fatalf("after three: %s %s", got.State, got.PausedReason)
	}
	notes, err := b.Sched.Notifications(ctx, b.Owner, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range notes {
		found = found || (n.Kind == scheduler.NoticeAutomationPaused && n.AutomationID == a.ID)
	}
	if !found {
		t.Fatalf("no automation-paused notice in %+v", notes)
	}
	// Auto-paused: the next window opens for nobody.
	b.Clock.Set(day(3, 1))
	_, err = au.BeginRun(ctx, key, a.ID)
	wantRefusal(t, err, engine.CodeBadState, "")
}

// TestAgentRunKilledByKillSwitch: the site's kill switch kills an open
// agent run at once, in its own transaction (the tick finds nothing left to
// kill), with error kill-switch; it counts as no failure, and the
// automation is paused with reason kill-switch until the site resumes.
func TestAgentRunKilledByKillSwitch(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	ctx := context.Background()
	au, a, key := b.newTask(t)
	b.Clock.Set(day(0, 2))
	env, err := au.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	b.Pause(t, b.Owner, "incident")
	r, _ := b.Store.Run(ctx, b.Site.ID, env.RunID)
	if r.State != string(automation.RunKilled) || r.ErrorCode != automations.RunKilledByKillSwitch || r.EndedAt == nil {
		t.Fatalf("run = %s (%s) ended %v, want killed (kill-switch) at the pause", r.State, r.ErrorCode, r.EndedAt)
	}
	if _, ok, _ := au.OpenRun(ctx, key); ok {
		t.Fatal("the killed run is still open")
	}
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("tick under the kill switch: %+v", rep.Automations)
	}
	got := b.automation(t, a.ID)
	if got.State != automations.AutomationPaused || got.PausedReason != string(automation.ReasonKillSwitch) ||
		got.ConsecutiveFailures != 0 || got.OpenRunID != "" || got.DueAt != nil {
		t.Fatalf("automation = %s (%s) failures %d open %q due %v", got.State, got.PausedReason, got.ConsecutiveFailures,
			got.OpenRunID, got.DueAt)
	}
	err = au.RecordCall(ctx, env.RunID, automation.Call{Tool: "list_schedule", Class: "read"})
	wantRefusal(t, err, automations.CodeOutsideRun, "")
}

// TestAgentWindowsWithNoBeginAreMissed: a window that closes with no
// begin_run is recorded as missed; after downtime the older ones are one
// skipped row with counts.coalesced; a window that had its run is not.
func TestAgentWindowsWithNoBeginAreMissed(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	ctx := context.Background()
	au, a, key := b.newTask(t)
	b.Clock.Set(day(0, 29))
	if rep := b.Tick(t); rep.Automations.Skipped != 0 {
		t.Fatalf("tick inside the window: %+v", rep.Automations)
	}
	b.Clock.Set(day(0, 30))
	if rep := b.Tick(t); rep.Automations.Skipped != 1 {
		t.Fatalf("tick at the window's end: %+v", rep.Automations)
	}
	runs := b.runsOf(t, a.ID)
	if len(runs) != 1 || runs[0].State != string(automation.RunMissed) || !runs[0].OccurrenceAt.Equal(day(0, 0)) {
		t.Fatalf("runs = %+v", runs)
	}
	// Day 1 runs and ends; days 2..4 pass with no tick.
	b.Clock.Set(day(1, 5))
	env, err := au.BeginRun(ctx, key, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := au.EndRun(ctx, key, env.RunID, "done", automation.OutcomeNothingToDo); err != nil {
		t.Fatal(err)
	}
	b.Clock.Set(day(4, 45))
	if rep := b.Tick(t); rep.Automations.Skipped != 2 {
		t.Fatalf("tick after downtime: %+v", rep.Automations)
	}
	runs = b.runsOf(t, a.ID)
	want := []struct {
		state string
		at    time.Time
		n     int
	}{{"missed", day(4, 0), 0}, {"skipped", day(2, 0), 2}, {"succeeded", day(1, 0), 0}, {"missed", day(0, 0), 0}}
	if len(runs) != len(want) {
		t.Fatalf("%d runs: %+v", len(runs), runs)
	}
	for i, w := range want {
		if runs[i].State != w.state || !runs[i].OccurrenceAt.Equal(w.at) || runs[i].Counts[automation.CountCoalesced] != w.n {
			t.Errorf("run %d = %s %v %v, want %s %v %d", i, runs[i].State, runs[i].OccurrenceAt, runs[i].Counts, w.state, w.at, w.n)
		}
	}
	if got := b.automation(t, a.ID); got.ConsecutiveFailures != 0 || got.State != automations.AutomationActive {
		t.Fatalf("missed windows counted: %s %d", got.State, got.ConsecutiveFailures)
	}
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("second tick: %+v", rep.Automations)
	}
}

// TestAgentBeginRunFourProcessesOneRun: four processes (connection pools
// of one file) race begin_run for one occurrence: one run; then their four
// tickers close it at endsAt once (one not_ended failure).
func TestAgentBeginRunFourProcessesOneRun(t *testing.T) {
	b := newBundle(t)
	b.Sched.SetJobs(&fakeJobs{})
	au, a, key := b.newTask(t)
	uses := []*automations.Automations{au}
	scheds := []*scheduler.Scheduler{b.Sched}
	for range 3 {
		s, err := store.Open(context.Background(), b.Path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		eng := releases.New(engine.New(s, b.Clock, nil), s)
		uses = append(uses, automations.New(s, eng))
		sc := scheduler.New(eng, s, nil)
		sc.SetJobs(&fakeJobs{})
		scheds = append(scheds, sc)
	}
	b.Clock.Set(day(0, 3))
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for _, u := range uses {
		wg.Go(func() {
			_, err := u.BeginRun(context.Background(), key, a.ID)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				won++
				return
			}
			if e, ok := errors.AsType[*engine.Error](err); ok && e.Code == automations.CodeRunExists {
				lost++
				return
			}
			t.Error(err)
		})
	}
	wg.Wait()
	if won != 1 || lost != 3 {
		t.Fatalf("won %d lost %d, want 1 and 3", won, lost)
	}
	b.Clock.Set(day(0, 18))
	failed := 0
	for _, s := range scheds {
		wg.Go(func() {
			rep, err := s.RunDue(context.Background(), "node")
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			failed += rep.Automations.Failed
			mu.Unlock()
		})
	}
	wg.Wait()
	runs := b.runsOf(t, a.ID)
	if len(runs) != 1 || runs[0].State != string(automation.RunFailed) || failed != 1 {
		t.Fatalf("runs %+v, failed counted %d", runs, failed)
	}
	if got := b.automation(t, a.ID); got.ConsecutiveFailures != 1 || got.OpenRunID != "" {
		t.Fatalf("automation: failures %d open %q", got.ConsecutiveFailures, got.OpenRunID)
	}
}
