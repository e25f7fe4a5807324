package studio_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/handlers/internal/apptest"
)

// Your account: a person changes their name and language; changes their
// password with the current one, which signs them out everywhere else but
// keeps them in here; signs out everywhere else. Bad input changes nothing.
func TestYourAccount(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	here, there := a.SignedIn(t, a.Editor), a.SignedIn(t, a.Editor)
	here.Check(t, apptest.Scenario{Name: "Page", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Your account</h1>", "You sign in as editor@example.com.", `value="Elif Editor"`,
			`autocomplete="current-password"`, `data-testid="end-other-sessions"`}})

	before := a.Fingerprint(t)
	here.Check(t, apptest.Scenario{Name: "BadProfile", Method: "POST", URL: "/studio/account/profile",
		Form:            url.Values{"csrf_token": {here.Token()}, "name": {" "}, "lang": {"de"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Enter a name (at most 120 characters).", "Studio does not speak that language yet."}})
	here.Check(t, apptest.Scenario{Name: "WeakNew", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.Token()}, "current": {apptest.Password}, "password": {"short"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"Choose a password of at least 10 characters."}})
	if a.Fingerprint(t) != before {
		t.Fatal("a refused change changed something")
	}
	// A wrong current password is a guess, counted and audited as a
	// failed sign-in is.
	here.Check(t, apptest.Scenario{Name: "WrongCurrent", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.Token()}, "current": {"not it at all"}, "password": {"a brand new secret"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"The current password is wrong."}})
	var failed int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action = 'auth.sign_in_failed'`).Scan(&failed); err != nil || failed != 1 {
		t.Errorf("%d failed sign-ins audited (%v), want 1", failed, err)
	}
	there.Check(t, apptest.Scenario{Name: "StillThere", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})

	here.Check(t, apptest.Scenario{Name: "Profile", Method: "POST", URL: "/studio/account/profile",
		Form: url.Values{"csrf_token": {here.Token()}, "name": {"Elif Yılmaz"}, "lang": {"tr"}}, ExpectedStatus: http.StatusSeeOther})
	here.Check(t, apptest.Scenario{Name: "Renamed", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Hesabınız</h1>", "Elif Yılmaz · Editör", "Kaydedildi."}})

	newPassword := "a brand new secret"
	here.Check(t, apptest.Scenario{Name: "Password", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.Token()}, "current": {apptest.Password}, "password": {newPassword}},
		ExpectedStatus: http.StatusSeeOther})
	here.Check(t, apptest.Scenario{Name: "StaysIn", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Parola değiştirildi."}})
	there.Check(t, apptest.Scenario{Name: "SignedOutThere", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
	old := a.Client(t, "")
	token := old.CSRF("/studio/login")
	old.Check(t, apptest.Scenario{Name: "OldPassword", Method: "POST", URL: "/studio/login",
		Form: url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}}, ExpectedStatus: http.StatusUnauthorized})
	again := a.Client(t, "")
	token = again.CSRF("/studio/login")
	again.Check(t, apptest.Scenario{Name: "NewPassword", Method: "POST", URL: "/studio/login",
		Form: url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {newPassword}}, ExpectedStatus: http.StatusSeeOther})

	here.Check(t, apptest.Scenario{Name: "EndOthers", Method: "POST", URL: "/studio/account/sessions/end-others",
		Form: url.Values{"csrf_token": {here.Token()}}, ExpectedStatus: http.StatusSeeOther})
	here.Check(t, apptest.Scenario{Name: "HereStill", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Başka her yerdeki oturumlarınız kapatıldı."}})
	again.Check(t, apptest.Scenario{Name: "EndedElsewhere", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
}

// Your account's sessions (issue 15): each browser signed in is listed by
// its browser and system, this one marked; the person signs one of the
// others out, and its next page, API call and /health are nobody's; signing
// out takes a session off the list; a password change keeps this session
// listed and ends the others. Nobody signs out another person's session.
func TestAccountSessions(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	browser := func(agent string) *apptest.Client {
		c := a.Client(t, "")
		c.Agent = agent
		c.SignIn(a.Editor.Email)
		return c
	}
	desk := browser("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
	phone := browser("Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1")
	phoneID := a.LastSession(t, a.Editor, "")
	res := desk.Check(t, apptest.Scenario{Name: "List", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Firefox on Linux", "Safari on iOS", `data-testid="this-session"`, `action="/studio/account/sessions/` + phoneID + `/end"`}})
	if n := strings.Count(res.Body, `data-testid="session-`); n != 2 {
		t.Fatalf("%d sessions listed, want 2", n)
	}

	// Someone else's session is not theirs to end.
	other := a.SignedIn(t, a.Contributor)
	other.Check(t, apptest.Scenario{Name: "NotTheirs", Method: "POST", URL: "/studio/account/sessions/" + phoneID + "/end",
		Form: url.Values{"csrf_token": {other.Token()}}, ExpectedStatus: http.StatusNotFound})
	phone.Check(t, apptest.Scenario{Name: "PhoneStillIn", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})

	desk.Check(t, apptest.Scenario{Name: "EndPhone", Method: "POST", URL: "/studio/account/sessions/" + phoneID + "/end",
		Form: url.Values{"csrf_token": {desk.Token()}}, ExpectedStatus: http.StatusSeeOther})
	phone.Check(t, apptest.Scenario{Name: "PhonePage", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}})
	if res := phone.Get("/api/sites"); res.Status != http.StatusUnauthorized {
		t.Errorf("the signed-out phone's API call: %d", res.Status)
	}
	if res := phone.Get("/health"); strings.Contains(res.Body, `"scheduler"`) {
		t.Errorf("the signed-out phone reads /health's details: %s", res.Body)
	}
	res = desk.Check(t, apptest.Scenario{Name: "AfterEnd", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"That session is signed out.", "Firefox on Linux"}, NotExpectedContent: []string{"Safari on iOS"}})

	// A password change keeps this session, listed, and ends the others,
	// for the API too.
	laptop := browser("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0 Safari/537.36")
	desk.Check(t, apptest.Scenario{Name: "ChangePassword", Method: "POST", URL: "/studio/account/password", ExpectedStatus: http.StatusSeeOther,
		Form: url.Values{"csrf_token": {desk.Token()}, "current": {apptest.Password}, "password": {"another long secret"}}})
	if res := laptop.Get("/api/sites"); res.Status != http.StatusUnauthorized {
		t.Errorf("the laptop's API call after the password changed: %d", res.Status)
	}
	res = desk.Check(t, apptest.Scenario{Name: "AfterPassword", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Firefox on Linux", `data-testid="this-session"`}, NotExpectedContent: []string{"Chrome on macOS"}})
	if n := strings.Count(res.Body, `data-testid="session-`); n != 1 {
		t.Errorf("%d sessions after the password change, want this one", n)
	}

	// Signing out takes the session off the list.
	deskID := a.LastSession(t, a.Editor, "Firefox")
	desk.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {desk.Token()}},
		ExpectedStatus: http.StatusSeeOther})
	var ended bool
	if err := a.Store.DB().QueryRow(`SELECT ended_at IS NOT NULL FROM user_sessions WHERE id = ?`, deskID).Scan(&ended); err != nil || !ended {
		t.Errorf("the signed-out session's row: ended %v, %v", ended, err)
	}
}
