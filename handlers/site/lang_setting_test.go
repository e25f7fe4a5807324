package site_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// TestPublicSiteSpeaksTheSitesLanguage (issue 11, item 5): the public
// site's language was the constant "tr". Now it is the site's own: an
// administrator changes it on the Settings page (a language Studio does
// not speak is refused, with a sentence, and changes nothing), and the
// public site — html lang, its words, its dates, the feed — is in English
// at once, over a real HTTP server.
func TestPublicSiteSpeaksTheSitesLanguage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.AddUser(t, "admin@example.com", "Ada Admin", policy.Admin, "en")
	public := a.Client(t, "")

	home := public.Get("/")
	for _, want := range []string{`<html lang="tr">`, "Tüm makaleler", "2 Kasım 2026 Pazartesi"} {
		if !strings.Contains(home.Body, want) {
			t.Fatalf("before: the Turkish site's home lacks %q:\n%s", want, home.Body)
		}
	}

	c := a.Client(t, "en")
	c.SignIn("admin@example.com")
	site, err := a.Engine.Site(context.Background(), a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	rev := fmt.Sprint(site.Rev)
	settings := c.Get("/studio/settings")
	if !strings.Contains(settings.Body, `<option value="tr" lang="tr" selected>Türkçe</option>`) {
		t.Fatalf("the language field does not show the site's language:\n%s", settings.Body)
	}

	bad := c.Post("/studio/settings/lang", url.Values{"csrf_token": {c.Token()}, "rev": {rev}, "lang": {"de"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, `data-testid="error-lang"`) ||
		!strings.Contains(bad.Body, "Studio does not speak that language yet.") {
		t.Fatalf("a language Studio does not speak: %d\n%s", bad.Status, bad.Body)
	}
	if after, _ := a.Engine.Site(context.Background(), a.Site.ID); after != site {
		t.Fatalf("the refused language changed the site: %+v, was %+v", after, site)
	}
	if still := public.Get("/"); !strings.Contains(still.Body, `<html lang="tr">`) {
		t.Fatal("the refused language reached the public site")
	}

	ok := c.Post("/studio/settings/lang", url.Values{"csrf_token": {c.Token()}, "rev": {rev}, "lang": {"en"}})
	if ok.Status != http.StatusSeeOther {
		t.Fatalf("saving en: %d\n%s", ok.Status, ok.Body)
	}
	home = public.Get("/")
	for _, want := range []string{`<html lang="en">`, "All articles", "Monday 2 November 2026", `aria-label="Menu"`} {
		if !strings.Contains(home.Body, want) {
			t.Errorf("after: the English site's home lacks %q", want)
		}
	}
	for _, gone := range []string{"Tüm makaleler", "Kasım", `lang="tr"`} {
		if strings.Contains(home.Body, gone) {
			t.Errorf("after: the English site's home still says %q", gone)
		}
	}
	if api := c.Get("/api/sites"); !strings.Contains(api.Body, `"lang":"en"`) {
		t.Errorf("the API's site does not say its language: %s", api.Body)
	}
	if feed := public.Get("/rss.xml"); !strings.Contains(feed.Body, "<language>en</language>") {
		t.Errorf("the feed's language:\n%s", feed.Body)
	}
	if missing := public.Get("/posts/nothing-here"); missing.Status != http.StatusNotFound ||
		!strings.Contains(missing.Body, `<html lang="en">`) {
		t.Errorf("the 404 is not in the site's language: %d", missing.Status)
	}
	// A new article is written in the site's language unless its editor
	// chooses another.
	if editor := c.Get("/studio/content/new"); !strings.Contains(editor.Body, `<option value="en" lang="en" selected>`) {
		t.Errorf("a new article on the English site is not in English by default")
	}
}
