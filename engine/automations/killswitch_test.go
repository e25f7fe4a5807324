package automations_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/settings"
	"studio/store"
)

// killSwitchSite is a site with one automation in each state the kill
// switch meets: an agent task with its run open, an active built-in, a
// built-in a person paused with a person's run now still open, an
// auto-paused one, and an agent task a person paused.
type killSwitchSite struct {
	task          automations.Automation
	key           engine.User
	runID         string
	active        automations.Automation
	personPaused  automations.Automation
	manualRunID   string
	autoPaused    automations.Automation
	pausedTask    automations.Automation
	pausedTaskKey engine.User
}

// doneJobs is a built-in job that ends in one step: with it the tick runs
// automations at all (without jobs it runs releases only).
type doneJobs struct{}

func (doneJobs) Step(context.Context, jobs.Run, string) (jobs.Step, error) {
	return jobs.Step{Done: true}, nil
}

func newKillSwitchSite(t *testing.T, b *testBundle) killSwitchSite {
	t.Helper()
	ctx := context.Background()
	b.Sched.SetJobs(doneJobs{})
	var k killSwitchSite
	k.task, k.key = b.task(t, taskInput())
	b.at("09:05")
	env, err := b.auto.BeginRun(ctx, k.key, k.task.ID)
	if err != nil {
		t.Fatal(err)
	}
	k.runID = env.RunID
	k.active = b.create(t, weekly())
	in := weekly()
	in.Name = "Paused by a person"
	k.personPaused = b.create(t, in)
	if k.personPaused, err = b.auto.Pause(ctx, b.Editor, b.Site.ID, k.personPaused.ID, k.personPaused.Rev); err != nil {
		t.Fatal(err)
	}
	r, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, k.personPaused.ID)
	if err != nil {
		t.Fatal(err)
	}
	k.manualRunID = r.ID
	in.Name = "Failing"
	k.autoPaused = b.create(t, in)
	b.Exec(t, `UPDATE automations SET state = 'auto-paused', paused_reason = 'failures', consecutive_failures = 3, due_at = NULL WHERE id = ?`,
		k.autoPaused.ID)
	tin := taskInput()
	tin.Name = "Evening triage"
	k.pausedTask, k.pausedTaskKey = b.task(t, tin)
	if k.pausedTask, err = b.auto.Pause(ctx, b.Editor, b.Site.ID, k.pausedTask.ID, k.pausedTask.Rev); err != nil {
		t.Fatal(err)
	}
	return k
}

