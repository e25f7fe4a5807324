package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/automations"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

func author(a *apptest.App, t *testing.T) *apptest.Client {
	t.Helper()
	return a.SignedIn(t, a.AddUser(t, "author@example.com", "Ayla Author", policy.Author, "en"))
}

// TestAutomationsEmptyState: with no automations the tab says what they
// are and offers the five built-in jobs, each set up from its preset, in
// both languages; someone who may not manage them gets no Set up.
func TestAutomationsEmptyState(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "English", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="automations-empty"`, "No automations yet", `aria-current="page"`,
			"Broken links", "Stale content", "Feed check", "Weekly digest", "Cleanup",
			`href="/studio/schedules/automations/new?job=broken-links"`, `href="/studio/schedules/automations/new?job=cleanup"`},
		NotExpectedContent: []string{`data-testid="automations"`}})
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Henüz otomasyon yok", "Kırık bağlantılar", "Eskimiş içerik", "Akış denetimi",
			"Haftalık özet", "Temizlik", ">Kur</a>", "Otomasyonlar"}})
	author(a, t).Check(t, apptest.Scenario{Name: "Author", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"No automations yet", "Editors and administrators can set up automations."},
		NotExpectedContent: []string{"/new?job="}})

	// Set up fills the editor with the job's preset: broken links every
	// Monday at 07:10, and its next five runs.
	a.SetLang(t, a.Editor, "en")
	c.Check(t, apptest.Scenario{Name: "SetUp", URL: "/studio/schedules/automations/new?job=broken-links", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`value="Broken links"`, `name="job" value="broken-links" checked`, `value="2026-11-09"`,
			`value="07:10"`, `name="preset" value="weekly" checked`, "Every week on Monday at 07:10",
			"Monday 9 November 2026 07:10", "Monday 7 December 2026 07:10"}})
}

// TestAutomationsList: each automation's row has its name linking to the
// editor, its job, its sentence, its next run and its last run's state
// and outcome apart, linking to the run, in both languages.
func TestAutomationsList(t *testing.T) {
	a := apptest.New(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "BeforeAnyRun", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/schedules/automations/` + au.ID + `"`, "Link check", "Broken links",
			"Every week on Monday at 07:10", "9 November 2026, 07:10", "Not run yet", `aria-checked="true"`,
			"New automation…", "/run-now", "/studio/schedules/history?automation=" + au.ID,
			"/studio/schedules/automations/new?from=" + au.ID, "/studio/schedules/automations/" + au.ID + "/delete"}})

	run, _, err := a.Automations.RunNow(context.Background(), a.Editor, a.Site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Automations.Run(context.Background(), a.Editor, a.Site.ID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "succeeded" {
		t.Fatalf("run %s: state %s, want succeeded", run.ID, got.State)
	}
	c.Check(t, apptest.Scenario{Name: "AfterARun", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/schedules/runs/` + run.ID + `"`, "2 November 2026, 08:00",
			`data-testid="last-run-state">Succeeded<`, `data-testid="last-run-outcome">` + outcomeWord("en", got.Outcome) + `<`},
		NotExpectedContent: []string{"Not run yet"}})
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Her hafta pazartesi 07:10", "9 Kasım 2026 07:10", "2 Kasım 2026 08:00",
			`data-testid="last-run-state">Başarılı<`, `data-testid="last-run-outcome">` + outcomeWord("tr", got.Outcome) + `<`,
			"Kırık bağlantılar", "Yeni otomasyon…", "Şimdi çalıştır", "Çoğalt", "Sil…", "Açık</button>", ">Durum<"}})
}

func outcomeWord(lang, outcome string) string {
	return map[string]map[string]string{
		"en": {"did-work": "Did work", "nothing-to-do": "Nothing to do"},
		"tr": {"did-work": "İşlem yaptı", "nothing-to-do": "Yapacak iş yoktu"},
	}[lang][outcome]
}

