package site_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/locales"
	"studio/web/static"
)

// gatedSite is the fixture of the public site's gate tests (RFC §7.2): the
// demo app (a live page /about, a live article /posts/welcome, a draft
// /posts/election-night) plus, all published at start, gates around the
// fixture's "now", three hours later (gatedNow, 11:00 Istanbul): articles and
// pages embargoed in the future, expired in the past, gated exactly at now,
// expiring later, one with both gates, an asset that rides only with an
// embargoed article, one shared with an open article, and an open article
// that refers to all of them. Every gate lies after start, because the
// fake clock never goes back.
type gatedSite struct {
	*apptest.App
	nodes []*fixtureNode // every page, article and asset, live or not
	// releases are the instants of the releases a test scheduled on top;
	// no ticker runs them, so they stay due once passed.
	releases []time.Time
}

// gatedNow is the fixture's "now": Monday 2 November 2026, 11:00 Istanbul.
var gatedNow = apptest.Start.Add(3 * time.Hour)

// fixtureNode is one node of the fixture with the words that must never
// appear on a public response while it is hidden.
type fixtureNode struct {
	content.Node
	published bool
	from      *time.Time
	until     *time.Time
	refs      []*fixtureNode // for an asset: the nodes referring to it
}

func (n *fixtureNode) isAsset() bool { return n.Kind == release.KindAsset }

// path is the node's public URL path.
func (n *fixtureNode) path() string {
	switch n.Kind {
	case release.KindContentEntry:
		return "/posts/" + n.Body.Slug
	case release.KindAsset:
		return "/media/" + n.Body.Slug
	}
	return "/" + n.Body.Slug
}

// markers are the strings that give the node away: its id, slug, path,
// title, summary and (for an asset) its text.
func (n *fixtureNode) markers() []string {
	out := []string{n.ID, n.Body.Slug, n.path(), n.Body.Title}
	if n.Body.Summary != "" {
		out = append(out, n.Body.Summary)
	}
	if n.Body.Alt != "" {
		out = append(out, n.Body.Alt)
	}
	return out
}

// shownAt is the test's own reading of RFC §7.1–7.2, apart from the code
// under test: a page or article shows when it is published, from ≤ now and
// now < until; an asset shows when it is published, its own gates are open
// and not every published referrer is embargoed at now.
func (n *fixtureNode) shownAt(now time.Time) bool {
	open := n.published && (n.from == nil || !now.Before(*n.from)) && (n.until == nil || now.Before(*n.until))
	if !open || !n.isAsset() {
		return open
	}
	live, embargoed := 0, 0
	for _, r := range n.refs {
		if !r.published {
			continue
		}
		live++
		if r.from != nil && now.Before(*r.from) {
			embargoed++
		}
	}
	return live == 0 || embargoed < live
}

func ptr(t time.Time) *time.Time { return &t }

