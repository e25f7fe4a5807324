package studio_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"studio/engine/scheduler"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"studio/locales"
	"studio/web/templates"
)

// tick runs the scheduler once, as the ticker would.
func tick(a *apptest.App, t *testing.T) scheduler.TickReport {
	t.Helper()
	rep, err := a.Scheduler.RunDue(context.Background(), "manual")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSettingsPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	tick(a, t) // a heartbeat at 08:00 Istanbul, promising 08:05
	admin := a.Admin(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr")

	en := a.SignedIn(t, admin)
	en.SetCookie("tz", url.QueryEscape("Europe/Berlin"))
	apptest.RunScenarios(t, en, []apptest.Scenario{
		{Name: "English", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="en">`, "<title>Site settings · Studio</title>", "<h1>Site settings</h1>",
				`<a href="/studio/settings" aria-current="page">Settings</a>`,
				`<label for="timeZone">Time zone</label>`, `list="zones"`, `value="Europe/Istanbul"`,
				`<option value="Europe/Istanbul">Istanbul (UTC+3)</option>`,
				`<option value="Europe/Berlin">Berlin (UTC+1)</option>`,
				`<option value="America/St_Johns">St Johns (UTC-3:30)</option>`,
				`<option value="UTC">UTC</option>`,
				`data-testid="zone-current">Now: Istanbul (UTC+3).</span>`,
				"Your browser is set to Berlin (UTC+1):", "<code>Europe/Berlin</code>",
				`<span class="badge health-running" data-state="running">Running</span>`,
				`<time datetime="2026-11-02T05:00:00Z">08:00 Istanbul</time>`, "06:00 your time, Berlin",
				`<time datetime="2026-11-02T05:05:00Z">08:05 Istanbul</time>`,
				`data-testid="switch-state">Schedules and automations are running.</p>`,
				`href="/studio/settings?confirm=pause#pause-dialog" data-dialog="pause-dialog" data-testid="pause-open">Pause schedules and automations…</a>`,
				`<dialog id="pause-dialog" class="confirm" aria-labelledby="pause-title">`,
				`name="reason" required maxlength="500"`, `name="confirm" value="yes" required`,
				`name="dailyWriteCap" type="number" min="0" max="100000"`, `value="200"`,
				`<meter id="daily-cap-meter" min="0" max="200" value="0"></meter>`, "Used today: 0 of 200",
				`<script src="/static/dialog.js?v=`},
			NotExpectedContent: []string{`aria-labelledby="pause-title" open`, "resume-dialog", `data-testid="paused-banner"`}},
		{Name: "ConfirmStepWithoutJavaScript", URL: "/studio/settings?confirm=pause", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<dialog id="pause-dialog" class="confirm" aria-labelledby="pause-title" open>`,
				"Pause schedules and automations?"}},
		{Name: "UnknownConfirmStep", URL: "/studio/settings?confirm=delete", ExpectedStatus: http.StatusOK,
			NotExpectedContent: []string{" open>"}},
		{Name: "NavOnOtherPages", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<a href="/studio/settings">Settings</a>`}},
	})

	tr := a.SignedIn(t, owner)
	apptest.RunScenarios(t, tr, []apptest.Scenario{
		{Name: "Turkish", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, "<h1>Site ayarları</h1>", `aria-current="page">Ayarlar</a>`,
				`<label for="timeZone">Saat dilimi</label>`, `<option value="Europe/Istanbul">İstanbul (UTC+3)</option>`,
				"Şu an: İstanbul (UTC+3).", "<h2 id=\"schedules\">Zamanlamalar</h2>", "<h3>Zamanlayıcı</h3>",
				`data-state="running">Çalışıyor</span>`, "Son çalışma", "Pazartesi", "08:00 İstanbul",
				"<h3 id=\"kill-switch\">Acil durdurma</h3>", "Zamanlamalar ve otomasyonlar çalışıyor.",
				">Zamanlamaları ve otomasyonları duraklat…</a>", ">Zamanlamaları ve otomasyonları duraklat</button>",
				">Gerekçe</label>", ">Vazgeç</a>", "<h3>Günlük otomasyon yazma sınırı</h3>", "Bugün kullanılan: 0 / 200",
				">Kaydet</button>"},
			NotExpectedContent: []string{"Site settings", ">Running<", "Time zone", "Istanbul (UTC", "Kill switch", "Used today"}},
	})

	// Editors and below neither see the link nor open the page.
	for _, u := range []engine.User{a.Editor, a.Contributor} {
		c := a.SignedIn(t, u)
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: string(u.Role) + "/Page", URL: "/studio/settings", ExpectedStatus: http.StatusForbidden,
				ExpectedContent:    []string{"Your role does not allow this."},
				NotExpectedContent: []string{"time-zone-form"}},
			{Name: string(u.Role) + "/Nav", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				NotExpectedContent: []string{`href="/studio/settings"`}},
		})
	}
}