func (b *testBundle) stored(t *testing.T, id string) automations.Automation {
	t.Helper()
	a, err := b.Store.Automation(context.Background(), b.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (b *testBundle) setKillSwitch(t *testing.T, on bool) releases.ScheduleSettings {
	t.Helper()
	ctx := context.Background()
	cur, err := b.Releases.ScheduleSettings(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	s, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, on, "incident", cur.Rev)
	if err != nil {
		t.Fatalf("kill switch %v: %v", on, err)
	}
	return s
}

// TestKillSwitchStopsRunsAndPausesAutomations (§11.6 item 2, §5.3): turning
// the site's kill switch on kills every open run of its automations in the
// switch's own transaction, with error kill-switch, and pauses every
// active automation with reason kill-switch; automations a person paused
// or the system auto-paused keep their state and reason. Each change has
// its audit row, and the switch's row counts them.
func TestKillSwitchStopsRunsAndPausesAutomations(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	k := newKillSwitchSite(t, b)
	b.setKillSwitch(t, true)

	for _, id := range []string{k.runID, k.manualRunID} {
		r, err := b.Store.RunByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.State != string(automation.RunKilled) || r.ErrorCode != automations.RunKilledByKillSwitch || r.EndedAt == nil ||
			!r.EndedAt.Equal(b.Clock.Now()) {
			t.Fatalf("run %s = %s (%s) ended %v, want killed (kill-switch) now", id, r.State, r.ErrorCode, r.EndedAt)
		}
	}
	for _, c := range []struct {
		a             automations.Automation
		state, reason string
	}{
		{k.task, automations.AutomationPaused, "kill-switch"},
		{k.active, automations.AutomationPaused, "kill-switch"},
		{k.personPaused, automations.AutomationPaused, "person"},
		{k.autoPaused, automations.AutomationAutoPaused, "failures"},
		{k.pausedTask, automations.AutomationPaused, "person"},
	} {
		got := b.stored(t, c.a.ID)
		if got.State != c.state || got.PausedReason != c.reason || got.OpenRunID != "" || got.DueAt != nil {
			t.Errorf("%s: %s (%s) open %q due %v, want %s (%s), no run, nothing due", c.a.Name, got.State, got.PausedReason,
				got.OpenRunID, got.DueAt, c.state, c.reason)
		}
	}
	if got := b.stored(t, k.autoPaused.ID); got.ConsecutiveFailures != 3 {
		t.Errorf("auto-paused failures = %d, want 3 kept", got.ConsecutiveFailures)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.pause' AND details LIKE '%"pausedReason":"kill-switch"%'
		AND automation_id IS NULL`); n != 2 {
		t.Errorf("kill-switch pause audit rows = %d, want 2", n)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.run_killed' AND run_id IN (?, ?)
		AND details LIKE '%"error":"kill-switch"%'`, k.runID, k.manualRunID); n != 2 {
		t.Errorf("run_killed audit rows = %d, want 2", n)
	}
	if got := b.Text(t, `SELECT details FROM audit WHERE action = 'site.schedules_pause'`); got !=
		`{"automationsPaused":2,"reason":"incident","runsKilled":2}` {
		t.Errorf("pause audit details = %s", got)
	}
	// The tick finds nothing to do: no run to kill, no window to open, no
	// occurrence to start, even once the built-in's is due.
	b.Clock.Set(*k.active.NextRunAt)
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) {
		t.Fatalf("tick of a paused site: %+v", rep.Automations)
	}
	if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE state IN ('due', 'ready', 'running')`); n != 0 {
		t.Fatalf("%d open runs on a paused site", n)
	}
}

// TestKillSwitchRefusesEveryAgentCall: while the site is paused, StartCall
// (the gate every MCP tool passes) refuses site_paused to an automation's
// key, inside what was its run or not, and to a person's key, for every
// tool but get_mode (which says the site is paused) and pause_automation.
// Resumed, they pass again.
func TestKillSwitchRefusesEveryAgentCall(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	k := newKillSwitchSite(t, b)
	person := b.Editor
	person.Agent = &engine.AgentCall{KeyID: "agk_person", KeyName: "Desk", Mode: policy.ModeEdits}
	person.Scopes = []policy.Scope{policy.SchedulesRead, policy.ContentRead, policy.ContentWrite}
	reads := automations.CallRequest{Tool: "list_releases"}
	spec, _ := policy.Tool("save_draft")
	def, _ := spec.Variant("")
	draft := automations.CallRequest{Tool: "save_draft", Class: def.Class, MayWrite: true}
	for _, u := range []engine.User{k.key, person} {
		for _, req := range []automations.CallRequest{reads, draft} {
			c, err := b.auto.StartCall(ctx, u, req)
			if err != nil {
				t.Fatalf("%s by %s before the pause: %v", req.Tool, u.Agent.KeyID, err)
			}
			if c.SitePaused {
				t.Fatal("SitePaused before the pause")
			}
			c.End(ctx, automations.CallResult{})
		}
	}
	b.setKillSwitch(t, true)
	for _, u := range []engine.User{k.key, person, k.pausedTaskKey} {
		for _, req := range []automations.CallRequest{reads, draft, {Tool: "begin_run", AutomationKey: true},
			{Tool: "end_run", AutomationKey: true}, {Tool: "broken_links", Class: policy.ClassRead}} {
			c, err := b.auto.StartCall(ctx, u, req)
			wantRefusal(t, err, engine.CodeSitePaused, "")
			if c.Run != nil {
				t.Fatalf("%s: a run is still open", req.Tool)
			}
		}
		c, err := b.auto.StartCall(ctx, u, automations.CallRequest{Tool: "get_mode"})
		if err != nil || !c.SitePaused {
			t.Fatalf("get_mode while paused: %v, sitePaused %v", err, c.SitePaused)
		}
		if u.Agent.AutomationID != "" {
			if _, err := b.auto.StartCall(ctx, u, automations.CallRequest{Tool: "pause_automation", AutomationKey: true}); err != nil {
				t.Fatalf("pause_automation while paused: %v", err)
			}
		}
	}
	// begin_run itself says so too, for a surface that calls it directly.
	_, err := b.auto.BeginRun(ctx, k.key, k.task.ID)
	wantRefusal(t, err, engine.CodeSitePaused, "")
	// Another site's keys are not held by this site's switch.
	other, err := b.CreateSite(ctx, "Other Gazette", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := person
	elsewhere.SiteID = other.ID
	if _, err := b.auto.StartCall(ctx, elsewhere, reads); err != nil {
		t.Fatalf("another site's key: %v", err)
	}

	b.setKillSwitch(t, false)
	if _, err := b.auto.StartCall(ctx, person, reads); err != nil {
		t.Fatalf("after resume: %v", err)
	}
}

// TestKillSwitchResumeRestoresExactlyItsPauses: resuming the site makes
// active again exactly the automations the switch paused, planned from now
// (the occurrences that passed while paused do not run); the ones a person
// paused before, or during, the pause stay paused, an auto-paused one stays
// auto-paused.
func TestKillSwitchResumeRestoresExactlyItsPauses(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	k := newKillSwitchSite(t, b)
	b.setKillSwitch(t, true)
	// During the pause a person pauses the active built-in themselves:
	// their pause outlasts the switch.
	in := weekly()
	in.Name = "Second check"
	second := b.create(t, in) // made while paused: active, held by the site
	mine := b.stored(t, k.active.ID)
	if _, err := b.auto.Pause(ctx, b.Editor, b.Site.ID, mine.ID, mine.Rev); err != nil {
		t.Fatal(err)
	}
	// Two weeks pass: the task's and the built-ins' occurrences come and
	// go, and the paused site's ticks start none of them.
	resumedAt := b.Clock.Now().AddDate(0, 0, 14).Add(3 * time.Hour)
	b.Clock.Set(resumedAt)
	runs := b.Count(t, `SELECT count(*) FROM schedule_runs`)
	if rep := b.Tick(t); rep.Automations != (scheduler.AutomationTally{}) || b.Count(t, `SELECT count(*) FROM schedule_runs`) != runs {
		t.Fatalf("tick of the paused site: %+v", rep.Automations)
	}
	b.setKillSwitch(t, false)

	task := b.stored(t, k.task.ID)
	if task.State != automations.AutomationActive || task.PausedReason != "" || task.NextRunAt == nil || !task.NextRunAt.After(resumedAt) ||
		task.DueAt == nil || !task.DueAt.Equal(task.NextRunAt.Add(30*time.Minute)) || !task.HandledAt.Equal(resumedAt) {
		t.Errorf("task after resume: %s (%s) next %v due %v handled %v", task.State, task.PausedReason, task.NextRunAt, task.DueAt,
			task.HandledAt)
	}
	for _, c := range []struct {
		a             automations.Automation
		state, reason string
	}{
		{k.active, automations.AutomationPaused, "person"},
		{k.personPaused, automations.AutomationPaused, "person"},
		{k.autoPaused, automations.AutomationAutoPaused, "failures"},
		{k.pausedTask, automations.AutomationPaused, "person"},
		{second, automations.AutomationActive, ""},
	} {
		if got := b.stored(t, c.a.ID); got.State != c.state || got.PausedReason != c.reason {
			t.Errorf("%s after resume: %s (%s), want %s (%s)", c.a.Name, got.State, got.PausedReason, c.state, c.reason)
		}
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.resume' AND details LIKE '%"pausedReason":"kill-switch"%'`); n != 1 {
		t.Errorf("kill-switch resume audit rows = %d, want 1", n)
	}
	// No burst: what the switch paused counts from now and starts nothing
	// at the first tick after resuming. The built-in made during the pause
	// was never the switch's: held by the site, it runs its latest missed
	// occurrence once, the older one recorded as skipped, as after any
	// downtime.
	before := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id <> ?`, second.ID)
	if rep := b.Tick(t); rep.Automations.Claimed != 1 || rep.Automations.Skipped != 1 {
		t.Fatalf("tick after resume: %+v, want only the held built-in's latest occurrence", rep.Automations)
	}
	if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id <> ?`, second.ID); n != before {
		t.Fatalf("runs of the switch's automations %d → %d after resume", before, n)
	}
	if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, second.ID); n != 2 {
		t.Fatalf("the held built-in has %d runs, want its latest and one skipped", n)
	}
	b.Clock.Set(task.NextRunAt.Add(time.Minute))
	if _, err := b.auto.BeginRun(ctx, k.key, k.task.ID); err != nil {
		t.Fatalf("begin_run in the next window: %v", err)
	}
}

