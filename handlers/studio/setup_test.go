package studio_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/handlers/internal/apptest"
	"studio/locales"
)

// The first run over HTTP: the setup page exists only for the token of the
// link serve printed, refuses every bad field at once in the person's
// language with nothing written, signs the new Owner in, and then is gone;
// the public site shows an empty home.
func TestFirstRunSetupOverHTTP(t *testing.T) {
	t.Parallel()
	a := apptest.NewEmpty(t)
	c := a.Client(t, "tr")
	tr := locales.For("tr")
	count := func() int {
		var n int
		if err := a.Store.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM sites) + (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM audit)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if res := c.Get("/studio/setup?token=guess"); res.Status != http.StatusNotFound {
		t.Fatalf("setup before any link was offered: %d, want 404", res.Status)
	}
	token, err := a.Setup.Offer(context.Background())
	if err != nil || token == "" {
		t.Fatalf("offer: %q, %v", token, err)
	}
	for _, path := range []string{"/studio/setup", "/studio/setup?token=" + token[1:], "/studio/setup?token=" + strings.ToUpper(token)} {
		if res := c.Get(path); res.Status != http.StatusNotFound || strings.Contains(res.Body, "setup-form") {
			t.Fatalf("GET %s: %d, want Studio's 404", path, res.Status)
		}
	}
	if res := c.Get("/"); res.Status != http.StatusServiceUnavailable || !strings.Contains(res.Body, tr.T("site.not_set_up")) ||
		strings.Contains(res.Body, token) || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the public site before setup: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	page := c.Get("/studio/setup?token=" + url.QueryEscape(token))
	if page.Status != http.StatusOK || !strings.Contains(page.Body, html.EscapeString(tr.T("setup.title"))) ||
		!strings.Contains(page.Body, `<html lang="tr">`) || page.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("setup page: %d, Cache-Control %q\n%s", page.Status, page.Header.Get("Cache-Control"), apptest.Excerpt(page.Body))
	}
	for _, want := range []string{`name="siteName"`, `name="publicUrl"`, `list="zones"`, `<option value="Europe/Istanbul">`,
		`name="siteLang"`, `<option value="tr" lang="tr" selected>`, `name="name"`, `name="email"`, `name="password"`} {
		if !strings.Contains(page.Body, want) {
			t.Fatalf("setup page lacks %s", want)
		}
	}
	csrf := apptest.CSRFRe.FindStringSubmatch(page.Body)[1]
	form := func(change func(url.Values)) url.Values {
		v := url.Values{"csrf_token": {csrf}, "token": {token}, "siteName": {"Kuzey Haber"},
			"publicUrl": {"https://kuzeyhaber.example"}, "timeZone": {"Europe/Istanbul"}, "siteLang": {"tr"},
			"name": {"Zeynep Kaya"}, "email": {"zeynep@kuzeyhaber.example"}, "password": {apptest.Password}}
		change(v)
		return v
	}

	if res := c.Post("/studio/setup", form(func(v url.Values) { v.Del("csrf_token") })); res.Status != http.StatusForbidden {
		t.Fatalf("setup without the CSRF token: %d, want 403", res.Status)
	}
	if res := c.Post("/studio/setup", form(func(v url.Values) { v.Set("token", "guess") })); res.Status != http.StatusNotFound {
		t.Fatalf("setup with a wrong token: %d, want 404", res.Status)
	}
	bad := c.Post("/studio/setup", form(func(v url.Values) {
		v.Set("siteName", "")
		v.Set("publicUrl", "news.example/path")
		v.Set("timeZone", "Avrupa/İstanbul")
		v.Set("siteLang", "de")
		v.Set("email", "zeynep@")
		v.Set("password", "kısa")
	}))
	if bad.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad setup: %d, want 422\n%s", bad.Status, apptest.Excerpt(bad.Body))
	}
	for field, key := range map[string]string{"siteName": "error.bad_site_name", "publicUrl": "error.bad_public_url",
		"timeZone": "error.unknown_zone", "siteLang": "error.bad_language", "email": "error.bad_email"} {
		if want := `data-testid="error-` + field + `">` + html.EscapeString(tr.T(key)); !strings.Contains(bad.Body, want) {
			t.Fatalf("bad setup lacks %s\n%s", want, apptest.Excerpt(bad.Body))
		}
	}
	if !strings.Contains(bad.Body, `data-testid="error-password">`+html.EscapeString(tr.T("error.password_too_short", "Chars", 10))) {
		t.Fatalf("bad setup lacks the password's sentence")
	}
	if !strings.Contains(bad.Body, `value="Zeynep Kaya"`) || !strings.Contains(bad.Body, `value="Avrupa/İstanbul"`) || strings.Contains(bad.Body, "kısa") {
		t.Fatal("a refused setup must keep what was typed, except the password")
	}
	if n := count(); n != 0 {
		t.Fatalf("refused setups wrote %d rows", n)
	}

	c.SetCookie(apptest.SessionCookie, "planted-by-someone-else")
	done := c.Post("/studio/setup", form(func(url.Values) {}))
	if got := c.Cookie(apptest.SessionCookie); got == "" || got == "planted-by-someone-else" {
		t.Fatalf("the Owner's session cookie after setup: %q, want a new one", got)
	}
	if done.Status != http.StatusSeeOther || done.Header.Get("Location") != "/studio" {
		t.Fatalf("setup: %d to %q\n%s", done.Status, done.Header.Get("Location"), apptest.Excerpt(done.Body))
	}
	studio := c.Get("/studio/schedules")
	if studio.Status != http.StatusOK || !strings.Contains(studio.Body, `data-testid="user-name">Zeynep Kaya · `+tr.T("role.owner")) ||
		!strings.Contains(studio.Body, html.EscapeString(tr.T("setup.done"))) {
		t.Fatalf("after setup the Owner is not signed in to Studio: %d\n%s", studio.Status, apptest.Excerpt(studio.Body))
	}
	for _, res := range []apptest.Response{c.Get("/studio/setup?token=" + url.QueryEscape(token)), c.Post("/studio/setup", form(func(v url.Values) {
		v.Set("csrf_token", c.Token())
		v.Set("email", "someone@else.example")
	}))} {
		if res.Status != http.StatusNotFound {
			t.Fatalf("the setup after it was done: %d, want 404", res.Status)
		}
	}
	if n := count(); n != 3 {
		t.Fatalf("%d rows, want the site, its Owner and the audit row", n)
	}

	home := a.Client(t, "").Get("/")
	if home.Status != http.StatusOK || !strings.Contains(home.Body, tr.T("site.nothing_published")) ||
		!strings.Contains(home.Body, `<link rel="canonical" href="https://kuzeyhaber.example/">`) {
		t.Fatalf("the empty public home: %d\n%s", home.Status, apptest.Excerpt(home.Body))
	}
}