// TestAutomationCreateCustomWeekly: the editor's Custom weekly schedule on
// Monday and Thursday is saved as the rule that says it, and the list
// shows its sentence.
func TestAutomationCreateCustomWeekly(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: "/studio/schedules/automations",
		Form: apptest.EditorForm(c.Token(), "MO", "TH"), ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/schedules/automations"}})
	list, err := a.Automations.List(context.Background(), a.Editor, a.Site.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	got := list[0]
	if got.Rule != "FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=7;BYMINUTE=10" || got.Preset != "custom" || got.StartLocal != "2026-11-09T07:10" ||
		got.Job != "builtin:broken-links" || strings.Join(got.Config.Exclude, ",") != "/legacy/*" || got.TimeZone != "Europe/Istanbul" {
		t.Errorf("saved %+v", got)
	}
	c.Check(t, apptest.Scenario{Name: "Listed", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Automation created.", "Monday and Thursday links", "Every week on Monday and Thursday at 07:10",
			"9 November 2026, 07:10"}})

	// Editing it shows the same choices, and saving at its rev changes it.
	c.Check(t, apptest.Scenario{Name: "Edit", URL: "/studio/schedules/automations/" + got.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`name="preset" value="custom" checked`, `name="byday" value="MO" checked`,
			`name="byday" value="TH" checked`, `name="byday" value="TU">`, `name="rev" value="1"`, "/legacy/*",
			"Every week on Monday and Thursday at 07:10"}})
	form := apptest.EditorForm(c.Token(), "TU")
	form.Set("rev", "1")
	form.Set("name", "Tuesday links")
	c.Check(t, apptest.Scenario{Name: "Save", Method: "POST", URL: "/studio/schedules/automations/" + got.ID, Form: form,
		ExpectedStatus: http.StatusSeeOther})
	saved, err := a.Automations.Get(context.Background(), a.Editor, a.Site.ID, got.ID)
	if err != nil || saved.Name != "Tuesday links" || saved.Rule != "FREQ=WEEKLY;BYDAY=TU;BYHOUR=7;BYMINUTE=10" || saved.Rev != 2 {
		t.Fatalf("saved %+v %v", saved, err)
	}

	// A save at the old rev is refused, clearly, and changes nothing.
	before := a.AutFingerprint(t)
	form.Set("name", "Stale links")
	c.Check(t, apptest.Scenario{Name: "StaleRev", Method: "POST", URL: "/studio/schedules/automations/" + got.ID, Form: form,
		ExpectedStatus: http.StatusConflict,
		ExpectedContent: []string{"changed somewhere else while you were editing", `value="Stale links"`,
			`href="/studio/schedules/automations/` + got.ID + `"`}})
	if after := a.AutFingerprint(t); after != before {
		t.Errorf("a stale save changed state:\n%s\n%s", before, after)
	}
}

