package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"studio/handlers/internal/apptest"
)

func TestLanguageSwitch(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "English", URL: "/studio/content", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<html lang="en">`, `<a href="/studio/schedules">Schedules <span id="attention-count" class="nav-count"></span></a>`},
			NotExpectedContent: []string{"Zamanlamalar"}},
		{Name: "Unsupported", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"de"}},
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"Studio does not speak that language yet."}},
		{Name: "Switch", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"tr"}},
			Header:         map[string]string{"Referer": a.URL + "/studio/content?kind=page"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/content?kind=page"}},
		{Name: "Turkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, `<a href="/studio/schedules" aria-current="page">Zamanlamalar <span id="attention-count" class="nav-count"></span></a>`,
				">İçerik</a>", ">Çıkış yap</button>", `value="tr" lang="tr" aria-pressed="true"`},
			NotExpectedContent: []string{">Schedules<", "Sign out"}},
		{Name: "OffsiteReferer", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"tr"}},
			Header:         map[string]string{"Referer": "https://evil.example/studio/content"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}},
	})
	if u, err := a.Identity.User(context.Background(), a.Editor.ID); err != nil || u.Lang != "tr" {
		t.Errorf("account language %q (%v), want tr", u.Lang, err)
	}
	c.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout",
		Form: url.Values{"csrf_token": {token}}, ExpectedStatus: http.StatusSeeOther})

	// Remembered on the account: a new browser, even one asking for English.
	again := a.Client(t, "en")
	again.SignIn(a.Editor.Email)
	again.Check(t, apptest.Scenario{Name: "Remembered", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "Zamanlamalar"}, NotExpectedContent: []string{">Schedules<"}})

	// Signed out, the choice lives in the session.
	anon := a.Client(t, "en")
	anon.Check(t, apptest.Scenario{Name: "SignedOutSwitch", Method: "POST", URL: "/studio/lang",
		Form:           url.Values{"csrf_token": {anon.CSRF("/studio/login")}, "lang": {"tr"}},
		Header:         map[string]string{"Referer": a.URL + "/studio/login"},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
	anon.Check(t, apptest.Scenario{Name: "SignedOutTurkish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "Giriş yap"}})
}

// TestLanguageIsolation renders the Agenda for an English and a Turkish
// person at once: every response must be in its person's language alone
// (miniflux once shared a printer between requests).
func TestLanguageIsolation(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.SetLang(t, a.Contributor, "tr")
	en := a.SignedIn(t, a.Editor)
	tr := a.SignedIn(t, a.Contributor)

	langs := []struct {
		Name     string
		c        *apptest.Client
		has, not []string
	}{
		{"English", en,
			[]string{`<html lang="en">`, ">Schedules <span id=\"attention-count\"", "<h1>Schedules</h1>", "Today · Monday 2 November",
				">Scheduled</span>", "by Elif Editor", "Times are in Istanbul (UTC+3) time.", "Elif Editor · Editor"},
			[]string{"Zamanlamalar", "Bugün", "Kasım", "Zamanlandı", "zamanladı", "İstanbul", "Çıkış"}},
		{"Turkish", tr,
			[]string{`<html lang="tr">`, ">Zamanlamalar <span id=\"attention-count\"", "<h1>Zamanlamalar</h1>", "Bugün · 2 Kasım Pazartesi",
				">Zamanlandı</span>", "Elif Editor zamanladı", "Saatler İstanbul saatine (UTC+3) göredir.",
				"Chris Contributor · Katkıda bulunan"},
			[]string{"Schedules", "Today", "November", ">Scheduled<", "by Elif", "Istanbul (", "Sign out"}},
	}
	const rounds = 20
	var wg sync.WaitGroup
	for i := 0; i < rounds; i++ {
		for _, l := range langs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := l.c.TryDo(http.MethodGet, "/studio/schedules", nil, nil)
				if err != nil {
					t.Errorf("%s: %v", l.Name, err)
					return
				}
				if res.Status != http.StatusOK {
					t.Errorf("%s: status %d", l.Name, res.Status)
					return
				}
				for _, s := range l.has {
					if !strings.Contains(res.Body, s) {
						t.Errorf("%s Agenda lacks %q", l.Name, s)
					}
				}
				for _, s := range l.not {
					if strings.Contains(res.Body, s) {
						t.Errorf("%s Agenda has %q", l.Name, s)
					}
				}
			}()
		}
	}
	wg.Wait()
}
