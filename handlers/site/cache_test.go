package site_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/services"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"studio/engine"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/site"
)

// cdnAge is the max-age of a public page's CDN-Cache-Control.
func cdnAge(t *testing.T, c *apptest.Client, path string) string {
	t.Helper()
	res := c.Get(path)
	if res.Status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.Status)
	}
	return strings.TrimPrefix(res.Header.Get("CDN-Cache-Control"), "public, max-age=")
}

// TestCDNMaxAgeCountsReleases (issue 10 item 6): a CDN may keep a public
// page only until the next instant the live site can change — a release
// scheduled, moved, canceled, a removal, a request waiting for approval —
// and never longer than the ceiling, because a person's publish cannot be
// foreseen. Each change is seen on the very next request.
func TestCDNMaxAgeCountsReleases(t *testing.T) {
	t.Parallel()
	a := apptest.New(t) // 08:00 Istanbul; no gates on the live site
	ctx := context.Background()
	c := a.Client(t, "")
	want := func(name, age string) {
		t.Helper()
		for _, path := range []string{"/", "/posts/welcome", "/rss.xml"} {
			if got := cdnAge(t, c, path); got != age {
				t.Errorf("%s: %s max-age=%s, want %s", name, path, got, age)
			}
		}
	}
	want("Nothing ahead: the ceiling", "86400")

	r := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	want("Scheduled at 09:00", "3600")
	row := a.Release(t, r.ID)
	if _, err := a.Releases.Move(ctx, a.Editor, a.Site.ID, r.ID, row.Rev, "2026-11-02", "08:30"); err != nil {
		t.Fatal(err)
	}
	want("Moved to 08:30", "1800")
	if err := a.Releases.Cancel(ctx, a.Editor, a.Site.ID, r.ID, a.Release(t, r.ID).Rev); err != nil {
		t.Fatal(err)
	}
	want("Canceled", "86400")

	// A scheduled removal of the live page.
	d, err := a.Releases.CreateDraft(ctx, a.Editor, releases.DraftInput{SiteID: a.Site.ID, Title: "Take About down",
		RemoveIDs: []string{a.Page.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Releases.ScheduleRelease(ctx, a.Editor, a.Site.ID, d.ID, d.Rev, "2026-11-02", "10:00"); err != nil {
		t.Fatal(err)
	}
	want("Removal at 10:00", "7200")

	// A contributor's request may be approved at any moment before its time.
	other := a.OtherDraft(t)
	a.ScheduleAt(t, a.Contributor, other, "2026-11-02", "08:20")
	want("Waiting for approval at 08:20", "1200")

	// Its time has come and no ticker ran it: it may run at any moment.
	a.Clock.Set(apptest.Start.Add(21 * time.Minute))
	want("Due, not yet run", "1")

	// The ceiling: 60 s by default.
	srv := httptest.NewServer(handlers.New(services.Of(a.Engine, a.Store, a.Clock, nil), scs.New(), slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	a.Clock.Set(apptest.Start.Add(3 * time.Hour)) // past both, the ticker idle: due, so 1 s
	dc := a.Client(t, "")
	dc.App = &apptest.App{URL: srv.URL}
	if got := cdnAge(t, dc, "/"); got != "1" {
		t.Errorf("default ceiling, releases due: max-age=%s, want 1", got)
	}
	for _, rel := range []string{d.ID} {
		if err := a.Releases.Cancel(ctx, a.Editor, a.Site.ID, rel, a.Release(t, rel).Rev); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range releasesOpen(a, t) {
		if err := a.Releases.Cancel(ctx, a.Editor, a.Site.ID, v, a.Release(t, v).Rev); err != nil {
			t.Fatal(err)
		}
	}
	if got := cdnAge(t, dc, "/"); got != "60" {
		t.Errorf("default ceiling, nothing ahead: max-age=%s, want 60", got)
	}
}

// releasesOpen lists the ids of the site's releases that are scheduled or
// awaiting approval.
func releasesOpen(a *apptest.App, t *testing.T) []string {
	t.Helper()
	rows, err := a.Releases.Releases(context.Background(), engine.Reader(a.Site.ID), a.Site.ID, apptest.Start.Add(-time.Hour), apptest.Start.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		if s := string(r.State); s == "scheduled" || s == "awaiting_approval" {
			out = append(out, r.ID)
		}
	}
	return out
}

// TestPublicURLNotFromHost (issue 10 item 8): absolute URLs come from the
// configured public URL, never from the Host header or X-Forwarded-*: a
// request for evil.test finds evil.test in no body and no header of any
// public route, and the canonical URLs, feeds and sitemap name the
// configured site.
func TestPublicURLNotFromHost(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	g.Clock.Set(gatedNow)
	token := g.previewToken(t, g.node(t, "harbour-lights"), gatedNow.Add(time.Hour))
	paths := []string{"/", "/posts", "/posts/harbour-lights", "/posts/zeppelin-returns", "/about", "/summer-hours",
		"/rss.xml", "/sitemap.xml", "/robots.txt", "/media/harbour-cranes.png", "/nothing", "/posts/nothing",
		"/preview/" + token, "/preview/" + token + "/media/harbour-cranes.png", "/health"}
	var routes []string
	for _, rt := range handlers.PublicRoutes(scheduler.New(g.App.Releases, g.Store, nil), site.New(g.Engine, public.New(g.App.Releases, g.App.Nodes, g.Store), nil, site.Options{}), nil) {
		routes = append(routes, rt.Pattern)
	}
	t.Logf("public routes: %v", routes)
	for _, hostile := range []map[string]string{
		{"Host": "evil.test"},
		{"Host": "evil.test:8443", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.test"},
	} {
		for _, path := range paths {
			req, err := http.NewRequest(http.MethodGet, g.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range hostile {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(body), "evil.test") {
				t.Errorf("Host %s GET %s: the body names evil.test\n%s", hostile["Host"], path, apptest.Excerpt(string(body)))
			}
			for k, vs := range res.Header {
				for _, v := range vs {
					if strings.Contains(v, "evil.test") {
						t.Errorf("Host %s GET %s: header %s: %q", hostile["Host"], path, k, v)
					}
				}
			}
			if path == "/sitemap.xml" && !strings.Contains(string(body), "<loc>"+g.URL+"/posts/harbour-lights</loc>") {
				t.Errorf("the sitemap does not name the configured site %s\n%s", g.URL, body)
			}
			if path == "/posts/harbour-lights" && !strings.Contains(string(body), `<link rel="canonical" href="`+g.URL+`/posts/harbour-lights">`) {
				t.Errorf("no canonical URL on the configured site\n%s", apptest.Excerpt(string(body)))
			}
		}
	}
}

// TestParsePublicURL: --public-url takes a scheme and a host, nothing else.
func TestParsePublicURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://news.example":        "https://news.example",
		"https://news.example/":       "https://news.example",
		"http://127.0.0.1:8080":       "http://127.0.0.1:8080",
		" https://haber.example:8443": "https://haber.example:8443",
	} {
		if got, err := public.ParsePublicURL(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "news.example", "ftp://news.example", "https://", "https://news.example/blog",
		"https://news.example?x=1", "https://user@news.example", "javascript:alert(1)"} {
		if got, err := public.ParsePublicURL(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
}
