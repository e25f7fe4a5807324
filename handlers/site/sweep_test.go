package site_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/site"
	"studio/web/static"
)

// TestRouteSweep is the leak guard of RFC §7.2 (issue 6 "The route sweep").
// On the gated fixture site it enumerates every route of the public route
// table — so a route added without the gate helper fails here — and
// requests each one, with every live and every gated slug for a
// parametrised route, at three clocks around every gate: a millisecond
// before, at, and a millisecond after. At each clock:
//
//   - no hidden node's id, slug, path, title, summary or asset URL appears
//     in any body or header of any public response (previews aside);
//   - a hidden node's own URL answers 404 with no-store, byte for byte the
//     404 of a draft; a shown one answers 200;
//   - every shown node is where it belongs: lists, feed, sitemap, menu;
//   - S10: no 200 may be kept by a CDN past the next gate, nor past the
//     next due release (a publish and a removal are scheduled among the
//     gates; issue 10 item 6), nor longer than the ceiling;
//   - previews show every node, gated or not, with no-store and noindex.
func TestRouteSweep(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	c := g.Client(t, "")
	g.sweepReleases(t)

	// Every gate and every release, and the three clocks around each, in
	// time order (the fake clock never goes back).
	var clocks []time.Time
	instants := append(g.gateInstants(), g.releases...)
	slices.SortFunc(instants, time.Time.Compare)
	for _, gt := range instants {
		clocks = append(clocks, gt.Add(-time.Millisecond), gt, gt.Add(time.Millisecond))
	}
	if len(clocks) < 3*8 {
		t.Fatalf("the fixture has %d clocks; it lost gates", len(clocks))
	}

	// Previews: one link per page and article, one that expires mid-sweep,
	// one that expired before it, one forged, one for an asset.
	scoop := g.node(t, "zeppelin-returns")
	last := g.gateInstants()[len(g.gateInstants())-1]
	links := map[string]previewLink{}
	var tokenList []string
	mint := func(n *fixtureNode, expires time.Time) string {
		tok := g.previewToken(t, n, expires)
		links[tok] = previewLink{n, expires}
		tokenList = append(tokenList, tok)
		return tok
	}
	var scoopToken string
	for _, n := range g.nodes {
		if n.isAsset() {
			continue
		}
		if tok := mint(n, last.Add(time.Hour)); n == scoop {
			scoopToken = tok
		}
	}
	mediaTokens := []string{scoopToken, mint(scoop, gatedNow.Add(30*time.Minute)), mint(scoop, apptest.Start),
		mint(g.node(t, "zeppelin-hangar.png"), last.Add(time.Hour)),
		strings.Replace(g.previewToken(t, scoop, last.Add(time.Hour)), scoop.ID, g.Live.ID, 1)}
	tokenList = append(tokenList, mediaTokens[4])

	var slugs, assetSlugs []string
	for _, n := range g.nodes {
		slugs = append(slugs, n.Body.Slug)
		if n.isAsset() {
			assetSlugs = append(assetSlugs, n.Body.Slug)
		}
	}
	slugs = append(slugs, "no-such-thing", "posts")
	assetSlugs = append(assetSlugs, "no-such-thing.png", scoop.Body.Slug)

	// The route table's own rows: a new row needs an expansion here.
	routes := handlers.PublicRoutes(scheduler.New(g.App.Releases, g.Store, nil), site.New(g.Engine, public.New(g.App.Releases, g.App.Nodes, g.Store), nil, site.Options{}), nil)
	param := regexp.MustCompile(`\{(\w+)\}`)
	expand := func(pattern string) []string {
		switch {
		case pattern == "/static/*":
			return []string{static.Path("site.css"), "/static/none.css"}
		case strings.Contains(pattern, "*"):
			t.Fatalf("route %s: the sweep does not know what to request under *: teach it", pattern)
		}
		out := []string{pattern}
		for _, m := range param.FindAllStringSubmatch(pattern, -1) {
			var values []string
			switch {
			case m[1] == "slug" && strings.HasPrefix(pattern, "/preview/"):
				// A preview's media: its own assets, whatever the gates.
				// Every token × every slug would be hundreds of requests
				// per clock for a route that ignores the clock: the links
				// of the scoop (the asset that rides with it) and the bad
				// ones stand for all.
				values = assetSlugs
			case m[1] == "slug":
				values = slugs
			case m[1] == "token" && strings.HasSuffix(pattern, "/media/{slug}"):
				values = mediaTokens
			case m[1] == "token":
				values = tokenList
			default:
				t.Fatalf("route %s: the sweep has no values for {%s}: teach it", pattern, m[1])
			}
			var next []string
			for _, u := range out {
				for _, v := range values {
					next = append(next, strings.Replace(u, m[0], v, 1))
				}
			}
			out = next
		}
		return out
	}
	isPreview := func(pattern string) bool { return strings.HasPrefix(pattern, "/preview/") }
	requests := 0
	for _, rt := range routes {
		requests += len(expand(rt.Pattern))
	}
	t.Logf("%d public routes, %d requests per clock, %d clocks", len(routes), requests, len(clocks))

	for _, now := range clocks {
		g.Clock.Set(now)
		var hidden, shown []*fixtureNode
		for _, n := range g.nodes {
			if n.shownAt(now) {
				shown = append(shown, n)
			} else {
				hidden = append(hidden, n)
			}
		}
		at := now.Sub(gatedNow).String()
		draft404 := c.Get("/posts/election-night")
		if draft404.Status != http.StatusNotFound {
			t.Fatalf("at %s the draft answers %d", at, draft404.Status)
		}
		for _, rt := range routes {
			for _, u := range expand(rt.Pattern) {
				res := c.Get(u)
				where := "at now" + sign(at) + " GET " + u
				preview := isPreview(rt.Pattern)
				if preview {
					checkPreview(t, g, where, rt.Pattern, u, res, links, now)
					if res.Status == http.StatusOK {
						continue // a working preview shows its node: that is its job
					}
				}
				// Nothing hidden, anywhere.
				for _, n := range hidden {
					for _, m := range n.markers() {
						if strings.Contains(res.Body, m) {
							t.Errorf("%s: the body names hidden %s (%q)\n%s", where, n.Body.Slug, m, apptest.Excerpt(res.Body))
						}
						for k, vs := range res.Header {
							for _, v := range vs {
								if strings.Contains(v, m) {
									t.Errorf("%s: header %s names hidden %s (%q)", where, k, n.Body.Slug, m)
								}
							}
						}
					}
				}
				switch {
				case preview: // its 404 was checked with the preview
				case res.Status == http.StatusOK:
					checkCacheable(t, g, where, rt.Pattern, res, now)
				case res.Status == http.StatusNotFound:
					if rt.Pattern == "/static/*" {
						break // the embedded files' own 404: no content there to leak
					}
					if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
						t.Errorf("%s: a 404 with Cache-Control %q, want no-store", where, cc)
					}
					if cdn := res.Header.Get("CDN-Cache-Control"); cdn != "" {
						t.Errorf("%s: a 404 with CDN-Cache-Control %q", where, cdn)
					}
					if res.Body != draft404.Body {
						t.Errorf("%s: this 404 differs from a draft's", where)
					}
				default:
					t.Errorf("%s: status %d", where, res.Status)
				}
				// A node's own URL: 200 exactly while it is shown.
				for _, n := range g.nodes {
					if u != n.path() {
						continue
					}
					if want := n.shownAt(now); want != (res.Status == http.StatusOK) {
						t.Errorf("%s: status %d, want shown=%v", where, res.Status, want)
					}
				}
			}
		}
		checkShown(t, c, "at now"+sign(at), g, shown)
	}
}

