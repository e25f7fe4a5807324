package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine"
)

// Your account: a person changes their name and language; changes their
// password with the current one, which signs them out everywhere else but
// keeps them in here; signs out everywhere else. Bad input changes nothing.
func TestYourAccount(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	here, there := a.signedIn(t, a.editor), a.signedIn(t, a.editor)
	here.check(t, scenario{Name: "Page", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Your account</h1>", "You sign in as editor@example.com.", `value="Elif Editor"`,
			`autocomplete="current-password"`, `data-testid="end-other-sessions"`}})

	before := a.fingerprint(t)
	here.check(t, scenario{Name: "BadProfile", Method: "POST", URL: "/studio/account/profile",
		Form:            url.Values{"csrf_token": {here.token()}, "name": {" "}, "lang": {"de"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Enter a name (at most 120 characters).", "Studio does not speak that language yet."}})
	here.check(t, scenario{Name: "WeakNew", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.token()}, "current": {password}, "password": {"short"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"Choose a password of at least 10 characters."}})
	if a.fingerprint(t) != before {
		t.Fatal("a refused change changed something")
	}
	// A wrong current password is a guess, counted and audited as a
	// failed sign-in is.
	here.check(t, scenario{Name: "WrongCurrent", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.token()}, "current": {"not it at all"}, "password": {"a brand new secret"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"The current password is wrong."}})
	var failed int
	if err := a.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action = 'auth.sign_in_failed'`).Scan(&failed); err != nil || failed != 1 {
		t.Errorf("%d failed sign-ins audited (%v), want 1", failed, err)
	}
	there.check(t, scenario{Name: "StillThere", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})

	here.check(t, scenario{Name: "Profile", Method: "POST", URL: "/studio/account/profile",
		Form: url.Values{"csrf_token": {here.token()}, "name": {"Elif Yılmaz"}, "lang": {"tr"}}, ExpectedStatus: http.StatusSeeOther})
	here.check(t, scenario{Name: "Renamed", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Hesabınız</h1>", "Elif Yılmaz · Editör", "Kaydedildi."}})

	newPassword := "a brand new secret"
	here.check(t, scenario{Name: "Password", Method: "POST", URL: "/studio/account/password",
		Form:           url.Values{"csrf_token": {here.token()}, "current": {password}, "password": {newPassword}},
		ExpectedStatus: http.StatusSeeOther})
	here.check(t, scenario{Name: "StaysIn", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Parola değiştirildi."}})
	there.check(t, scenario{Name: "SignedOutThere", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
	old := a.client(t, "")
	token := old.csrf("/studio/login")
	old.check(t, scenario{Name: "OldPassword", Method: "POST", URL: "/studio/login",
		Form: url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}}, ExpectedStatus: http.StatusUnauthorized})
	again := a.client(t, "")
	token = again.csrf("/studio/login")
	again.check(t, scenario{Name: "NewPassword", Method: "POST", URL: "/studio/login",
		Form: url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {newPassword}}, ExpectedStatus: http.StatusSeeOther})

	here.check(t, scenario{Name: "EndOthers", Method: "POST", URL: "/studio/account/sessions/end-others",
		Form: url.Values{"csrf_token": {here.token()}}, ExpectedStatus: http.StatusSeeOther})
	here.check(t, scenario{Name: "HereStill", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Başka her yerdeki oturumlarınız kapatıldı."}})
	again.check(t, scenario{Name: "EndedElsewhere", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
}

// Your account's sessions (issue 15): each browser signed in is listed by
// its browser and system, this one marked; the person signs one of the
// others out, and its next page, API call and /health are nobody's; signing
// out takes a session off the list; a password change keeps this session
// listed and ends the others. Nobody signs out another person's session.
func TestAccountSessions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	browser := func(agent string) *client {
		c := a.client(t, "")
		c.agent = agent
		c.signIn(a.editor.Email)
		return c
	}
	desk := browser("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
	phone := browser("Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1")
	phoneID := a.lastSession(t, a.editor, "")
	res := desk.check(t, scenario{Name: "List", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Firefox on Linux", "Safari on iOS", `data-testid="this-session"`, `action="/studio/account/sessions/` + phoneID + `/end"`}})
	if n := strings.Count(res.Body, `data-testid="session-`); n != 2 {
		t.Fatalf("%d sessions listed, want 2", n)
	}

	// Someone else's session is not theirs to end.
	other := a.signedIn(t, a.contributor)
	other.check(t, scenario{Name: "NotTheirs", Method: "POST", URL: "/studio/account/sessions/" + phoneID + "/end",
		Form: url.Values{"csrf_token": {other.token()}}, ExpectedStatus: http.StatusNotFound})
	phone.check(t, scenario{Name: "PhoneStillIn", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})

	desk.check(t, scenario{Name: "EndPhone", Method: "POST", URL: "/studio/account/sessions/" + phoneID + "/end",
		Form: url.Values{"csrf_token": {desk.token()}}, ExpectedStatus: http.StatusSeeOther})
	phone.check(t, scenario{Name: "PhonePage", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": loginNext("/studio/schedules")}})
	if res := phone.get("/api/sites"); res.Status != http.StatusUnauthorized {
		t.Errorf("the signed-out phone's API call: %d", res.Status)
	}
	if res := phone.get("/health"); strings.Contains(res.Body, `"scheduler"`) {
		t.Errorf("the signed-out phone reads /health's details: %s", res.Body)
	}
	res = desk.check(t, scenario{Name: "AfterEnd", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"That session is signed out.", "Firefox on Linux"}, NotExpectedContent: []string{"Safari on iOS"}})

	// A password change keeps this session, listed, and ends the others,
	// for the API too.
	laptop := browser("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0 Safari/537.36")
	desk.check(t, scenario{Name: "ChangePassword", Method: "POST", URL: "/studio/account/password", ExpectedStatus: http.StatusSeeOther,
		Form: url.Values{"csrf_token": {desk.token()}, "current": {password}, "password": {"another long secret"}}})
	if res := laptop.get("/api/sites"); res.Status != http.StatusUnauthorized {
		t.Errorf("the laptop's API call after the password changed: %d", res.Status)
	}
	res = desk.check(t, scenario{Name: "AfterPassword", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Firefox on Linux", `data-testid="this-session"`}, NotExpectedContent: []string{"Chrome on macOS"}})
	if n := strings.Count(res.Body, `data-testid="session-`); n != 1 {
		t.Errorf("%d sessions after the password change, want this one", n)
	}

	// Signing out takes the session off the list.
	deskID := a.lastSession(t, a.editor, "Firefox")
	desk.check(t, scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {desk.token()}},
		ExpectedStatus: http.StatusSeeOther})
	var ended bool
	if err := a.store.DB().QueryRow(`SELECT ended_at IS NOT NULL FROM user_sessions WHERE id = ?`, deskID).Scan(&ended); err != nil || !ended {
		t.Errorf("the signed-out session's row: ended %v, %v", ended, err)
	}
}

// lastSession is the id of the person's session signed in last (in
// browser, unless "").
func (a *testApp) lastSession(t *testing.T, u engine.User, browser string) string {
	t.Helper()
	var id string
	if err := a.store.DB().QueryRow(`SELECT id FROM user_sessions WHERE user_id = ? AND (? = '' OR browser = ?)
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, u.ID, browser, browser).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
