package apptest

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/settings"
)

// LastSession is the id of the person's session signed in last (in
// browser, unless "").
func (a *App) LastSession(t *testing.T, u engine.User, browser string) string {
	t.Helper()
	var id string
	if err := a.Store.DB().QueryRow(`SELECT id FROM user_sessions WHERE user_id = ? AND (? = '' OR browser = ?)
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, u.ID, browser, browser).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// AutFingerprint is the site's automations as stored, with the audit
// count: a refused form must leave it as it was.
func (a *App) AutFingerprint(t *testing.T) string {
	t.Helper()
	var fp string
	err := a.Store.DB().QueryRow(`SELECT
		(SELECT count(*) FROM automations) || ' automations [' ||
		(SELECT coalesce(group_concat(id || ':' || name || ':' || state || ':' || rev || ':' || coalesce(rule, ''), ' '), '') FROM automations) || '] ' ||
		(SELECT count(*) FROM audit) || ' audit'`).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp + " | " + a.Fingerprint(t)
}

// EditorForm is the automation editor filled in as a person would: a
// broken-link check, Custom, every week on the days given, at 07:10.
func EditorForm(token string, days ...string) url.Values {
	return url.Values{"csrf_token": {token}, "name": {"Monday and Thursday links"}, "job": {"broken-links"},
		"date": {"2026-11-09"}, "time": {"07:10"}, "preset": {"custom"}, "freq": {"weekly"}, "interval": {"1"},
		"byday": days, "monthly": {"day"}, "monthday": {"9"}, "nth": {"1"}, "nthday": {"MO"}, "ends": {"never"},
		"exclude": {"/legacy/*"}, "action": {"save"}}
}

// ConflictRelease is a release held as a conflict (§6.4): "first"
// publishes an edit of the live article at 08:30, "second" pins the next
// edit for 09:00, an Undo of "first" puts version 1 back, and the tick at
// 09:00 finds second's base gone. The clock is left at 09:00.
func (a *App) ConflictRelease(t *testing.T) releases.ReleaseRow {
	t.Helper()
	ctx := context.Background()
	edit := func(text string) {
		t.Helper()
		d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Live.ID)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body
		body.Text = text
		if _, err := a.Nodes.SaveNode(ctx, a.Editor, a.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
	}
	edit("This is the first article.\nCorrected.")
	first := a.ScheduleAt(t, a.Editor, a.Live, "2026-11-02", "08:30")
	a.Clock.Set(time.Date(2026, 11, 2, 5, 30, 0, 0, time.UTC))
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	edit("This is the first article.\nCorrected.\nUpdated.")
	second := a.ScheduleAt(t, a.Editor, a.Live, "2026-11-02", "09:00")
	plan, err := a.Releases.PlanUndo(ctx, a.Editor, a.Site.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Releases.Undo(ctx, a.Editor, a.Site.ID, first.ID, plan.Site.Rev); err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	r := a.Release(t, second.ID)
	if r.State != release.StateConflict {
		t.Fatalf("second is %s, want conflict", r.State)
	}
	return r
}

// EditScheduledForm is a valid "Edit and re-approve" form for the node the
// scheduled release rel holds.
func (a *App) EditScheduledForm(t *testing.T, rel release.Release) (string, url.Values) {
	t.Helper()
	d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, rel.Items[0].NodeID)
	if err != nil {
		t.Fatal(err)
	}
	cur := a.Release(t, rel.ID)
	return "/studio/content/" + d.ID + "/edit-scheduled", url.Values{"rev": {fmt.Sprint(d.Rev)},
		"release_rev": {fmt.Sprint(cur.Rev)}, "title": {d.Body.Title}, "slug": {d.Body.Slug},
		"summary": {d.Body.Summary}, "body": {d.Body.Text + "\nEdited while scheduled."}}
}

// BrokenLinkCheck is a weekly broken-link check that who creates.
func (a *App) BrokenLinkCheck(t *testing.T, who engine.User) automations.Automation {
	t.Helper()
	au, err := a.Automations.Create(context.Background(), who, a.Site.ID, automations.Input{Name: "Link check",
		Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-02T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	return au
}

// Finish ticks until the run has ended, and returns it.
func (a *App) Finish(t *testing.T, runID string) automations.Run {
	t.Helper()
	ctx := context.Background()
	for range 20 {
		if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		r, err := a.Automations.Run(ctx, a.Editor, a.Site.ID, runID)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Open() {
			return r
		}
	}
	t.Fatalf("run %s never ended", runID)
	return automations.Run{}
}

// RunNow starts a run of au now as who and ticks it to its end.
func (a *App) RunNow(t *testing.T, who engine.User, au automations.Automation) automations.Run {
	t.Helper()
	r, _, err := a.Automations.RunNow(context.Background(), who, a.Site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a.Finish(t, r.ID)
}

// BrokenArticle publishes an article with a link to a page that does not
// exist, for broken-links to find.
func (a *App) BrokenArticle(t *testing.T) content.Node {
	t.Helper()
	n := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Transit strike", Slug: "transit-strike", Lang: "en",
		Status: content.StatusPublished, Text: "See [the timetable](/posts/timetable) and [about us](/about)."})
	if _, err := a.Nodes.Publish(context.Background(), a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	return n
}

// FindingsPrint is every finding row as the store keeps it.
func (a *App) FindingsPrint(t *testing.T) map[string]string {
	t.Helper()
	rows, err := a.Store.DB().Query(`SELECT key, code || ' ' || detail || ' ' || last_run || ' ' ||
		coalesce(dismissed_detail, '-') || ' ' || coalesce(dismissed_by, '-') FROM job_findings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

// ResetLink is the path of the reset link in a People page that just made one.
func ResetLink(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`value="http[^"]+(/studio/reset\?token=[^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no reset link in the page:\n%s", Excerpt(body))
	}
	return html.UnescapeString(m[1])
}

// Admin adds the site's Administrator, Ada.
func (a *App) Admin(t *testing.T) engine.User {
	t.Helper()
	return a.AddUser(t, "admin@example.com", "Ada Admin", policy.Admin, "en")
}

// PauseSchedules turns the site's kill switch on as Oya, an owner.
func (a *App) PauseSchedules(t *testing.T, reason string) {
	t.Helper()
	ctx := context.Background()
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	s, err := a.Releases.ScheduleSettings(ctx, a.Editor, a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.New(a.Engine, a.Store).SetKillSwitch(ctx, owner, a.Site.ID, true, reason, s.Rev); err != nil {
		t.Fatal(err)
	}
}

// SettingsPrint summarises what the settings forms may change: the site's
// zone and rev, the schedule settings row and the audit. A refused form
// leaves it as it was.
func (a *App) SettingsPrint(t *testing.T) string {
	t.Helper()
	var fp string
	err := a.Store.DB().QueryRow(`SELECT
		(SELECT group_concat(time_zone || '@' || rev || ':' || hash) FROM sites) || ' | ' ||
		(SELECT coalesce(group_concat(rev || ':' || paused || ':' || daily_write_cap || ':' || coalesce(paused_reason, '-')), 'defaults')
		 FROM schedule_settings) || ' | ' ||
		(SELECT count(*) FROM audit) || ' audit'`).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}
