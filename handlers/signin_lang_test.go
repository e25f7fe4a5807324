package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// TestSignInLanguage: a language chosen on the sign-in page is saved to the
// account at sign-in; without a choice the account's language applies
// (issue 10, a newcomer's bullet).
func TestSignInLanguage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	userLang := func(id string) string {
		t.Helper()
		u, err := a.identity.User(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return u.Lang
	}

	t.Run("ChosenOnTheSignInPage", func(t *testing.T) {
		c := a.client(t, "en-GB,en;q=0.9")
		token := c.csrf("/studio/login")
		c.check(t, scenario{Name: "Switch", Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"tr"}}, Header: map[string]string{"Referer": a.URL + "/studio/login"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
		c.check(t, scenario{Name: "SignInPageInTurkish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		c.signIn(a.editor.Email) // the account says English
		c.check(t, scenario{Name: "StudioInTurkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		if got := userLang(a.editor.ID); got != "tr" {
			t.Errorf("the account's language is %q, want tr, as chosen on the sign-in page", got)
		}
		// And it holds in the next session, on another browser.
		other := a.client(t, "en-GB,en;q=0.9")
		other.signIn(a.editor.Email)
		other.check(t, scenario{Name: "NextSession", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
	})

	t.Run("NotChosen", func(t *testing.T) {
		a.setLang(t, a.contributor, "tr")
		c := a.client(t, "en-GB,en;q=0.9")
		c.check(t, scenario{Name: "SignInPageInEnglish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="en">`}})
		c.signIn(a.contributor.Email)
		c.check(t, scenario{Name: "TheAccountsLanguage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
		if got := userLang(a.contributor.ID); got != "tr" {
			t.Errorf("the account's language is %q, want tr (unchanged)", got)
		}
	})
}