// TestHealthBadge renders each scheduler state in both languages: words and
// an icon class, never colour alone (glossary: Çalışıyor / Gecikmeli / Durdu).
func TestHealthBadge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ state, en, tr string }{
		{scheduler.HealthRunning, "Running", "Çalışıyor"},
		{scheduler.HealthLate, "Late", "Gecikmeli"},
		{scheduler.HealthStopped, "Stopped", "Durdu"},
	} {
		for lang, want := range map[string]string{"en": tc.en, "tr": tc.tr} {
			var buf bytes.Buffer
			if err := templates.HealthBadge(tc.state).Render(locales.With(context.Background(), lang), &buf); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != `<span class="badge health-`+tc.state+`" data-state="`+tc.state+`">`+want+`</span>` {
				t.Errorf("%s in %s: %s", tc.state, lang, got)
			}
			note := locales.For(lang).T("settings.health_" + tc.state + "_note")
			if note == "" || strings.HasPrefix(note, "settings.") {
				t.Errorf("%s in %s: no note", tc.state, lang)
			}
		}
	}
}

func TestSettingsTimeZone(t *testing.T) {
	t.Parallel()

	t.Run("BadZone", func(t *testing.T) {
		a := apptest.New(t)
		en := a.SignedIn(t, a.Admin(t))
		tr := a.SignedIn(t, a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr"))
		before := a.SettingsPrint(t)
		for _, zone := range []string{"Mars/Olympus", "", "Istanbul", "UTC+3", "<b>Berlin</b>"} {
			en.Check(t, apptest.Scenario{Name: "English/" + zone, Method: "POST", URL: "/studio/settings/time-zone",
				Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"2"}, "timeZone": {zone}},
				ExpectedStatus: http.StatusUnprocessableEntity,
				ExpectedContent: []string{`data-testid="error-timeZone">Choose a time zone from the list, such as Europe/Istanbul.</p>`,
					`value="` + strings.ReplaceAll(strings.ReplaceAll(zone, "<", "&lt;"), ">", "&gt;") + `"`,
					`data-testid="zone-current">Now: Istanbul (UTC+3).</span>`},
				NotExpectedContent: []string{"<b>Berlin</b>"}})
		}
		tr.Check(t, apptest.Scenario{Name: "Turkish", Method: "POST", URL: "/studio/settings/time-zone",
			Form:               url.Values{"csrf_token": {tr.Token()}, "rev": {"2"}, "timeZone": {"Mars/Olympus"}},
			ExpectedStatus:     http.StatusUnprocessableEntity,
			ExpectedContent:    []string{`data-testid="error-timeZone">Listeden bir saat dilimi seçin; örneğin Europe/Istanbul.</p>`},
			NotExpectedContent: []string{"Choose a time zone"}})
		en.Check(t, apptest.Scenario{Name: "Stale", Method: "POST", URL: "/studio/settings/time-zone",
			Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"1"}, "timeZone": {"Europe/Berlin"}},
			ExpectedStatus: http.StatusConflict,
			ExpectedContent: []string{`data-testid="alert">This changed somewhere else meanwhile. Load the latest version and try again.</p>`,
				`value="Europe/Berlin"`}})
		if after := a.SettingsPrint(t); after != before {
			t.Errorf("refused zone changes changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Relabels", func(t *testing.T) {
		a := apptest.New(t)
		rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00") // 06:00Z
		c := a.SignedIn(t, a.Admin(t))
		c.Check(t, apptest.Scenario{Name: "Save", Method: "POST", URL: "/studio/settings/time-zone",
			Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"2"}, "timeZone": {"Europe/Berlin"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/settings"}})
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Saved", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<p class="notice">Time zone saved.</p>`, `value="Europe/Berlin"`,
					"Now: Berlin (UTC+1).", `name="rev" value="3"`}},
			// The release keeps its instant: 09:00 in Istanbul shows as 07:00 in Berlin.
			{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Times are in Berlin (UTC+1) time.",
					`<time datetime="2026-11-02T06:00:00Z">07:00 Berlin</time>`}},
		})
		if r := a.Release(t, rel.ID); !r.ExecuteAt.Equal(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)) || r.When.TimeZone != "Europe/Istanbul" {
			t.Errorf("release after the zone change: %s %+v", r.ExecuteAt, r.When)
		}
		if n := countRows(t, a, `SELECT count(*) FROM audit WHERE action = 'site.time_zone'`); n != 1 {
			t.Errorf("audit rows = %d", n)
		}
	})
}