func newGatedSite(t *testing.T) *gatedSite {
	t.Helper()
	g := &gatedSite{App: apptest.New(t)}
	ctx := context.Background()
	T := gatedNow
	g.nodes = append(g.nodes,
		&fixtureNode{Node: g.Page, published: true},
		&fixtureNode{Node: g.Live, published: true},
		&fixtureNode{Node: g.Draft})

	add := func(kind release.NodeKind, b content.Body, refs ...*fixtureNode) *fixtureNode {
		t.Helper()
		for _, r := range refs {
			b.Refs = append(b.Refs, r.ID)
		}
		if b.Lang == "" {
			b.Lang = "en"
		}
		if b.Status == "" {
			b.Status = content.StatusPublished
		}
		var n content.Node
		var err error
		if kind == release.KindAsset {
			n, err = g.App.Nodes.CreateAsset(ctx, g.Editor, g.Site.ID, b)
		} else {
			n, err = g.App.Nodes.CreateNode(ctx, g.Editor, g.Site.ID, kind, b)
		}
		if err != nil {
			t.Fatalf("create %s: %v", b.Slug, err)
		}
		f := &fixtureNode{Node: n, published: b.Status == content.StatusPublished}
		if a := b.Availability; a != nil {
			f.from, f.until = a.From, a.Until
		}
		for _, r := range refs {
			if r.isAsset() {
				r.refs = append(r.refs, f)
			}
		}
		g.nodes = append(g.nodes, f)
		return f
	}
	gates := func(from, until *time.Time) *content.Availability {
		return &content.Availability{From: from, Until: until}
	}
	zeppelin := add(release.KindAsset, content.Body{Title: "Zeppelin photo", Slug: "zeppelin-hangar.png",
		Mime: "image/png", Data: apptest.FixturePNG(t, 1), Alt: "A zeppelin in its hangar at dawn"})
	harbour := add(release.KindAsset, content.Body{Title: "Harbour photo", Slug: "harbour-cranes.png",
		Mime: "image/png", Data: apptest.FixturePNG(t, 2), Alt: "Cranes over the harbour"})
	scoop := add(release.KindContentEntry, content.Body{Title: "Zeppelin returns to the city", Slug: "zeppelin-returns",
		Summary: "Quokka-grade secret until ten.", Text: "The airship lands at ten.", PublishedAt: ptr(T.Add(2 * time.Hour)),
		Availability: gates(ptr(T.Add(2*time.Hour)), nil)}, zeppelin, harbour)
	dawn := add(release.KindContentEntry, content.Body{Title: "Dawn edition of the Gazette", Slug: "dawn-edition",
		Summary: "Opens exactly at eight.", Text: "Good morning.", PublishedAt: ptr(T),
		Availability: gates(ptr(T), nil)})
	add(release.KindContentEntry, content.Body{Title: "Midnight special bulletin", Slug: "midnight-special",
		Summary: "Gone exactly at eight.", Text: "Good night.", PublishedAt: ptr(T.Add(-10 * time.Hour)),
		Availability: gates(nil, ptr(T))})
	add(release.KindContentEntry, content.Body{Title: "Obsolete tidings of the fair", Slug: "obsolete-tidings",
		Summary: "Expired an hour ago.", Text: "The fair is over.", PublishedAt: ptr(T.Add(-48 * time.Hour)),
		Availability: gates(nil, ptr(T.Add(-time.Hour)))})
	fleeting := add(release.KindContentEntry, content.Body{Title: "Fleeting notice on ferries", Slug: "fleeting-notice",
		Summary: "Open until eleven.", Text: "Ferries run late today.", PublishedAt: ptr(T.Add(-2 * time.Hour)),
		Availability: gates(nil, ptr(T.Add(3*time.Hour)))})
	add(release.KindContentEntry, content.Body{Title: "Harbour lights at night", Slug: "harbour-lights",
		Summary: "Always open.", Text: "The harbour glows.", PublishedAt: ptr(T.Add(-time.Hour))},
		harbour, scoop, dawn, fleeting)
	add(release.KindPage, content.Body{Title: "Lansman partisi", Slug: "lansman-partisi", Lang: "tr",
		Summary: "Saat dokuzda açılır.", Text: "Herkes davetli.", Availability: gates(ptr(T.Add(time.Hour)), nil)})
	add(release.KindPage, content.Body{Title: "Winter sale terms", Slug: "winter-sale",
		Summary: "Expired two hours ago.", Text: "The sale has ended.", Availability: gates(nil, ptr(T.Add(-2*time.Hour)))})
	add(release.KindPage, content.Body{Title: "Summer opening hours", Slug: "summer-hours",
		Summary: "Open until noon.", Text: "We open at nine.", Availability: gates(nil, ptr(T.Add(4*time.Hour)))})
	add(release.KindPage, content.Body{Title: "Pop-up bookshop", Slug: "pop-up-bookshop",
		Summary: "Open from nine to one.", Text: "Books on the quay.",
		Availability: gates(ptr(T.Add(time.Hour)), ptr(T.Add(5*time.Hour)))})
	if _, err := g.App.Nodes.Publish(ctx, g.Editor, g.Site.ID); err != nil {
		t.Fatal(err)
	}
	return g
}