// TestAutomationEditorRefusals: bad input comes back under its field, in
// the person's language, with their values, and changes nothing.
func TestAutomationEditorRefusals(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	with := func(change func(url.Values)) url.Values {
		f := apptest.EditorForm(c.Token(), "MO")
		change(f)
		return f
	}
	cases := []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"NoName", with(func(f url.Values) { f.Set("name", "  ") }), "name", "Enter a name"},
		{"NoJob", with(func(f url.Values) { f.Set("job", "spam") }), "job", "Choose a built-in job from the list."},
		{"BadStart", with(func(f url.Values) { f.Set("date", "2026-02-30") }), "start", ""},
		{"BadInterval", with(func(f url.Values) { f.Set("interval", "0") }), "rule", "The interval must be a whole number from 1 to 999."},
		{"NoEndDate", with(func(f url.Values) { f.Set("ends", "until"); f.Set("until", "") }), "rule", "Write the end as a UTC date"},
		{"NeverRuns", with(func(f url.Values) { f.Set("ends", "until"); f.Set("until", "2026-11-01") }), "rule", "never runs"},
		{"BadExclude", with(func(f url.Values) { f.Set("exclude", "legacy") }), "exclude", "starting with /"},
		{"StaleDays", with(func(f url.Values) { f.Set("job", "stale-content"); f.Set("staleAfterDays", "10") }),
			"staleAfterDays", "Choose between 30 and 1,095 days."},
		{"StaleDaysNotANumber", with(func(f url.Values) { f.Set("job", "stale-content"); f.Set("staleAfterDays", "many") }),
			"staleAfterDays", "Choose between 30 and 1,095 days."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := a.AutFingerprint(t)
			want := []string{`data-testid="error-` + tc.field + `"`, `value="` + tc.form.Get("name") + `"`, `value="07:10"`}
			if tc.want != "" {
				want = append(want, tc.want)
			}
			c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/schedules/automations", Form: tc.form,
				ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: want})
			if after := a.AutFingerprint(t); after != before {
				t.Errorf("a refused form changed state:\n%s\n%s", before, after)
			}
		})
	}
	t.Run("Turkish", func(t *testing.T) {
		a.SetLang(t, a.Editor, "tr")
		before := a.AutFingerprint(t)
		c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/schedules/automations",
			Form: with(func(f url.Values) { f.Set("interval", "0") }), ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent:    []string{`data-testid="error-rule"`, `value="Monday and Thursday links"`, "Sonraki çalıştırmalar"},
			NotExpectedContent: []string{"The interval must"}})
		if after := a.AutFingerprint(t); after != before {
			t.Errorf("a refused form changed state:\n%s\n%s", before, after)
		}
	})
}

// TestAutomationPreview: the editor's preview lists the next five runs of
// the schedule in the query with its sentence, marks a run a clock change
// moved, and the Preview button brings the form back with them (no
// JavaScript), saving nothing.
func TestAutomationPreview(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	q := url.Values{"date": {"2026-11-09"}, "time": {"07:10"}, "preset": {"custom"}, "freq": {"monthly"}, "interval": {"1"},
		"monthly": {"nth"}, "nth": {"2"}, "nthday": {"TU"}, "ends": {"never"}}
	c.Check(t, apptest.Scenario{Name: "SecondTuesday", URL: "/studio/schedules/automations/preview?" + q.Encode(),
		Header: map[string]string{"HX-Request": "true"}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"On the second Tuesday of every month at 07:10", "Tuesday 10 November 2026 07:10",
			"Tuesday 8 December 2026 07:10", "Tuesday 9 March 2027 07:10"},
		NotExpectedContent: []string{"<html", "clock change"}})
	// Berlin springs forward at 02:00 on 28 March 2027: 02:30 does not exist.
	dst := url.Values{"date": {"2027-03-26"}, "time": {"02:30"}, "preset": {"daily"}, "zone": {"Europe/Berlin"}}
	c.Check(t, apptest.Scenario{Name: "ClockChange", URL: "/studio/schedules/automations/preview?" + dst.Encode(),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`data-testid="dst-badge"`, "clock change", "Sunday 28 March 2027 03:30"}})
	c.Check(t, apptest.Scenario{Name: "BadRule", URL: "/studio/schedules/automations/preview?" + strings.Replace(q.Encode(), "interval=1", "interval=0", 1),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`data-testid="preview-error"`, "The interval must be"}})

	// A new automation's suggested start (date_auto) follows a rule that
	// names its days: made on Monday 2 November at 08:00 in Istanbul, a
	// Monday-and-Thursday 07:10 check runs that Thursday, and "the last
	// day of the month" this month. A date the person set stays.
	monThu := url.Values{"date": {"2026-11-09"}, "time": {"07:10"}, "preset": {"custom"}, "freq": {"weekly"}, "interval": {"1"},
		"byday": {"MO", "TH"}, "ends": {"never"}, "date_auto": {"1"}}
	c.Check(t, apptest.Scenario{Name: "StartFollowsTheRule", URL: "/studio/schedules/automations/preview?" + monThu.Encode(),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Thursday 5 November 2026 07:10",
			`value="2026-11-03" aria-describedby="aut-zone-note err-start" data-testid="aut-date" hx-swap-oob="true"`}})
	lastDay := url.Values{"date": {"2026-12-01"}, "time": {"09:20"}, "preset": {"custom"}, "freq": {"monthly"}, "interval": {"1"},
		"monthly": {"last"}, "ends": {"never"}, "date_auto": {"1"}}
	c.Check(t, apptest.Scenario{Name: "LastDayThisMonth", URL: "/studio/schedules/automations/preview?" + lastDay.Encode(),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Monday 30 November 2026 09:20", `value="2026-11-02"`}})
	monThu.Del("date_auto")
	c.Check(t, apptest.Scenario{Name: "PersonsStartStays", URL: "/studio/schedules/automations/preview?" + monThu.Encode(),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Monday 9 November 2026 07:10"},
		NotExpectedContent: []string{"Thursday 5 November", "hx-swap-oob"}})
	weekly := url.Values{"date": {"2026-11-09"}, "time": {"07:10"}, "preset": {"weekly"}, "date_auto": {"1"}}
	c.Check(t, apptest.Scenario{Name: "WeeklyTakesItsDayFromTheStart", URL: "/studio/schedules/automations/preview?" + weekly.Encode(),
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Monday 9 November 2026 07:10"}, NotExpectedContent: []string{"hx-swap-oob"}})

	before := a.AutFingerprint(t)
	form := apptest.EditorForm(c.Token(), "MO", "TH")
	form.Set("action", "preview")
	c.Check(t, apptest.Scenario{Name: "PreviewButton", Method: "POST", URL: "/studio/schedules/automations", Form: form,
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Every week on Monday and Thursday at 07:10",
			"Monday 9 November 2026 07:10", "Thursday 12 November 2026 07:10", `value="Monday and Thursday links"`}})
	if after := a.AutFingerprint(t); after != before {
		t.Errorf("Preview changed state:\n%s\n%s", before, after)
	}
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules/automations/preview?" + q.Encode(), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Sonraki çalıştırmalar", "Her ayın ikinci salısı 07:10", "10 Kasım 2026 Salı 07:10"}})
}

