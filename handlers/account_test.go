package handlers_test

import (
	"net/http"
	"net/url"
	"testing"
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