// gateInstants are every gate of the fixture's published nodes, sorted.
func (g *gatedSite) gateInstants() []time.Time {
	var out []time.Time
	for _, n := range g.nodes {
		if !n.published {
			continue
		}
		for _, t := range []*time.Time{n.from, n.until} {
			if t != nil && !slices.ContainsFunc(out, t.Equal) {
				out = append(out, *t)
			}
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// nextGate is the first gate strictly after now, if any.
func (g *gatedSite) nextGate(now time.Time) (time.Time, bool) {
	for _, t := range g.gateInstants() {
		if t.After(now) {
			return t, true
		}
	}
	return time.Time{}, false
}

// node returns the fixture node with slug.
func (g *gatedSite) node(t *testing.T, slug string) *fixtureNode {
	t.Helper()
	for _, n := range g.nodes {
		if n.Body.Slug == slug {
			return n
		}
	}
	t.Fatalf("no fixture node %q", slug)
	return nil
}

// previewToken mints a preview link's token for n, expiring at expires.
func (g *gatedSite) previewToken(t *testing.T, n *fixtureNode, expires time.Time) string {
	t.Helper()
	tok, err := public.New(g.App.Releases, g.App.Nodes, g.Store).PreviewToken(context.Background(), n.ID, expires)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPublicSiteAtAGate: an embargoed article is absent from every list
// until its from, to the millisecond, and present from then on, with no job
// running; the ETag changes when what is visible does, and a CDN may keep a
// page only until the next gate.
func TestPublicSiteAtAGate(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	c := g.Client(t, "")
	scoop := g.node(t, "zeppelin-returns")
	opens := *scoop.from

	g.Clock.Set(opens.Add(-time.Millisecond))
	before := c.Check(t, apptest.Scenario{Name: "HomeBefore", URL: "/", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{scoop.Body.Title},
		ExpectedHeaders:    map[string]string{"CDN-Cache-Control": "public, max-age=1"}})
	c.Check(t, apptest.Scenario{Name: "ArticleBefore", URL: scoop.path(), ExpectedStatus: http.StatusNotFound,
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store", "CDN-Cache-Control": "", "ETag": ""}})
	c.Check(t, apptest.Scenario{Name: "ImageBefore", URL: "/media/zeppelin-hangar.png", ExpectedStatus: http.StatusNotFound,
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	c.Check(t, apptest.Scenario{Name: "SameInterval", URL: "/", Header: map[string]string{"If-None-Match": before.Header.Get("ETag")},
		ExpectedStatus:  http.StatusNotModified,
		ExpectedHeaders: map[string]string{"CDN-Cache-Control": "public, max-age=1", "Cache-Control": "public, max-age=0, must-revalidate"}})

	g.Clock.Set(opens)
	after := c.Check(t, apptest.Scenario{Name: "HomeAt", URL: "/", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<a href="/posts/zeppelin-returns">Zeppelin returns to the city</a>`,
			`<time datetime="2026-11-02T10:00:00Z">2 Kasım 2026 Pazartesi</time>`},
		// The next gate is fleeting-notice's until, an hour later.
		ExpectedHeaders: map[string]string{"CDN-Cache-Control": "public, max-age=3600"}})
	if after.Header.Get("ETag") == before.Header.Get("ETag") {
		t.Error("the home page kept its ETag across a gate")
	}
	c.Check(t, apptest.Scenario{Name: "OldETag", URL: "/", Header: map[string]string{"If-None-Match": before.Header.Get("ETag")},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Zeppelin returns to the city"}})
	c.Check(t, apptest.Scenario{Name: "ArticleAt", URL: scoop.path(), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Zeppelin returns to the city</h1>",
			`<img src="/media/zeppelin-hangar.png" alt="A zeppelin in its hangar at dawn">`,
			`<meta property="og:image" content="` + g.URL + `/media/zeppelin-hangar.png">`,
			`<meta property="og:title" content="Zeppelin returns to the city">`,
			`<meta property="article:published_time" content="2026-11-02T10:00:00Z">`}})
	c.Check(t, apptest.Scenario{Name: "ImageAt", URL: "/media/zeppelin-hangar.png", ExpectedStatus: http.StatusOK,
		ExpectedHeaders: map[string]string{"Content-Type": "image/png",
			"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox"}})
	c.Check(t, apptest.Scenario{Name: "RelatedAt", URL: "/posts/harbour-lights", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<li lang="en"><a href="/posts/zeppelin-returns">Zeppelin returns to the city</a></li>`}})
}

// TestPublicSiteFeedsAndHead: rss.xml, sitemap.xml, robots.txt and the
// JSON-LD of a page are what their readers expect.
func TestPublicSiteFeedsAndHead(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	g.Clock.Set(gatedNow)
	c := g.Client(t, "")

	res := c.Check(t, apptest.Scenario{Name: "RSS", URL: "/rss.xml", ExpectedStatus: http.StatusOK,
		ExpectedHeaders: map[string]string{"Content-Type": "application/rss+xml; charset=utf-8"}})
	var feed struct {
		Channel struct {
			Title string `xml:"title"`
			Items []struct {
				Title   string `xml:"title"`
				Link    string `xml:"link"`
				GUID    string `xml:"guid"`
				PubDate string `xml:"pubDate"`
			} `xml:"item"`
		} `xml:"channel"`
	}
	if err := xml.Unmarshal([]byte(res.Body), &feed); err != nil {
		t.Fatalf("rss.xml: %v\n%s", err, res.Body)
	}
	var titles []string
	for _, it := range feed.Channel.Items {
		titles = append(titles, it.Title)
		if _, err := time.Parse(time.RFC1123Z, it.PubDate); err != nil || it.GUID != it.Link ||
			!strings.HasPrefix(it.Link, g.URL+"/posts/") {
			t.Errorf("rss item %+v", it)
		}
	}
	// Newest first by publishedAt (08:00Z, 07:00Z, 06:00Z, 05:00Z); the
	// scoop (10:00Z) and the expired ones are not there.
	want := []string{"Dawn edition of the Gazette", "Harbour lights at night", "Fleeting notice on ferries", "Welcome to the Gazette"}
	if !slices.Equal(titles, want) || feed.Channel.Title != "Demo Gazette" ||
		!strings.Contains(res.Body, "<link>"+g.URL+"/</link>") {
		t.Errorf("rss: %q %q, want items %q\n%s", feed.Channel.Title, titles, want, res.Body)
	}

	res = c.Check(t, apptest.Scenario{Name: "Sitemap", URL: "/sitemap.xml", ExpectedStatus: http.StatusOK})
	var set struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(res.Body), &set); err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, u := range set.URLs {
		locs = append(locs, strings.TrimPrefix(u.Loc, g.URL))
	}
	wantLocs := []string{"/", "/posts", "/about", "/summer-hours", "/posts/dawn-edition", "/posts/harbour-lights",
		"/posts/fleeting-notice", "/posts/welcome"}
	if !slices.Equal(locs, wantLocs) {
		t.Errorf("sitemap %q, want %q", locs, wantLocs)
	}
	c.Check(t, apptest.Scenario{Name: "Robots", URL: "/robots.txt", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"User-agent: *\n", "Disallow: /preview/\n", "Sitemap: " + g.URL + "/sitemap.xml\n"},
		ExpectedHeaders: map[string]string{"Content-Type": "text/plain; charset=utf-8"}})

	res = c.Check(t, apptest.Scenario{Name: "Article", URL: "/posts/harbour-lights", ExpectedStatus: http.StatusOK})
	m := regexp.MustCompile(`<script type="application/ld\+json">([^<]*)</script>`).FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no JSON-LD:\n%s", res.Body)
	}
	var ld map[string]any
	if err := json.Unmarshal([]byte(m[1]), &ld); err != nil {
		t.Fatal(err)
	}
	if ld["@type"] != "Article" || ld["headline"] != "Harbour lights at night" || ld["url"] != g.URL+"/posts/harbour-lights" ||
		ld["datePublished"] != "2026-11-02T10:00:00+03:00" || fmt.Sprint(ld["image"]) != "["+g.URL+"/media/harbour-cranes.png]" {
		t.Errorf("JSON-LD %v", ld)
	}
	res = c.Check(t, apptest.Scenario{Name: "Page", URL: "/summer-hours", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<meta property="og:type" content="website">`}})
	if !strings.Contains(res.Body, `"@type":"WebPage"`) {
		t.Errorf("a page's JSON-LD is not a WebPage:\n%s", res.Body)
	}
}

// TestPreviewLinks: Studio mints a 24-hour link to a node's working copy;
// the link shows it with the notice of its gate in the site's language (as
// the rest of the site's chrome) and zone, never stored; it dies after a
// day.
func TestPreviewLinks(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	g.Clock.Set(gatedNow)
	editor := g.SignedIn(t, g.Editor)
	anon := g.Client(t, "")
	noStore := map[string]string{"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow", "CDN-Cache-Control": ""}

	link := func(n *fixtureNode) string {
		t.Helper()
		res := editor.Check(t, apptest.Scenario{Name: "Mint", URL: "/studio/content/" + n.ID + "/preview",
			ExpectedStatus: http.StatusSeeOther})
		loc := res.Header.Get("Location")
		if !strings.HasPrefix(loc, "/preview/"+n.ID+".") {
			t.Fatalf("mint: Location %q", loc)
		}
		return loc
	}
	scoop := link(g.node(t, "zeppelin-returns"))
	apptest.RunScenarios(t, anon, []apptest.Scenario{
		{Name: "Embargoed", URL: scoop, ExpectedStatus: http.StatusOK, ExpectedHeaders: noStore,
			ExpectedContent: []string{`<html lang="tr">`, `<article lang="en"><h1>Zeppelin returns to the city</h1>`,
				"Önizleme: bu sayfayı yalnızca bu bağlantıya sahip olanlar görür.",
				"Ambargolu · Şu tarihten itibaren görünür: 2 Kasım 2026 13:00 (İstanbul)",
				"Bu bağlantının geçerlilik sonu: 3 Kasım 2026 11:00 (İstanbul)",
				`<img src="` + scoop + `/media/zeppelin-hangar.png"`, `<meta name="robots" content="noindex, nofollow">`},
			NotExpectedContent: []string{"og:", "ld+json"}},
		{Name: "EmbargoedImage", URL: scoop + "/media/zeppelin-hangar.png", ExpectedStatus: http.StatusOK,
			ExpectedHeaders: map[string]string{"Cache-Control": "no-store", "Content-Type": "image/png"}},
		{Name: "OtherImage", URL: scoop + "/media/nothing.png", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "PublicStillHidden", URL: "/posts/zeppelin-returns", ExpectedStatus: http.StatusNotFound},
		{Name: "Turkish", URL: link(g.node(t, "lansman-partisi")), ExpectedStatus: http.StatusOK, ExpectedHeaders: noStore,
			ExpectedContent: []string{`<html lang="tr">`, "Önizleme: bu sayfayı yalnızca bu bağlantıya sahip olanlar görür.",
				"Ambargolu · Şu tarihten itibaren görünür: 2 Kasım 2026 12:00 (İstanbul)"}},
		{Name: "Expired", URL: link(g.node(t, "obsolete-tidings")), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Süresi doldu: 2 Kasım 2026 10:00 (İstanbul)"}},
		{Name: "Draft", URL: link(g.node(t, "election-night")), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Election night live</h1>", "Durum: Taslak"}},
		{Name: "OtherNode", URL: strings.Replace(scoop, g.node(t, "zeppelin-returns").ID, g.Live.ID, 1),
			ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "LaterExpiry", URL: regexp.MustCompile(`\.(\d+)\.`).ReplaceAllString(scoop, ".4102444800."),
			ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "BadSignature", URL: scoop[:len(scoop)-2] + "AA", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "Garbage", URL: "/preview/nonsense", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
	})
	anon.Check(t, apptest.Scenario{Name: "SignedOut", URL: "/studio/content/" + g.Live.ID + "/preview",
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/content/" + g.Live.ID + "/preview")}})
	editor.Check(t, apptest.Scenario{Name: "UnknownNode", URL: "/studio/content/ent_nothing/preview", ExpectedStatus: http.StatusNotFound})

	// A day later the link is dead, and its 404 is the site's.
	g.Clock.Set(gatedNow.Add(public.PreviewLifetime - time.Millisecond))
	anon.Check(t, apptest.Scenario{Name: "LastMoment", URL: scoop, ExpectedStatus: http.StatusOK})
	g.Clock.Set(gatedNow.Add(public.PreviewLifetime))
	anon.Check(t, apptest.Scenario{Name: "Expired", URL: scoop, ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore,
		NotExpectedContent: []string{"Zeppelin"}})
}

// countingClock counts the reads of the clock.
type countingClock struct {
	*fakeclock.Clock
	reads atomic.Int64
}

func (c *countingClock) Now() time.Time { c.reads.Add(1); return c.Clock.Now() }

// TestPublicSiteOneClockPerRequest: every public route reads the clock once
// (RFC §7.1: one instant per request, so a page cannot be half before and
// half after a gate); the embedded files never.
func TestPublicSiteOneClockPerRequest(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	g.Clock.Set(gatedNow)
	clock := &countingClock{Clock: g.Clock.Clock}
	eng := engine.New(g.Store, clock, nil)
	srv := httptest.NewServer(handlers.New(services.Of(eng, g.Store, clock, nil), scs.New(), slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	c := g.Client(t, "")
	c.App = &apptest.App{URL: srv.URL}
	token := g.previewToken(t, g.node(t, "zeppelin-returns"), gatedNow.Add(time.Hour))
	for _, u := range []string{"/", "/posts", "/posts/harbour-lights", "/posts/zeppelin-returns", "/about", "/nothing",
		"/rss.xml", "/sitemap.xml", "/robots.txt", "/media/harbour-cranes.png", "/media/zeppelin-hangar.png",
		"/preview/" + token, "/preview/" + token + "/media/zeppelin-hangar.png", "/health"} {
		before := clock.reads.Load()
		c.Get(u)
		if n := clock.reads.Load() - before; n != 1 {
			t.Errorf("GET %s read the clock %d times, want once", u, n)
		}
	}
	before := clock.reads.Load()
	c.Get(static.Path("site.css"))
	if n := clock.reads.Load() - before; n != 0 {
		t.Errorf("a static file read the clock %d times", n)
	}
}

// TestCreateAsset: an asset is a file named by its slug; bad files are
// refused with the field to fix.
func TestCreateAsset(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	good := content.Body{Title: "Cover", Slug: "cover-image.png", Status: content.StatusPublished, Mime: "image/png",
		Data: apptest.FixturePNG(t, 9), Alt: "A cover"}
	n, err := a.Nodes.CreateAsset(ctx, a.Editor, a.Site.ID, good)
	if err != nil || n.Kind != release.KindAsset || !strings.HasPrefix(n.ID, "ast_") {
		t.Fatalf("CreateAsset: %+v, %v", n, err)
	}
	for name, tc := range map[string]struct {
		edit func(*content.Body)
		code string
	}{
		"NoExtension": {func(b *content.Body) { b.Slug = "cover" }, "file_name_invalid"},
		"UpperCase":   {func(b *content.Body) { b.Slug = "Cover.png" }, "file_name_invalid"},
		"Path":        {func(b *content.Body) { b.Slug = "../cover.png" }, "file_name_invalid"},
		"HTML":        {func(b *content.Body) { b.Mime = "text/html" }, "file_type_invalid"},
		"Empty":       {func(b *content.Body) { b.Data = nil }, "file_size_invalid"},
		"TooLarge":    {func(b *content.Body) { b.Data = make([]byte, content.MaxAssetBytes+1) }, "file_size_invalid"},
	} {
		b := good
		tc.edit(&b)
		_, err := a.Nodes.CreateAsset(ctx, a.Editor, a.Site.ID, b)
		if e, ok := engine.AsError(err); !ok || e.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
		if msg := locales.For("tr").T("error." + tc.code); msg == "error."+tc.code {
			t.Errorf("%s: no Turkish message for %s", name, tc.code)
		}
	}
	// CreateNode still makes only pages and articles.
	if _, err := a.Nodes.CreateNode(ctx, a.Editor, a.Site.ID, release.KindAsset, good); err == nil {
		t.Error("CreateNode made an asset")
	}
}