// killSwitchRace is the store with a hook run right after the kill switch
// read the site's automations, before it writes.
type killSwitchRace struct {
	*store.Store
	after func()
}

func (r *killSwitchRace) Automations(ctx context.Context, siteID string) ([]automations.Automation, error) {
	as, err := r.Store.Automations(ctx, siteID)
	if f := r.after; f != nil {
		r.after = nil
		f()
	}
	return as, err
}

// TestKillSwitchRunBegunMeanwhile: a begin_run that commits between the
// switch's read of the automations and its write (begin_run does not move
// the automation's rev) makes the write conflict; the switch reads again
// and kills that run too, rather than leave it open behind a paused
// automation.
func TestKillSwitchRunBegunMeanwhile(t *testing.T) {
	b, _ := setupTasks(t)
	ctx := context.Background()
	a, key := b.task(t, taskInput())
	b.at("09:05")
	var runID string
	race := &killSwitchRace{Store: b.Store, after: func() {
		env, err := b.auto.BeginRun(ctx, key, a.ID)
		if err != nil {
			t.Errorf("begin_run meanwhile: %v", err)
		}
		runID = env.RunID
	}}
	if _, err := settings.New(b.Eng, race).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, "incident", 0); err != nil {
		t.Fatal(err)
	}
	r, err := b.Store.RunByID(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != string(automation.RunKilled) || r.ErrorCode != automations.RunKilledByKillSwitch {
		t.Fatalf("the run begun meanwhile is %s (%s), want killed (kill-switch)", r.State, r.ErrorCode)
	}
	if got := b.stored(t, a.ID); got.State != automations.AutomationPaused || got.OpenRunID != "" {
		t.Fatalf("automation %s open %q", got.State, got.OpenRunID)
	}
}