func sign(d string) string {
	if strings.HasPrefix(d, "-") {
		return " " + d
	}
	return " +" + d
}

var cdnMaxAge = regexp.MustCompile(`^public, max-age=(\d+)$`)

// sweepReleases schedules, among the fixture's gates, a release that
// publishes the draft (11:30 Istanbul, half an hour after gatedNow) and one
// that removes the live article /posts/welcome (13:30). Nothing runs them.
func (g *gatedSite) sweepReleases(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	g.ScheduleAt(t, g.Editor, g.Draft, "2026-11-02", "11:30")
	d, err := g.App.Releases.CreateDraft(ctx, g.Editor, releases.DraftInput{SiteID: g.Site.ID, Title: "Retire the welcome",
		RemoveIDs: []string{g.Live.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.App.Releases.ScheduleRelease(ctx, g.Editor, g.Site.ID, d.ID, d.Rev, "2026-11-02", "13:30"); err != nil {
		t.Fatal(err)
	}
	g.releases = append(g.releases, gatedNow.Add(30*time.Minute), gatedNow.Add(150*time.Minute))
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// checkCacheable holds a 200 to §7.4 and S10: browsers revalidate, and a
// CDN keeps it no longer than the seconds to the next gate (rounded up, at
// least 1), than the seconds to the next due release (1 once it is due: it
// may run at any moment), and than the ceiling; with none of them closer,
// exactly the ceiling. /static/* is exempt: its files are
// content-addressed, built into the binary and hold no content.
func checkCacheable(t *testing.T, g *gatedSite, where, pattern string, res apptest.Response, now time.Time) {
	t.Helper()
	if pattern == "/static/*" {
		return
	}
	cc := res.Header.Get("Cache-Control")
	if cc == "no-store" { // /health: never stored at all
		return
	}
	if cc != "public, max-age=0, must-revalidate" {
		t.Errorf("%s: Cache-Control %q", where, cc)
	}
	if res.Header.Get("ETag") == "" {
		t.Errorf("%s: a 200 without an ETag", where)
	}
	m := cdnMaxAge.FindStringSubmatch(res.Header.Get("CDN-Cache-Control"))
	if m == nil {
		t.Errorf("%s: CDN-Cache-Control %q", where, res.Header.Get("CDN-Cache-Control"))
		return
	}
	age, _ := strconv.Atoi(m[1])
	want := int(apptest.CDNMaxAge / time.Second)
	if age < 1 || age > want {
		t.Errorf("%s: max-age %d, the ceiling is %d", where, age, want)
	}
	if next, ok := g.nextGate(now); ok {
		d := next.Sub(now)
		if ceil := ceilSeconds(d); age > ceil {
			t.Errorf("%s: max-age %d, but the next gate is %v away (S10: at most %d)", where, age, d, ceil)
		}
		want = min(want, max(1, ceilSeconds(d)))
	}
	for _, at := range g.releases {
		bound := 1 // due: it may run at any moment
		if at.After(now) {
			bound = ceilSeconds(at.Sub(now))
		}
		if age > bound {
			t.Errorf("%s: max-age %d, but a release is due at %v, %v away (at most %d)", where, age, at, at.Sub(now), bound)
		}
		want = min(want, bound)
	}
	if age != want {
		t.Errorf("%s: max-age %d, want %d", where, age, want)
	}
}

// checkShown: every shown node is where the public finds it; a shown
// article shows the shown assets it refers to, the first as its og:image.
func checkShown(t *testing.T, c *apptest.Client, where string, g *gatedSite, shown []*fixtureNode) {
	t.Helper()
	home, posts, rss, sitemap := c.Get("/"), c.Get("/posts"), c.Get("/rss.xml"), c.Get("/sitemap.xml")
	for _, n := range shown {
		var images []*fixtureNode
		for _, id := range n.Body.Refs {
			for _, a := range shown {
				if a.ID == id && a.isAsset() {
					images = append(images, a)
				}
			}
		}
		if len(images) == 0 {
			continue
		}
		page := c.Get(n.path())
		for _, a := range images {
			if !strings.Contains(page.Body, `<img src="`+a.path()+`"`) {
				t.Errorf("%s: %s does not show %s", where, n.path(), a.path())
			}
		}
		if !strings.Contains(page.Body, `property="og:image" content="`+g.URL+images[0].path()+`"`) {
			t.Errorf("%s: %s has no og:image %s", where, n.path(), images[0].path())
		}
	}
	for _, n := range shown {
		switch {
		case n.isAsset():
			// Checked below, with the pages that refer to it.
		case strings.HasPrefix(n.path(), "/posts/"):
			for name, res := range map[string]apptest.Response{"/": home, "/posts": posts, "/rss.xml": rss} {
				if !strings.Contains(res.Body, n.Body.Title) {
					t.Errorf("%s: %s does not list %q", where, name, n.Body.Title)
				}
			}
			if !strings.Contains(sitemap.Body, "<loc>"+g.URL+n.path()+"</loc>") {
				t.Errorf("%s: the sitemap lacks %s", where, n.path())
			}
		default: // a page: in the menu of every page, and in the sitemap
			if !strings.Contains(home.Body, `<a href="`+n.path()+`">`+n.Body.Title+`</a>`) {
				t.Errorf("%s: the menu lacks %s", where, n.path())
			}
			if !strings.Contains(sitemap.Body, "<loc>"+g.URL+n.path()+"</loc>") {
				t.Errorf("%s: the sitemap lacks %s", where, n.path())
			}
		}
	}
}

// previewLink is a minted preview token's node and expiry.
type previewLink struct {
	node    *fixtureNode
	expires time.Time
}

// assetSlugs are the file names of the assets n refers to.
func (g *gatedSite) assetSlugs(n *fixtureNode) []string {
	var out []string
	for _, a := range g.nodes {
		if a.isAsset() && slices.Contains(n.Body.Refs, a.ID) {
			out = append(out, a.Body.Slug)
		}
	}
	return out
}

// checkPreview: a preview link shows its page or article whatever its
// status and gates, never stored, never indexed; a forged, expired or
// asset link is the site's 404. Its media route serves the assets the
// node refers to, gated or not, and nothing else.
func checkPreview(t *testing.T, g *gatedSite, where, pattern, u string, res apptest.Response, links map[string]previewLink, now time.Time) {
	t.Helper()
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", where, cc)
	}
	if xr := res.Header.Get("X-Robots-Tag"); !strings.Contains(xr, "noindex") {
		t.Errorf("%s: X-Robots-Tag %q, want noindex", where, xr)
	}
	if res.Header.Get("CDN-Cache-Control") != "" || res.Header.Get("ETag") != "" {
		t.Errorf("%s: a preview with CDN-Cache-Control or an ETag", where)
	}
	link, ok := links[strings.SplitN(strings.TrimPrefix(u, "/preview/"), "/", 2)[0]]
	n := link.node
	valid := ok && !n.isAsset() && now.Before(link.expires)
	if pattern != "/preview/{token}" {
		want := valid && slices.Contains(g.assetSlugs(n), u[strings.LastIndex(u, "/")+1:])
		if want != (res.Status == http.StatusOK) {
			t.Errorf("%s: status %d, want shown=%v", where, res.Status, want)
		}
		return
	}
	if !valid {
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: status %d for a bad link, want 404", where, res.Status)
		}
		return
	}
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "<h1>"+n.Body.Title+"</h1>") {
		t.Errorf("%s: status %d, want the preview of %s\n%s", where, res.Status, n.Body.Slug, apptest.Excerpt(res.Body))
	}
	for _, slug := range g.assetSlugs(n) {
		if !strings.Contains(res.Body, `/media/`+slug+`"`) {
			t.Errorf("%s: the preview does not show %s", where, slug)
		}
	}
	if !strings.Contains(res.Body, "Preview: only people with this link see this page.") &&
		!strings.Contains(res.Body, "Önizleme: bu sayfayı yalnızca bu bağlantıya sahip olanlar görür.") {
		t.Errorf("%s: no preview notice", where)
	}
	switch {
	case n.from != nil && now.Before(*n.from) && !strings.Contains(res.Body, "Embargoed until") &&
		!strings.Contains(res.Body, "Ambargolu"):
		t.Errorf("%s: no embargo notice\n%s", where, apptest.Excerpt(res.Body))
	case n.until != nil && !now.Before(*n.until) && !strings.Contains(res.Body, "Expired on") &&
		!strings.Contains(res.Body, "Süresi doldu"):
		t.Errorf("%s: no expiry notice\n%s", where, apptest.Excerpt(res.Body))
	}
}
