package automations_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/internal/enginetest"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/recurrence"
	"studio/engine/settings"
)

type testBundle struct {
	*enginetest.Bundle
	auto *automations.Automations
}

func setup(t *testing.T) *testBundle {
	b := enginetest.New(t)
	return &testBundle{Bundle: b, auto: automations.New(b.Store, b.Eng)}
}

func (b *testBundle) create(t *testing.T, in automations.Input) automations.Automation {
	t.Helper()
	a, err := b.auto.Create(context.Background(), b.Editor, b.Site.ID, in)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return a
}

func weekly() automations.Input {
	return automations.Input{Name: "Broken links", Builtin: automation.BuiltinBrokenLinks, Preset: "custom",
		Rule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=10", Start: "2026-11-09T07:10"}
}

// TestCreateRefusesOneCodePerRule: every rule of §4.3 and D3 has its code
// and field, and a refusal changes nothing.
func TestCreateRefusesOneCodePerRule(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	before := b.Dump(t)
	with := func(f func(*automations.Input)) automations.Input {
		in := weekly()
		f(&in)
		return in
	}
	for _, c := range []struct {
		name        string
		u           engine.User
		in          automations.Input
		code, field string
		reason      string
	}{
		{"Author", b.Author, weekly(), engine.CodeForbidden, "", ""},
		{"Token", engine.User{ID: b.Editor.ID, Role: policy.Editor, SiteID: b.Site.ID, Scopes: []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite}},
			weekly(), engine.CodeForbidden, "", ""},
		{"NoName", b.Editor, with(func(i *automations.Input) { i.Name = "  " }), "bad_name", "name", ""},
		{"TwoLines", b.Editor, with(func(i *automations.Input) { i.Name = "a\nb" }), "bad_name", "name", ""},
		{"LongName", b.Editor, with(func(i *automations.Input) { i.Name = strings.Repeat("ş", 121) }), "bad_name", "name", ""},
		{"UnknownBuiltin", b.Editor, with(func(i *automations.Input) { i.Builtin = "spam" }), "unknown_builtin", "job", ""},
		{"StaleLow", b.Editor, with(func(i *automations.Input) { i.StaleAfterDays = 29 }), automation.CodeStaleAfterDays, "job.staleAfterDays", ""},
		{"StaleHigh", b.Editor, with(func(i *automations.Input) { i.StaleAfterDays = 1096 }), automation.CodeStaleAfterDays, "job.staleAfterDays", ""},
		{"Exclude", b.Editor, with(func(i *automations.Input) { i.Exclude = []string{"legacy/*"} }), automations.CodeBadExclude, "exclude", ""},
		{"Zone", b.Editor, with(func(i *automations.Input) { i.TimeZone = "Mars/Olympus" }), automations.CodeBadZone, "timeZone", ""},
		{"Start", b.Editor, with(func(i *automations.Input) { i.Start = "2026-11-31T07:10" }), "bad_wall", "start", ""},
		{"Preset", b.Editor, with(func(i *automations.Input) { i.Preset = "yearly" }), automations.CodeUnknownPreset, "preset", ""},
		{"PresetWithRule", b.Editor, with(func(i *automations.Input) { i.Preset = "daily" }), automation.CodeFieldNotAllowed, "rule", ""},
		{"Hourly", b.Editor, with(func(i *automations.Input) { i.Rule = "FREQ=HOURLY" }), automations.CodeBadRule, "rule", "unsupported_freq"},
		{"Interval", b.Editor, with(func(i *automations.Input) { i.Rule = "FREQ=DAILY;BYHOUR=7;BYMINUTE=0,30" }), automations.CodeBadRule, "rule", "too_frequent"},
		{"PerDay", b.Editor, with(func(i *automations.Input) { i.Rule = "FREQ=DAILY;BYHOUR=0,2,4,6,8,10,12,14,16,18,20,22;BYMINUTE=0,59" }),
			automations.CodeBadRule, "rule", ""},
		{"CountUntil", b.Editor, with(func(i *automations.Input) { i.Rule = "FREQ=DAILY;COUNT=3;UNTIL=20261231T000000Z" }),
			automations.CodeBadRule, "rule", "count_and_until"},
		{"Never", b.Editor, with(func(i *automations.Input) { i.Rule = "FREQ=DAILY;UNTIL=20261101T000000Z" }), automations.CodeBadRule, "rule", "never_occurs"},
		{"Prefix", b.Editor, with(func(i *automations.Input) { i.Rule = "RRULE:FREQ=DAILY" }), automations.CodeBadRule, "rule", "rrule_prefix"},
		{"CustomEmpty", b.Editor, with(func(i *automations.Input) { i.Rule = "" }), automations.CodeBadRule, "rule", "missing_freq"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.auto.Create(ctx, c.u, b.Site.ID, c.in)
			e := enginetest.WantRefusal(t, err, c.code, c.field)
			if c.reason != "" && e.Args["Reason"] != c.reason {
				t.Errorf("reason %v, want %s", e.Args["Reason"], c.reason)
			}
		})
	}
	if after := b.Dump(t); after != before {
		t.Fatalf("refusals changed the database:\n%s\n---\n%s", before, after)
	}
}