// TestAutomationSwitchAndDelete: the On switch pauses and resumes at the
// rev seen (a plain form and htmx's row), Delete… confirms and deletes at
// the rev seen; a stale rev is refused and changes nothing.
func TestAutomationSwitchAndDelete(t *testing.T) {
	a := apptest.New(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	c := a.SignedIn(t, a.Editor)
	base := "/studio/schedules/automations/" + au.ID
	c.Check(t, apptest.Scenario{Name: "Pause", Method: "POST", URL: base + "/pause",
		Form: url.Values{"csrf_token": {c.Token()}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "Paused", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Paused. It does not run until you turn it on again.", `data-testid="automation-state">Paused<`,
			`aria-checked="false"`, base + "/resume"}})

	before := a.AutFingerprint(t)
	c.Check(t, apptest.Scenario{Name: "StaleResume", Method: "POST", URL: base + "/resume",
		Form: url.Values{"csrf_token": {c.Token()}, "rev": {"1"}}, ExpectedStatus: http.StatusConflict,
		ExpectedContent: []string{"This changed somewhere else meanwhile."}})
	c.Check(t, apptest.Scenario{Name: "StaleResumeHTMX", Method: "POST", URL: base + "/resume",
		Form: url.Values{"rev": {"1"}}, Header: map[string]string{"HX-Request": "true", "X-CSRF-Token": c.Token()},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`id="aut-` + au.ID + `"`, `data-testid="row-error"`, `aria-checked="false"`},
		NotExpectedContent: []string{"<html"}})
	if after := a.AutFingerprint(t); after != before {
		t.Errorf("a stale resume changed state:\n%s\n%s", before, after)
	}
	c.Check(t, apptest.Scenario{Name: "ResumeHTMX", Method: "POST", URL: base + "/resume",
		Form: url.Values{"rev": {"2"}}, Header: map[string]string{"HX-Request": "true", "X-CSRF-Token": c.Token()},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`id="aut-` + au.ID + `"`, `aria-checked="true"`, base + "/pause",
			`name="rev" value="3"`}, NotExpectedContent: []string{"<html", "row-error"}})

	c.Check(t, apptest.Scenario{Name: "ConfirmPage", URL: base + "/delete", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Delete “Link check”?", "Its past runs stay in History.", `name="rev" value="3"`}})
	before = a.AutFingerprint(t)
	c.Check(t, apptest.Scenario{Name: "StaleDelete", Method: "POST", URL: base + "/delete",
		Form: url.Values{"csrf_token": {c.Token()}, "rev": {"2"}}, ExpectedStatus: http.StatusConflict,
		ExpectedContent: []string{"This changed somewhere else meanwhile.", "Delete “Link check”?"}})
	if after := a.AutFingerprint(t); after != before {
		t.Errorf("a stale delete changed state:\n%s\n%s", before, after)
	}
	c.Check(t, apptest.Scenario{Name: "Delete", Method: "POST", URL: base + "/delete",
		Form: url.Values{"csrf_token": {c.Token()}, "rev": {"3"}}, ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "Gone", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Automation deleted.", "No automations yet"}})
	if _, err := a.Automations.Get(context.Background(), a.Editor, a.Site.ID, au.ID); err == nil {
		t.Error("the automation is still there")
	}
}

// TestAutomationAbilitiesAuthor: an Author reads automations but is shown
// no way to change them, and is refused when posting anyway.
func TestAutomationAbilitiesAuthor(t *testing.T) {
	a := apptest.New(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	c := author(a, t)
	base := "/studio/schedules/automations/" + au.ID
	c.Check(t, apptest.Scenario{Name: "List", URL: "/studio/schedules/automations", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Link check", "Every week on Monday at 07:10", "/studio/schedules/history?automation=" + au.ID,
			`data-testid="automation-state">On<`},
		NotExpectedContent: []string{"New automation…", "automation-switch", "/run-now", "/pause", "menu-edit", "menu-delete",
			"?from="}})
	c.Check(t, apptest.Scenario{Name: "ReadOnlyEditor", URL: base, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"<fieldset disabled", "Every week on Monday at 07:10"},
		NotExpectedContent: []string{"automation-save"}})
	c.Check(t, apptest.Scenario{Name: "NoNewForm", URL: "/studio/schedules/automations/new", ExpectedStatus: http.StatusForbidden})
	before := a.AutFingerprint(t)
	token := c.Token()
	for _, sc := range []apptest.Scenario{
		{Name: "Create", Method: "POST", URL: "/studio/schedules/automations", Form: apptest.EditorForm(token, "MO")},
		{Name: "Save", Method: "POST", URL: base, Form: apptest.EditorForm(token, "TU")},
		{Name: "Pause", Method: "POST", URL: base + "/pause", Form: url.Values{"csrf_token": {token}, "rev": {"1"}}},
		{Name: "Delete", Method: "POST", URL: base + "/delete", Form: url.Values{"csrf_token": {token}, "rev": {"1"}}},
		{Name: "RunNow", Method: "POST", URL: base + "/run-now", Form: url.Values{"csrf_token": {token}}},
	} {
		sc.ExpectedStatus = http.StatusForbidden
		c.Check(t, sc)
	}
	if after := a.AutFingerprint(t); after != before {
		t.Errorf("an Author's posts changed state:\n%s\n%s", before, after)
	}
}

// TestAutomationDuplicate: Duplicate opens the editor filled in from the
// automation, named as a copy.
func TestAutomationDuplicate(t *testing.T) {
	a := apptest.New(t)
	au, err := a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: "Old news", Builtin: "stale-content",
		Preset: "custom", Rule: "FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18;BYMINUTE=5", Start: "2026-11-30T18:05", StaleAfterDays: 200})
	if err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{URL: "/studio/schedules/automations/new?from=" + au.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`value="Copy of Old news"`, `name="job" value="stale-content" checked`, `value="200"`,
			`name="monthly" value="last" checked`, `<option value="monthly" selected>`, "On the last day of every month at 18:05",
			fmt.Sprintf(`action="%s"`, "/studio/schedules/automations")}})
}
