package studio_test

import (
	"net/http"
	"net/url"
	"testing"

	"studio/handlers/internal/apptest"
)

func TestSignIn(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)

	t.Run("English", func(t *testing.T) {
		c := a.Client(t, "en-GB,en;q=0.9")
		token := c.CSRF("/studio/login")
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Form", URL: "/studio/login", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<html lang="en">`, `<form method="post" action="/studio/login"`,
					`name="email"`, `name="password" type="password"`, `name="csrf_token" value="` + token + `"`, "Sign in to Studio"},
				NotExpectedContent: []string{"Sign out"}},
			{Name: "WrongPassword", Method: "POST", URL: "/studio/login",
				Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {"wrong password"}},
				ExpectedStatus: http.StatusUnauthorized,
				ExpectedContent: []string{`data-testid="alert">The email or the password is wrong.</p>`,
					`value="` + a.Editor.Email + `"`},
				NotExpectedContent: []string{"wrong password", "Elif Editor"}},
			{Name: "UnknownEmail", Method: "POST", URL: "/studio/login",
				Form:            url.Values{"csrf_token": {token}, "email": {"nobody@example.com"}, "password": {apptest.Password}},
				ExpectedStatus:  http.StatusUnauthorized,
				ExpectedContent: []string{"The email or the password is wrong."}},
			{Name: "NoToken", Method: "POST", URL: "/studio/login",
				Form:            url.Values{"email": {a.Editor.Email}, "password": {apptest.Password}},
				ExpectedStatus:  http.StatusForbidden,
				ExpectedContent: []string{"This form has expired."}},
			{Name: "StillSignedOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}},
		})
	})

	t.Run("Turkish", func(t *testing.T) {
		c := a.Client(t, "tr-TR,tr;q=0.9,en;q=0.5")
		token := c.CSRF("/studio/login")
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Form", URL: "/studio/login", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<html lang="tr">`, "Giriş yap", "Parola"}},
			{Name: "WrongPassword", Method: "POST", URL: "/studio/login",
				Form:               url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {"yanlış parola"}},
				ExpectedStatus:     http.StatusUnauthorized,
				ExpectedContent:    []string{`data-testid="alert">E-posta ya da parola yanlış.</p>`},
				NotExpectedContent: []string{"The email or the password is wrong."}},
		})
	})

	t.Run("SignInAndOut", func(t *testing.T) {
		c := a.Client(t, "")
		token := c.CSRF("/studio/login")
		// Looking at the form stores no session; choosing a language does.
		c.Check(t, apptest.Scenario{Name: "Language", Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"en"}}, ExpectedStatus: http.StatusSeeOther})
		before := c.Cookie(apptest.SessionCookie)
		if before == "" {
			t.Fatal("no session cookie after choosing a language")
		}
		res := c.Check(t, apptest.Scenario{Name: "CorrectPassword", Method: "POST", URL: "/studio/login",
			Form:            url.Values{"csrf_token": {token}, "email": {"EDITOR@example.com"}, "password": {apptest.Password}},
			ExpectedStatus:  http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio"}})
		var ck *http.Cookie
		for _, k := range res.Raw.Cookies() {
			if k.Name == apptest.SessionCookie {
				ck = k
			}
		}
		if ck == nil {
			t.Fatal("sign-in set no session cookie")
		}
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
			t.Errorf("session cookie HttpOnly=%v SameSite=%v Path=%q, want HttpOnly, Lax, /", ck.HttpOnly, ck.SameSite, ck.Path)
		}
		if ck.Value == before {
			t.Errorf("session token not renewed on sign-in: still %q", before)
		}
		// The token from before sign-in is worth nothing now.
		fixed := a.Client(t, "")
		fixed.SetCookie(apptest.SessionCookie, before)
		fixed.Check(t, apptest.Scenario{Name: "OldToken", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}})

		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Root", URL: "/studio", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/s/" + a.Site.ID + "/schedules"}},
			{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="user-name">Elif Editor · Editor</span>`, "Sign out"}},
			{Name: "LoginFormWhenSignedIn", URL: "/studio/login", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio"}},
			{Name: "SignOutWithoutToken", Method: "POST", URL: "/studio/logout", ExpectedStatus: http.StatusForbidden},
		})
		token = c.Token() // renewed at sign-in
		res = c.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout",
			Form: url.Values{"csrf_token": {token}}, ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "AfterSignOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/login?next=%2Fstudio%2Fschedules"}},
		})
	})

	t.Run("Next", func(t *testing.T) {
		for _, tc := range []struct{ Name, Next, Location string }{
			{"InsideStudio", "/studio/content", "/studio/content"},
			{"WithQuery", "/studio/content?kind=page", "/studio/content?kind=page"},
			{"OtherHost", "//evil.example/studio", "/studio"},
			{"Absolute", "https://evil.example/studio", "/studio"},
			{"PublicSite", "/posts/welcome", "/studio"},
			{"Empty", "", "/studio"},
		} {
			t.Run(tc.Name, func(t *testing.T) {
				c := a.Client(t, "")
				token := c.CSRF(apptest.LoginNext(tc.Next))
				c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/login",
					Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}, "next": {tc.Next}},
					ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": tc.Location}})
			})
		}
		c := a.Client(t, "")
		c.Check(t, apptest.Scenario{Name: "FormKeepsNext", URL: apptest.LoginNext("/studio/content"), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`name="next" value="/studio/content"`}})
	})
}

// TestSignInAfterFragment follows Guard's redirect from an htmx request the
// way htmx does: the browser goes to HX-Redirect, the person signs in, and
// must land on a page.
func TestSignInAfterFragment(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	page := "/studio/content/" + a.Draft.ID + "/schedule"
	res := c.Do(http.MethodGet, page+"/preview?date=2026-11-02&time=09:00", nil,
		map[string]string{"HX-Request": "true", "HX-Current-URL": a.URL + page})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", res.Status)
	}
	target, err := url.Parse(res.Header.Get("HX-Redirect"))
	if err != nil {
		t.Fatal(err)
	}
	if next := target.Query().Get("next"); next != page {
		t.Errorf("HX-Redirect next = %q, want the page %q", next, page)
	}
}
