package site_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"studio/handlers/internal/apptest"
)

func TestPublicSite(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	anon := a.Client(t, "")
	noStore := map[string]string{"Cache-Control": "no-store"}

	apptest.RunScenarios(t, anon, []apptest.Scenario{
		{Name: "DraftHidden", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound,
			ExpectedHeaders: noStore, NotExpectedContent: []string{"Election night live", "Follow the results"}},
		{Name: "HomeWithoutDraft", URL: "/", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Demo Gazette", "Welcome to the Gazette", `href="/about"`},
			NotExpectedContent: []string{"Election night live"}},
		{Name: "LiveArticle", URL: "/posts/welcome", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Welcome to the Gazette</h1>", "This is the first article."}},
		{Name: "LivePage", URL: "/about", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>About</h1>"}},
		{Name: "UnknownPage", URL: "/nothing-here", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "PageIsNotAPost", URL: "/posts/about", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
	})
	homeBefore := anon.Get("/").Header.Get("ETag")

	c := a.SignedIn(t, a.Editor)
	u := "/studio/content/" + a.Draft.ID + "/schedule"
	c.Check(t, apptest.Scenario{Name: "Schedule", Method: "POST", URL: u,
		Form:           url.Values{"csrf_token": {c.CSRF(u)}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})

	// A minute early: nothing goes live.
	a.Clock.Set(time.Date(2026, 11, 2, 5, 59, 0, 0, time.UTC))
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 0 {
		t.Fatalf("RunDue at 08:59: %+v, %v; want nothing published", rep, err)
	}
	anon.Check(t, apptest.Scenario{Name: "StillHidden", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound,
		ExpectedHeaders: noStore})

	a.Clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 1 {
		t.Fatalf("RunDue at 09:00: %+v, %v; want one published", rep, err)
	}
	res := anon.Check(t, apptest.Scenario{Name: "Live", URL: "/posts/election-night", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Election night live</h1>", "Follow the results here.",
			`datetime="2026-11-02T06:00:00Z"`},
		ExpectedHeaders: map[string]string{"Cache-Control": "public, max-age=0, must-revalidate"}})
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("a 200 without an ETag")
	}
	home := anon.Check(t, apptest.Scenario{Name: "HomeLists", URL: "/", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/posts/election-night"`, "Election night live", "Welcome to the Gazette"}})
	if h := home.Header.Get("ETag"); h == "" || h == homeBefore {
		t.Errorf("home ETag %q after the release, was %q: want a new one", h, homeBefore)
	}
	apptest.RunScenarios(t, anon, []apptest.Scenario{
		{Name: "NotModified", URL: "/posts/election-night", Header: map[string]string{"If-None-Match": etag},
			ExpectedStatus: http.StatusNotModified, ExpectedHeaders: map[string]string{"ETag": etag},
			NotExpectedContent: []string{"Election"}},
		{Name: "OldHomeETag", URL: "/", Header: map[string]string{"If-None-Match": homeBefore},
			ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Election night live"}},
		{Name: "OtherETag", URL: "/posts/election-night", Header: map[string]string{"If-None-Match": `"other"`},
			ExpectedStatus: http.StatusOK},
	})
	// The Agenda says how it went.
	agenda := c.Get("/studio/schedules")
	ids := apptest.AgendaReleaseIDs(agenda.Body)
	if len(ids) != 1 {
		t.Fatalf("Agenda lists releases %v, want one", ids)
	}
	c.Check(t, apptest.Scenario{Name: "Outcome", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-state="published">Published</span>`,
			"Published on 2 November 2026, 09:00, on time.", "live version 2"}})
}

// TestPublicSiteETag holds the public site's ETags to RFC 9110 §8.8.3.
func TestPublicSiteETag(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	etag := c.Get("/posts/welcome").Header.Get("ETag")
	if !regexp.MustCompile(`^(W/)?"[\x21\x23-\x7E\x80-\xFF]*"$`).MatchString(etag) {
		t.Errorf("ETag %q is not an RFC 9110 entity-tag", etag)
	}
	// Weak (the same page goes out in several codings): W/"x" and "x"
	// both match it.
	opaque, weak := strings.CutPrefix(etag, "W/")
	if !weak {
		t.Errorf("ETag %q is strong: the gzip, zstd and plain answers share it", etag)
	}
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Weak", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": "W/" + opaque},
			ExpectedStatus: http.StatusNotModified},
		{Name: "Opaque", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": opaque},
			ExpectedStatus: http.StatusNotModified},
		{Name: "List", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": `"other", ` + etag},
			ExpectedStatus: http.StatusNotModified},
		{Name: "Star", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": "*"},
			ExpectedStatus: http.StatusNotModified},
	})
}