// TestCreateFromPresetTakesTheMinuteOffset: a preset's :00 start moves by
// the id's minute offset (§9.5); a custom rule and a chosen minute stay.
func TestCreateFromPresetTakesTheMinuteOffset(t *testing.T) {
	b := setup(t)
	a := b.create(t, automations.Input{Name: "Daily", Builtin: automation.BuiltinStaleContent, Preset: "daily", Start: "2026-11-03T07:00",
		StaleAfterDays: 180})
	off := recurrence.MinuteOffset(a.ID)
	want := "FREQ=DAILY;BYHOUR=7;BYMINUTE=" + itoa(off)
	if a.Preset != "daily" || a.Rule != want || a.StartLocal != "2026-11-03T07:0"+itoa(off) || a.Config.StaleAfterDays != 180 {
		t.Fatalf("preset: %s %s %s %+v", a.Preset, a.Rule, a.StartLocal, a.Config)
	}
	if a.Owner.ID != b.Editor.ID || a.State != "active" || a.NextRunAt == nil {
		t.Fatalf("owner %+v state %s next %v", a.Owner, a.State, a.NextRunAt)
	}
	c := b.create(t, automations.Input{Name: "Chosen", Builtin: automation.BuiltinFeedCheck, Preset: "weekly", Start: "2026-11-09T07:10"})
	if c.StartLocal != "2026-11-09T07:10" {
		t.Fatalf("a chosen minute moved: %s", c.StartLocal)
	}
	got, err := b.auto.Get(context.Background(), b.Author, b.Site.ID, a.ID)
	if err != nil || got.ID != a.ID || got.Config.StaleAfterDays != 180 {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := b.auto.List(context.Background(), b.Author, b.Site.ID)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %d %v", len(list), err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.create'`); n != 2 {
		t.Fatalf("%d audit rows", n)
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestUpdateComparesRevs: a patch at the current rev changes what it
// names, with an audit row; one at an old rev is stale and changes nothing.
func TestUpdateComparesRevs(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	a := b.create(t, weekly())
	name := "Kırık bağlantılar"
	rule := "FREQ=WEEKLY;BYDAY=TU;BYHOUR=8;BYMINUTE=5"
	ex := []string{"/legacy/*", "/legacy/*", " /old "}
	got, err := b.auto.Update(ctx, b.Editor, b.Site.ID, a.ID, automations.Patch{Rev: a.Rev, Name: &name, Rule: &rule, Exclude: &ex})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rev != a.Rev+1 || got.Name != name || got.Rule != rule || strings.Join(got.Config.Exclude, ",") != "/legacy/*,/old" {
		t.Fatalf("updated: %+v", got)
	}
	if got.NextRunAt == nil || got.NextRunAt.UTC().Weekday() != time.Tuesday {
		t.Fatalf("next run %v", got.NextRunAt)
	}
	before := b.Dump(t)
	other := "Other"
	_, err = b.auto.Update(ctx, b.Editor, b.Site.ID, a.ID, automations.Patch{Rev: a.Rev, Name: &other})
	enginetest.WantRefusal(t, err, engine.CodeStale, "rev")
	bad := "FREQ=MINUTELY"
	_, err = b.auto.Update(ctx, b.Editor, b.Site.ID, a.ID, automations.Patch{Rev: got.Rev, Rule: &bad})
	enginetest.WantRefusal(t, err, automations.CodeBadRule, "rule")
	_, err = b.auto.Update(ctx, b.Author, b.Site.ID, a.ID, automations.Patch{Rev: got.Rev, Name: &other})
	enginetest.WantRefusal(t, err, engine.CodeForbidden, "")
	_, err = b.auto.Pause(ctx, b.Editor, b.Site.ID, a.ID, a.Rev)
	enginetest.WantRefusal(t, err, engine.CodeStale, "rev")
	err = b.auto.Delete(ctx, b.Editor, b.Site.ID, a.ID, a.Rev)
	enginetest.WantRefusal(t, err, engine.CodeStale, "rev")
	if after := b.Dump(t); after != before {
		t.Fatalf("refusals changed the database:\n%s\n---\n%s", before, after)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'automation.update'`); n != 1 {
		t.Fatalf("%d update audits", n)
	}
}

// TestPauseResumeRunNowDelete: the person's moves, their refusals, and a
// run now that the runs list shows.
func TestPauseResumeRunNowDelete(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	a := b.create(t, weekly())
	p, err := b.auto.Pause(ctx, b.Editor, b.Site.ID, a.ID, a.Rev)
	if err != nil || p.State != "paused" || p.PausedReason != "person" || p.DueAt != nil {
		t.Fatalf("pause: %+v %v", p, err)
	}
	_, err = b.auto.Pause(ctx, b.Editor, b.Site.ID, a.ID, p.Rev)
	enginetest.WantRefusal(t, err, automation.CodeTransitionRefused, "")
	r, err := b.auto.Resume(ctx, b.Editor, b.Site.ID, a.ID, p.Rev)
	if err != nil || r.State != "active" || r.PausedReason != "" || r.DueAt == nil {
		t.Fatalf("resume: %+v %v", r, err)
	}
	run, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil || run.Trigger != "manual" || run.State != "running" || !run.OccurrenceAt.Equal(b.Clock.Now()) {
		t.Fatalf("run now: %+v %v", run, err)
	}
	// A second press while it runs (a double click) answers the same run
	// and starts nothing (issue 36).
	again, started, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID)
	if err != nil || started || again.ID != run.ID || again.State != "running" {
		t.Fatalf("run now again: %+v started=%v %v", again, started, err)
	}
	_, _, err = b.auto.RunNow(ctx, b.Author, b.Site.ID, a.ID)
	enginetest.WantRefusal(t, err, engine.CodeForbidden, "")
	page, err := b.auto.Runs(ctx, b.Author, b.Site.ID, automations.RunsQuery{AutomationID: a.ID})
	if err != nil || len(page.Runs) != 1 || page.Runs[0].ID != run.ID || page.NextCursor != "" {
		t.Fatalf("runs: %+v %v", page, err)
	}
	one, err := b.auto.Run(ctx, b.Author, b.Site.ID, run.ID)
	if err != nil || one.SubjectID != a.ID || one.SubjectKind != "automation" {
		t.Fatalf("run: %+v %v", one, err)
	}
	cur, _ := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
	if cur.LastRun == nil || cur.LastRun.ID != run.ID || cur.OpenRunID != run.ID {
		t.Fatalf("last run %+v open %q", cur.LastRun, cur.OpenRunID)
	}
	if err := b.auto.Delete(ctx, b.Editor, b.Site.ID, a.ID, cur.Rev); err != nil {
		t.Fatal(err)
	}
	if _, err := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID); err != engine.ErrNotFound {
		t.Fatalf("after delete: %v", err)
	}
	// Its runs stay in History; the open one was killed.
	if got, err := b.auto.Run(ctx, b.Editor, b.Site.ID, run.ID); err != nil || got.State != "killed" {
		t.Fatalf("run after delete: %+v %v", got, err)
	}
}

// TestRunsPagesAndFilters: release runs are runs too; pages follow the
// cursor; bad filters are refused.
func TestRunsPagesAndFilters(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	rel := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
	b.Clock.Set(rel.When.At)
	b.Tick(t)
	a := b.create(t, weekly())
	for range 3 {
		run, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		b.Exec(t, `UPDATE schedule_runs SET state = 'succeeded' WHERE id = ?`, run.ID)
		b.Exec(t, `UPDATE automations SET open_run_id = NULL WHERE id = ?`, a.ID)
		b.Clock.Advance(time.Minute)
	}
	var all []automations.Run
	q := automations.RunsQuery{Limit: 2}
	for {
		page, err := b.auto.Runs(ctx, b.Author, b.Site.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Runs...)
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	releases := 0
	for _, r := range all {
		if r.SubjectKind == "release" && r.SubjectID == rel.ID {
			releases++
		}
	}
	if len(all) != 4 || releases != 1 {
		t.Fatalf("all runs: %d (%d of the release)", len(all), releases)
	}
	for i := 1; i < len(all); i++ {
		if all[i].OccurrenceAt.After(all[i-1].OccurrenceAt) {
			t.Fatal("not newest first")
		}
	}
	page, err := b.auto.Runs(ctx, b.Author, b.Site.ID, automations.RunsQuery{ReleaseID: rel.ID})
	if err != nil || len(page.Runs) != 1 || page.Runs[0].State != "succeeded" {
		t.Fatalf("release runs: %+v %v", page, err)
	}
	_, err = b.auto.Runs(ctx, b.Author, b.Site.ID, automations.RunsQuery{State: "done"})
	enginetest.WantRefusal(t, err, automation.CodeUnknownRunState, "state")
	_, err = b.auto.Runs(ctx, b.Author, b.Site.ID, automations.RunsQuery{Limit: 201})
	enginetest.WantRefusal(t, err, "bad_limit", "limit")
	_, err = b.auto.Runs(ctx, b.Author, b.Site.ID, automations.RunsQuery{Cursor: "nope"})
	enginetest.WantRefusal(t, err, automations.CodeBadCursor, "cursor")
}

// TestPreviewRuleNotesTheClockChange: the next five runs in Berlin across
// the spring change, the gap one moved and marked.
func TestPreviewRuleNotesTheClockChange(t *testing.T) {
	b := setup(t)
	b.Clock.Set(time.Date(2027, 3, 25, 0, 0, 0, 0, time.UTC))
	p, err := b.auto.PreviewRule(context.Background(), b.Author, b.Site.ID, "", "FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "2027-03-01T02:30", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Occurrences) != automations.PreviewCount || p.DSTNotes != 1 || p.Preset != "daily" {
		t.Fatalf("preview: %+v", p)
	}
	var moved automations.PreviewOccurrence
	for _, o := range p.Occurrences {
		if o.Adjusted != "" {
			moved = o
		}
	}
	if moved.Adjusted != "dst-gap" || moved.Local != "2027-03-28T03:30" || moved.Meant != "2027-03-28T02:30" {
		t.Fatalf("moved: %+v", moved)
	}
	_, err = b.auto.PreviewRule(context.Background(), b.Author, b.Site.ID, "", "FREQ=DAILY;COUNT=2;UNTIL=20271231T000000Z", "2027-03-01T02:30", "")
	enginetest.WantRefusal(t, err, automations.CodeBadRule, "rule")
}

// TestAbilitiesAreTheUseCasesAnswers: each flag of AbilitiesFor equals
// whether its use case accepts the act, for every state a person meets and
// for a person who may manage and one who may not.
func TestAbilitiesAreTheUseCasesAnswers(t *testing.T) {
	ctx := context.Background()
	scenarios := map[string]func(b *testBundle, a automations.Automation){
		"Active": func(*testBundle, automations.Automation) {},
		"Paused": func(b *testBundle, a automations.Automation) {
			if _, err := b.auto.Pause(ctx, b.Editor, b.Site.ID, a.ID, a.Rev); err != nil {
				t.Fatal(err)
			}
		},
		"AutoPaused": func(b *testBundle, a automations.Automation) {
			b.Exec(t, `UPDATE automations SET state = 'auto-paused', paused_reason = 'failures', consecutive_failures = 3 WHERE id = ?`, a.ID)
		},
		"KillSwitchPaused": func(b *testBundle, a automations.Automation) {
			b.Exec(t, `UPDATE automations SET state = 'paused', paused_reason = 'kill-switch' WHERE id = ?`, a.ID)
		},
		"Running": func(b *testBundle, a automations.Automation) {
			if _, _, err := b.auto.RunNow(ctx, b.Editor, b.Site.ID, a.ID); err != nil {
				t.Fatal(err)
			}
		},
		"SitePaused": func(b *testBundle, a automations.Automation) {
			cur, err := b.Releases.ScheduleSettings(ctx, b.Editor, b.Site.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, "incident", cur.Rev); err != nil {
				t.Fatal(err)
			}
		},
		"Ended": func(b *testBundle, a automations.Automation) {
			b.Exec(t, `UPDATE automations SET state = 'ended', ended_at = created_at, due_at = NULL, next_run_at = NULL WHERE id = ?`, a.ID)
		},
	}
	acts := map[string]struct {
		flag func(automations.AutomationAbilities) bool
		do   func(b *testBundle, u engine.User, a automations.Automation) error
	}{
		"Pause": {func(x automations.AutomationAbilities) bool { return x.Pause }, func(b *testBundle, u engine.User, a automations.Automation) error {
			_, err := b.auto.Pause(ctx, u, b.Site.ID, a.ID, a.Rev)
			return err
		}},
		"Resume": {func(x automations.AutomationAbilities) bool { return x.Resume }, func(b *testBundle, u engine.User, a automations.Automation) error {
			_, err := b.auto.Resume(ctx, u, b.Site.ID, a.ID, a.Rev)
			return err
		}},
		"RunNow": {func(x automations.AutomationAbilities) bool { return x.RunNow }, func(b *testBundle, u engine.User, a automations.Automation) error {
			_, started, err := b.auto.RunNow(ctx, u, b.Site.ID, a.ID)
			if err == nil && !started {
				return errors.New("a run is under way: Run now starts nothing")
			}
			return err
		}},
		"Delete": {func(x automations.AutomationAbilities) bool { return x.Delete }, func(b *testBundle, u engine.User, a automations.Automation) error {
			return b.auto.Delete(ctx, u, b.Site.ID, a.ID, a.Rev)
		}},
		"Edit": {func(x automations.AutomationAbilities) bool { return x.Edit }, func(b *testBundle, u engine.User, a automations.Automation) error {
			name := "Renamed"
			_, err := b.auto.Update(ctx, u, b.Site.ID, a.ID, automations.Patch{Rev: a.Rev, Name: &name})
			return err
		}},
		"Duplicate": {func(x automations.AutomationAbilities) bool { return x.Duplicate }, func(b *testBundle, u engine.User, a automations.Automation) error {
			_, err := b.auto.Create(ctx, u, b.Site.ID, automations.InputOf(a))
			return err
		}},
	}
	for sname, scenario := range scenarios {
		for aname, act := range acts {
			for _, who := range []string{"Editor", "Author"} {
				t.Run(sname+"/"+aname+"/"+who, func(t *testing.T) {
					b := setup(t)
					a := b.create(t, weekly())
					scenario(b, a)
					cur, err := b.auto.Get(ctx, b.Editor, b.Site.ID, a.ID)
					if err != nil {
						t.Fatal(err)
					}
					u := b.Editor
					if who == "Author" {
						u = b.Author
					}
					set, err := b.Releases.ScheduleSettings(ctx, b.Editor, b.Site.ID)
					if err != nil {
						t.Fatal(err)
					}
					may := act.flag(automations.AbilitiesFor(u, cur, set.Paused))
					err = act.do(b, u, cur)
					if may != (err == nil) {
						t.Fatalf("ability %v, use case said %v", may, err)
					}
				})
			}
		}
	}
}
