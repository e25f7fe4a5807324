package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

func TestScheduleForm(t *testing.T) {
	t.Parallel()

	t.Run("ZoneNote", func(t *testing.T) {
		a := apptest.New(t)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		a.SignedIn(t, a.Editor).Check(t, apptest.Scenario{Name: "English", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="zone-note">Times are in Istanbul (UTC+3) time.</p>`,
				"Schedule “Election night live”", `name="rev" value="1"`, `min="2026-11-02"`,
				"It will be published at this time without further approval."}})
		a.SetLang(t, a.Contributor, "tr")
		a.SignedIn(t, a.Contributor).Check(t, apptest.Scenario{Name: "Turkish", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="zone-note">Saatler İstanbul saatine (UTC+3) göredir.</p>`,
				"“Election night live” için yayım zamanla",
				"Yayımlanmadan önce bir editörün onaylaması gerekir."},
			NotExpectedContent: []string{"Istanbul ("}})
	})

	t.Run("Schedule", func(t *testing.T) {
		a := apptest.New(t)
		c := a.SignedIn(t, a.Editor)
		token := c.CSRF("/studio/content/" + a.Draft.ID + "/schedule")
		c.Check(t, apptest.Scenario{Name: "Post", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		agenda := c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<p class="notice">Scheduled.</p>`,
				`<h2 id="day-2026-11-02">Today · Monday 2 November</h2>`,
				`<time datetime="2026-11-02T06:00:00Z">09:00 Istanbul</time>`,
				">Election night live</a>", `data-state="scheduled">Scheduled</span>`, "by Elif Editor"}})
		ids := apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 1 {
			t.Fatalf("Agenda lists releases %v, want one", ids)
		}
		c.Check(t, apptest.Scenario{Name: "FlashOnce", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			NotExpectedContent: []string{`<p class="notice">`}})
		c.Check(t, apptest.Scenario{Name: "Release", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Election night live</h1>", `data-state="scheduled">Scheduled</span>`,
				"Monday 2 November 2026", "09:00 Istanbul", "pinned version 2", "Not live",
				`data-testid="unschedule-open">Unschedule…</a>`, `data-testid="cancel-open">Cancel release…</a>`,
				`<button type="submit" class="danger" data-testid="cancel">Cancel release</button>`},
			// Neither dialog comes open: one click asks, never does.
			NotExpectedContent: []string{`aria-describedby="cancel-effects" open`, `aria-describedby="unschedule-effects" open`}})
		// Without JavaScript, the link is the confirm step: the dialog
		// open in the page, naming what canceling does.
		c.Check(t, apptest.Scenario{Name: "ConfirmCancel", URL: "/studio/releases/" + ids[0] + "?confirm=cancel", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`aria-describedby="cancel-effects" open>`, "Cancel “Election night live”?",
				"It ends without publishing anything. Undo is offered for a few seconds", `data-testid="cancel-keep">Keep it</a>`},
			NotExpectedContent: []string{`aria-describedby="unschedule-effects" open`}})
		// Scheduling it again is an overlap (D15, §6.2): warned, allowed,
		// and flagged on both release pages with the other's time.
		c.Check(t, apptest.Scenario{Name: "Held", URL: "/studio/content/" + a.Draft.ID + "/schedule", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="overlap">This is already in another release, publishing Monday 2 November 09:00. You can still schedule it`},
			NotExpectedContent: []string{`data-testid="alert"`}})
		c.Check(t, apptest.Scenario{Name: "ScheduleAgain", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-02"}, "time": {"10:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		if n := a.ReleaseCount(t); n != 2 {
			t.Errorf("%d releases, want 2", n)
		}
		both := apptest.AgendaReleaseIDs(c.Check(t, apptest.Scenario{Name: "AgendaOverlap", URL: "/studio/schedules", ExpectedStatus: http.StatusOK}).Body)
		if len(both) != 2 || both[0] != ids[0] {
			t.Fatalf("Agenda lists releases %v, want %s and the 10:00 one", both, ids[0])
		}
		c.Check(t, apptest.Scenario{Name: "FirstFlagsTheLater", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap-` + both[1] + `"`}})
		c.Check(t, apptest.Scenario{Name: "LaterFlagsTheFirst", URL: "/studio/releases/" + both[1], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap-` + ids[0] + `"`}})

		// A live article with a newer working copy: both versions show.
		if _, err := a.Nodes.SaveNode(context.Background(), a.Editor, a.Site.ID, a.Live.ID, 1,
			apptest.WithTitle(a.Live.Body, "Welcome to the Gazette, again")); err != nil {
			t.Fatal(err)
		}
		c.Check(t, apptest.Scenario{Name: "PostLive", Method: "POST", URL: "/studio/content/" + a.Live.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-03"}, "time": {"18:30"}},
			ExpectedStatus: http.StatusSeeOther})
		agenda = c.Check(t, apptest.Scenario{Name: "AgendaTwoDays", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Today · Monday 2 November", "Tomorrow · Tuesday 3 November", "18:30 Istanbul"}})
		ids = apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 3 {
			t.Fatalf("Agenda lists releases %v, want three", ids)
		}
		c.Check(t, apptest.Scenario{Name: "ReleaseOfLive", URL: "/studio/releases/" + ids[2], ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"pinned version 2", "live version 1"},
			NotExpectedContent: []string{"Not live"}})

		// Turkish.
		a.SetLang(t, a.Editor, "tr")
		c.Check(t, apptest.Scenario{Name: "AgendaTurkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, "Bugün · 2 Kasım Pazartesi", "Yarın · 3 Kasım Salı",
				"09:00 İstanbul", `data-state="scheduled">Zamanlandı</span>`, "Elif Editor zamanladı"},
			NotExpectedContent: []string{"Today", "Scheduled", "by Elif"}})
		c.Check(t, apptest.Scenario{Name: "HeldTurkish", URL: "/studio/content/" + a.Draft.ID + "/schedule", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap">Bu içerik başka bir yayın paketinde de var; o paketin yayım zamanı: 2 Kasım Pazartesi 09:00.`}})
		c.Check(t, apptest.Scenario{Name: "ReleaseTurkish", URL: "/studio/releases/" + ids[2], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"sabitlenmiş sürüm 2", "yayındaki sürüm 1", "3 Kasım 2026 Salı",
				">Zamanlamayı kaldır…</a>", ">Yayın paketini iptal et…</a>", "“Welcome to the Gazette, again” iptal edilsin mi?",
				"Hiçbir şey yayımlanmadan sona erer. Birkaç saniye boyunca geri alabilirsiniz", `data-testid="cancel-keep">Vazgeç</a>`}})
	})

	t.Run("BadInput", func(t *testing.T) {
		rows := []struct {
			Name, Date, Time, Rev string
			Status                int
			TestID, En, Tr        string
		}{
			{"MalformedDate", "2026-13-01", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"DottedDate", "02.11.2026", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"NoSuchDay", "2026-02-30", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"MalformedTime", "2026-11-02", "9am", "1", 422, "error-time",
				"Enter a time, such as 09:00.", "Geçerli bir saat girin (örneğin 09:00)."},
			{"NoSuchTime", "2026-11-02", "24:00", "1", 422, "error-time",
				"Enter a time, such as 09:00.", "Geçerli bir saat girin (örneğin 09:00)."},
			{"Past", "2026-11-02", "07:59", "1", 422, "error-time",
				"This time has already passed. Choose a later one.", "Bu saat geçti. Daha sonraki bir saat seçin."},
			{"Yesterday", "2026-11-01", "12:00", "1", 422, "error-time",
				"This time has already passed. Choose a later one.", "Bu saat geçti. Daha sonraki bir saat seçin."},
			{"Now", "2026-11-02", "08:00", "1", 422, "error-time",
				"Choose a time at least one minute from now, or publish now.",
				"En az bir dakika sonrası için bir saat seçin ya da şimdi yayımlayın."},
			{"TooFar", "2027-11-04", "09:00", "1", 422, "error-time",
				"Choose a time within the next 366 days.", "Önümüzdeki 366 gün içinde bir tarih seçin."},
			{"Stale", "2026-11-02", "09:00", "0", 409, "alert",
				"This changed somewhere else meanwhile. Load the latest version and try again.",
				"Bu içerik bu arada başka bir yerde değişti. En güncelini yükleyip yeniden deneyin."},
		}
		a := apptest.New(t)
		en := a.SignedIn(t, a.Editor)
		a.SetLang(t, a.Contributor, "tr")
		tr := a.SignedIn(t, a.Contributor)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		for _, who := range []struct {
			Name string
			c    *apptest.Client
		}{{"English", en}, {"Turkish", tr}} {
			token := who.c.CSRF(u)
			for _, row := range rows {
				msg, other := row.En, row.Tr
				if who.Name == "Turkish" {
					msg, other = row.Tr, row.En
				}
				who.c.Check(t, apptest.Scenario{Name: who.Name + "/" + row.Name, Method: "POST", URL: u,
					Form:           url.Values{"csrf_token": {token}, "rev": {row.Rev}, "date": {row.Date}, "time": {row.Time}},
					ExpectedStatus: row.Status,
					ExpectedContent: []string{`data-testid="` + row.TestID + `">` + msg + `</p>`,
						`data-testid="schedule-form"`, `value="` + row.Date + `"`, `value="` + row.Time + `"`},
					NotExpectedContent: []string{other}})
			}
		}
		if n := a.ReleaseCount(t); n != 0 {
			t.Errorf("%d releases after refused schedules, want none", n)
		}
		if d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, a.Draft.ID); err != nil || d.Rev != 1 {
			t.Errorf("draft at rev %d (%v) after refused schedules, want 1", d.Rev, err)
		}
		// The last good minute and the first: 366 days ahead is in.
		en.Check(t, apptest.Scenario{Name: "Horizon", Method: "POST", URL: u,
			Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"1"}, "date": {"2027-11-03"}, "time": {"08:00"}},
			ExpectedStatus: http.StatusSeeOther})
	})

	t.Run("Contributor", func(t *testing.T) {
		a := apptest.New(t)
		c := a.SignedIn(t, a.Contributor)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		c.Check(t, apptest.Scenario{Name: "Post", Method: "POST", URL: u,
			Form:           url.Values{"csrf_token": {c.CSRF(u)}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		agenda := c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Scheduled and sent for approval.", `data-state="awaiting_approval">Waiting for approval</span>`,
				"by Chris Contributor", "Today · Monday 2 November"},
			NotExpectedContent: []string{`data-state="scheduled"`}})
		ids := apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 1 {
			t.Fatalf("Agenda lists releases %v, want one", ids)
		}
		if r := a.Release(t, ids[0]); r.State != release.StateAwaitingApproval {
			t.Errorf("release state %s, want awaiting_approval", r.State)
		}
		// Their own request: they may take it back.
		c.Check(t, apptest.Scenario{Name: "Release", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="unschedule"`, `data-testid="cancel"`}})
	})

	t.Run("UndoUnschedule", func(t *testing.T) {
		a := apptest.New(t)
		rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
		c := a.SignedIn(t, a.Editor)
		token := c.Token()
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Unschedule", Method: "POST", URL: "/studio/releases/" + rel.ID + "/unschedule",
				Form: url.Values{"csrf_token": {token}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther},
			{Name: "Offered", URL: "/studio/releases/" + rel.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="undo-toast"`}},
			// Its form is the draft's Schedule, at the time it had.
			{Name: "Undo", Method: "POST", URL: "/studio/releases/" + rel.ID + "/schedule",
				Form: url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-02"}, "time": {"09:00"}}, ExpectedStatus: http.StatusSeeOther},
			{Name: "BackAtItsTime", URL: "/studio/releases/" + rel.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-state="scheduled">Scheduled</span>`, `<time datetime="2026-11-02T06:00:00Z">09:00 Istanbul</time>`}},
			{Name: "UnscheduleAgain", Method: "POST", URL: "/studio/releases/" + rel.ID + "/unschedule",
				Form: url.Values{"csrf_token": {token}, "rev": {"3"}}, ExpectedStatus: http.StatusSeeOther},
		})
		// Ten seconds later the offer is gone.
		a.Clock.Advance(11 * time.Second)
		c.Check(t, apptest.Scenario{Name: "TooLate", URL: "/studio/releases/" + rel.ID, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-state="draft">Draft</span>`}, NotExpectedContent: []string{`data-testid="undo-toast"`}})
	})

	t.Run("UnscheduleAndCancel", func(t *testing.T) {
		a := apptest.New(t)
		first := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
		second := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
		c := a.SignedIn(t, a.Editor)
		token := c.Token()
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "StaleCancel", Method: "POST", URL: "/studio/releases/" + first.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"7"}}, ExpectedStatus: http.StatusConflict,
				ExpectedContent: []string{`data-testid="alert">This changed somewhere else meanwhile.`}},
			{Name: "Unschedule", Method: "POST", URL: "/studio/releases/" + first.ID + "/unschedule",
				Form: url.Values{"csrf_token": {token}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/releases/" + first.ID}},
			// The page offers, for ten seconds, to put it back at its time.
			{Name: "Unscheduled", URL: "/studio/releases/" + first.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Unscheduled. It is a draft again and can be edited.", `data-state="draft">Draft</span>`,
					`action="/studio/releases/` + first.ID + `/schedule" class="toast" data-undo-seconds="10"`,
					`name="date" value="2026-11-02"`, `name="time" value="09:00"`, "Undo schedules it again for 2 November 2026, 09:00."},
				NotExpectedContent: []string{`data-testid="unschedule"`}},
			{Name: "OfferedOnce", URL: "/studio/releases/" + first.ID, ExpectedStatus: http.StatusOK,
				NotExpectedContent: []string{`data-testid="undo-toast"`}},
			{Name: "Cancel", Method: "POST", URL: "/studio/releases/" + second.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther},
			{Name: "Canceled", URL: "/studio/releases/" + second.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Canceled. Nothing will be published.", `data-state="canceled">Canceled</span>`,
					`data-testid="release-outcome">Canceled on 2 November 2026, 08:00.</dd>`},
				NotExpectedContent: []string{`data-testid="cancel"`, `data-testid="unschedule"`}},
			{Name: "CancelAgain", Method: "POST", URL: "/studio/releases/" + second.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"2"}}, ExpectedStatus: http.StatusUnprocessableEntity,
				ExpectedContent: []string{"This release can no longer be changed this way."}},
			{Name: "AgendaEmpty", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="agenda-empty"`}},
		})
	})
}

func TestViewerTimeZone(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	preview := "/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-02&time=09:00"
	fragment := map[string]string{"Content-Type": "text/html; charset=utf-8"}

	berlin := a.SignedIn(t, a.Editor)
	berlin.SetCookie("tz", url.QueryEscape("Europe/Berlin")) // as studio.js sets it
	local := a.SignedIn(t, a.Editor)
	local.SetCookie("tz", "Europe%2FIstanbul")
	bogus := a.SignedIn(t, a.Editor)
	bogus.SetCookie("tz", "Mars%2FOlympus")
	plain := a.SignedIn(t, a.Editor)

	apptest.RunScenarios(t, berlin, []apptest.Scenario{
		{Name: "Berlin", URL: preview, ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			ExpectedContent: []string{`data-testid="preview"`, "Monday 2 November", "09:00 Istanbul",
				"07:00 your time, Berlin"},
			NotExpectedContent: []string{"<html", "<body"}},
		{Name: "BadDate", URL: "/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-31&time=09:00",
			ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			NotExpectedContent: []string{`data-testid="preview"`}},
	})
	apptest.RunScenarios(t, plain, []apptest.Scenario{
		{Name: "NoCookie", URL: preview, ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time"}},
	})
	apptest.RunScenarios(t, local, []apptest.Scenario{
		{Name: "SameZone", URL: preview, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time"}},
	})
	apptest.RunScenarios(t, bogus, []apptest.Scenario{
		{Name: "UnknownZone", URL: preview, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time", "Olympus"}},
	})

	// The Agenda shows both clocks too, and Turkish words for them.
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	berlin.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"09:00 Istanbul", "07:00 your time, Berlin"}})
	a.SetLang(t, a.Editor, "tr")
	berlin.Check(t, apptest.Scenario{Name: "Turkish", URL: preview, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 Kasım Pazartesi", "09:00 İstanbul", "sizin saatinizle 07:00 (Berlin)"}})
}

// TestSchedulePreviewText reads the preview as a person does: its text.
func TestSchedulePreviewText(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	res := c.Get("/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-02&time=09:00")
	if got, want := textOf(res.Body), "Publishes on Monday 2 November at 09:00 Istanbul"; !strings.Contains(got, want) {
		t.Errorf("preview reads %q, want it to contain %q", got, want)
	}
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

func textOf(html string) string {
	return strings.Join(strings.Fields(tagRe.ReplaceAllString(html, "")), " ")
}
