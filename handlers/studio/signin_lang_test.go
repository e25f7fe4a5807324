package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"studio/handlers/internal/apptest"
)

// TestSignInLanguage: a language chosen on the sign-in page is saved to the
// account at sign-in; without a choice the account's language applies
// (issue 10, a newcomer's bullet).
func TestSignInLanguage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	userLang := func(id string) string {
		t.Helper()
		u, err := a.Identity.User(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return u.Lang
	}

	t.Run("ChosenOnTheSignInPage", func(t *testing.T) {
		c := a.Client(t, "en-GB,en;q=0.9")
		token := c.CSRF("/studio/login")
		c.Check(t, apptest.Scenario{Name: "Switch", Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"tr"}}, Header: map[string]string{"Referer": a.URL + "/studio/login"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
		c.Check(t, apptest.Scenario{Name: "SignInPageInTurkish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		c.SignIn(a.Editor.Email) // the account says English
		c.Check(t, apptest.Scenario{Name: "StudioInTurkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		if got := userLang(a.Editor.ID); got != "tr" {
			t.Errorf("the account's language is %q, want tr, as chosen on the sign-in page", got)
		}
		// And it holds in the next session, on another browser.
		other := a.Client(t, "en-GB,en;q=0.9")
		other.SignIn(a.Editor.Email)
		other.Check(t, apptest.Scenario{Name: "NextSession", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
	})

	t.Run("NotChosen", func(t *testing.T) {
		a.SetLang(t, a.Contributor, "tr")
		c := a.Client(t, "en-GB,en;q=0.9")
		c.Check(t, apptest.Scenario{Name: "SignInPageInEnglish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="en">`}})
		c.SignIn(a.Contributor.Email)
		c.Check(t, apptest.Scenario{Name: "TheAccountsLanguage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		if got := userLang(a.Contributor.ID); got != "tr" {
			t.Errorf("the account's language is %q, want tr (unchanged)", got)
		}
	})
}