func countRows(t *testing.T, a *apptest.App, q string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestKillSwitchForms(t *testing.T) {
	t.Parallel()

	t.Run("Refusals", func(t *testing.T) {
		a := apptest.New(t)
		en := a.SignedIn(t, a.Admin(t))
		owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr")
		tr := a.SignedIn(t, owner)
		before := a.SettingsPrint(t)
		rows := []struct {
			Name   string
			Form   url.Values
			Status int
			En, Tr string
			Open   bool // the dialog comes back open, with the typed reason
		}{
			{"NoConfirmation", url.Values{"rev": {"0"}, "reason": {"Checking the feed"}}, 422,
				`data-testid="error-confirm">Tick the box to confirm.</p>`,
				`data-testid="error-confirm">Onaylamak için kutuyu işaretleyin.</p>`, true},
			{"NoReason", url.Values{"rev": {"0"}, "reason": {"  "}, "confirm": {"yes"}}, 422,
				`data-testid="error-reason">Say why, in one or two sentences (at most 500 characters).</p>`,
				`data-testid="error-reason">Gerekçeyi bir iki cümleyle yazın (en fazla 500 karakter).</p>`, true},
			{"TwoLines", url.Values{"rev": {"0"}, "reason": {"Checking\r\nthe feed"}, "confirm": {"yes"}}, 422,
				`data-testid="error-reason">Keep the reason on one line and under 500 characters.</p>`,
				`data-testid="error-reason">Gerekçeyi tek satırda ve 500 karakterden kısa tutun.</p>`, true},
			{"TooLong", url.Values{"rev": {"0"}, "reason": {strings.Repeat("a", 501)}, "confirm": {"yes"}}, 422,
				"Keep the reason on one line and under 500 characters.",
				"Gerekçeyi tek satırda ve 500 karakterden kısa tutun.", true},
			{"Stale", url.Values{"rev": {"3"}, "reason": {"Checking the feed"}, "confirm": {"yes"}}, 409,
				`data-testid="alert">This changed somewhere else meanwhile. Load the latest version and try again.</p>`,
				`data-testid="alert">Bu içerik bu arada başka bir yerde değişti. En güncelini yükleyip yeniden deneyin.</p>`, false},
		}
		for _, who := range []struct {
			Name string
			c    *apptest.Client
		}{{"English", en}, {"Turkish", tr}} {
			for _, row := range rows {
				want, other := row.En, row.Tr
				if who.Name == "Turkish" {
					want, other = row.Tr, row.En
				}
				form := apptest.WithToken(row.Form, who.c.Token())
				sc := apptest.Scenario{Name: who.Name + "/" + row.Name, Method: "POST", URL: "/studio/settings/pause", Form: form,
					ExpectedStatus: row.Status, ExpectedContent: []string{want}, NotExpectedContent: []string{other}}
				if row.Open {
					sc.ExpectedContent = append(sc.ExpectedContent, `aria-labelledby="pause-title" open>`)
					if row.Name == "NoConfirmation" {
						sc.ExpectedContent = append(sc.ExpectedContent, `value="Checking the feed"`)
					}
				} else {
					sc.NotExpectedContent = append(sc.NotExpectedContent, `aria-labelledby="pause-title" open>`)
				}
				who.c.Check(t, sc)
			}
		}
		// Resuming a site that runs: the page says so, nothing changes.
		en.Check(t, apptest.Scenario{Name: "ResumeNotPaused", Method: "POST", URL: "/studio/settings/resume",
			Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"0"}, "reason": {"Why not"}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="alert">Schedules are not paused. Reload the page to see the latest.</p>`,
				`data-testid="switch-state">Schedules and automations are running.</p>`}})
		if after := a.SettingsPrint(t); after != before {
			t.Errorf("refused kill switch forms changed state:\nbefore %s\nafter  %s", before, after)
		}
		// The editor may not, even with a valid form.
		ed := a.SignedIn(t, a.Editor)
		ed.Check(t, apptest.Scenario{Name: "Editor", Method: "POST", URL: "/studio/settings/pause",
			Form:           url.Values{"csrf_token": {ed.Token()}, "rev": {"0"}, "reason": {"Mine"}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"Your role does not allow this."}})
		if after := a.SettingsPrint(t); after != before {
			t.Errorf("an editor's pause changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("PauseWaitResume", func(t *testing.T) {
		a := apptest.New(t)
		rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00") // 06:00Z
		admin := a.Admin(t)
		c := a.SignedIn(t, admin)
		c.Check(t, apptest.Scenario{Name: "Pause", Method: "POST", URL: "/studio/settings/pause",
			Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"0"}, "reason": {"Checking <the> feed"}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/settings"}})
		if n := countRows(t, a, `SELECT count(*) FROM audit WHERE action = 'site.schedules_pause'
			AND json_extract(actor, '$.id') = ? AND json_extract(details, '$.reason') = 'Checking <the> feed'`, admin.ID); n != 1 {
			t.Fatalf("pause audit rows = %d", n)
		}
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Settings", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<p class="notice">Schedules and automations are paused.</p>`,
					`data-testid="switch-state">Schedules and automations are paused.</p>`,
					"Paused by Ada Admin", "Monday 2 November", "08:00 Istanbul", "Reason: Checking &lt;the&gt; feed",
					`data-testid="resume-open">Resume…</a>`, `<dialog id="resume-dialog" class="confirm" aria-labelledby="resume-title">`,
					"Resume schedules and automations?", "Releases that have waited less than an hour are published now",
					"Run schedules and automations again.", `data-testid="resume-submit">Resume</button>`,
					`name="rev" value="1"`},
				NotExpectedContent: []string{"pause-dialog", "<the>"}},
			{Name: "BannerForAdmin", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="paused-banner"`, `<h2 id="paused-banner-title">Schedules and automations are paused</h2>`,
					"Paused by Ada Admin", "Reason: Checking &lt;the&gt; feed",
					"Releases that come due wait, and are missed if the pause lasts more than an hour past their time.",
					`<a href="/studio/settings#kill-switch" data-testid="paused-banner-settings">Resume in the site settings</a>`}},
		})
		ed := a.SignedIn(t, a.Editor)
		ed.Check(t, apptest.Scenario{Name: "BannerForEditor", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="paused-banner"`, "Paused by Ada Admin"},
			NotExpectedContent: []string{"paused-banner-settings", `href="/studio/settings`}})
		a.SetLang(t, a.Contributor, "tr")
		co := a.SignedIn(t, a.Contributor)
		co.Check(t, apptest.Scenario{Name: "BannerTurkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<h2 id="paused-banner-title">Zamanlamalar ve otomasyonlar duraklatıldı</h2>`,
				"Duraklatan: Ada Admin", "2 Kasım Pazartesi", "Gerekçe: Checking &lt;the&gt; feed",
				"Zamanı gelen yayın paketleri bekletilir"},
			NotExpectedContent: []string{"Paused by", "paused-banner-settings"}})

		// The release waits at its time. (A minute late, not more: a release
		// more than two minutes overdue once resumed would make the request
		// backstop tick in the background, racing this test's own tick.)
		a.Clock.Set(time.Date(2026, 11, 2, 6, 1, 0, 0, time.UTC))
		if rep := tick(a, t); rep.Ran != 0 {
			t.Fatalf("tick while paused: %+v", rep)
		}
		if r := a.Release(t, rel.ID); r.State != release.StateScheduled {
			t.Fatalf("release while paused: %s", r.State)
		}
		c.Check(t, apptest.Scenario{Name: "Resume", Method: "POST", URL: "/studio/settings/resume",
			Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"1"}, "reason": {"Feed checked"}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/settings"}})
		c.Check(t, apptest.Scenario{Name: "Resumed", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<p class="notice">Schedules and automations are running again.</p>`, "pause-open"},
			NotExpectedContent: []string{"Paused by"}})
		if rep := tick(a, t); rep.Published != 1 || rep.Late != 1 {
			t.Fatalf("tick after resuming: %+v, want one late publish", rep)
		}
		if o := a.Release(t, rel.ID).Outcome; o == nil || o.LatenessSeconds == nil || *o.LatenessSeconds != 60 {
			t.Fatalf("outcome after resuming: %+v, want published 60 s late", o)
		}
		c.Check(t, apptest.Scenario{Name: "NoBanner", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Published"}, NotExpectedContent: []string{"paused-banner"}})
		if n := countRows(t, a, `SELECT count(*) FROM audit WHERE action = 'site.schedules_resume'
			AND json_extract(actor, '$.id') = ? AND json_extract(details, '$.reason') = 'Feed checked'`, admin.ID); n != 1 {
			t.Fatalf("resume audit rows = %d", n)
		}
	})
}

func TestDailyWriteCapForm(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	en := a.SignedIn(t, a.Admin(t))
	tr := a.SignedIn(t, a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr"))
	before := a.SettingsPrint(t)
	for _, v := range []string{"", "abc", "-5", "100001", "1.5"} {
		en.Check(t, apptest.Scenario{Name: "English/" + v, Method: "POST", URL: "/studio/settings/daily-write-cap",
			Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"0"}, "dailyWriteCap": {v}},
			ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="error-dailyWriteCap">Enter a whole number from 0 to 100,000.</p>`,
				`required value="` + v + `"`, "Used today: 0 of 200"}})
	}
	tr.Check(t, apptest.Scenario{Name: "Turkish", Method: "POST", URL: "/studio/settings/daily-write-cap",
		Form:            url.Values{"csrf_token": {tr.Token()}, "rev": {"0"}, "dailyWriteCap": {"-1"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-dailyWriteCap">0 ile 100.000 arasında bir tam sayı girin.</p>`}})
	en.Check(t, apptest.Scenario{Name: "Stale", Method: "POST", URL: "/studio/settings/daily-write-cap",
		Form:            url.Values{"csrf_token": {en.Token()}, "rev": {"4"}, "dailyWriteCap": {"150"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{`data-testid="alert">This changed somewhere else meanwhile.`, `required value="150"`}})
	if after := a.SettingsPrint(t); after != before {
		t.Errorf("refused caps changed state:\nbefore %s\nafter  %s", before, after)
	}
	en.Check(t, apptest.Scenario{Name: "Save", Method: "POST", URL: "/studio/settings/daily-write-cap",
		Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"0"}, "dailyWriteCap": {"150"}},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/settings"}})
	en.Check(t, apptest.Scenario{Name: "Saved", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<p class="notice">Daily write cap saved.</p>`, `required value="150"`,
			`<meter id="daily-cap-meter" min="0" max="150" value="0"></meter>`, "Used today: 0 of 150"}})
	if n := countRows(t, a, `SELECT count(*) FROM audit WHERE action = 'site.daily_write_cap'`); n != 1 {
		t.Errorf("audit rows = %d", n)
	}
}
