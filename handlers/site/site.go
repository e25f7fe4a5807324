// Package site serves the public website from the live snapshot: the home
// page, the list of articles, entry and page routes, RSS, the sitemap,
// robots.txt, media and signed previews.
//
// Every public path reads one answer, the engine's public view (RFC §7.1)
// at one instant per request, h.eng.Now() taken once: a node shows only if
// it is published and its gates are open then. A gated node is absent from every
// list, menu, feed, sitemap and head, and its own URL answers 404 with
// no-store exactly like an unpublished one (§7.2). Every 200 may be cached
// by a CDN only until the live site's next change — the next gate of the
// live snapshot (§7.4) or the site's next due release — and at most the
// configured ceiling, since a person's publish cannot be foreseen.
//
// Per snapshot (immutable) the work is done once: the engine prepares the
// published nodes, the sorted gate instants and the referrers of each asset
// (public.Snapshot), this package the pages' view models. Per gate
// interval the visible set is asked of the engine and built once. Per
// request the only gate work is a binary search for the interval now falls
// in.
package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/locales"
	"studio/web/templates"
)

// Handler renders the public sites, each at the host its public URL names
// (public.SiteForHost).
type Handler struct {
	eng *engine.Engine
	pub *public.Public
	log *slog.Logger
	// origin is the public base URL every absolute URL is built from
	// (feeds, the sitemap, robots.txt, canonical and sharing tags): the
	// configured one, never the request's Host header, which the client
	// writes (issue 10: a request for "evil.test" must not put evil.test in
	// a page a CDN then serves to everyone).
	origin string
	// maxAge is the ceiling on CDN-Cache-Control's max-age, in seconds.
	maxAge int

	reader siteReader
	// notFounds counts the public 404s per path and day, a few seconds at
	// a time (notfound.go).
	notFounds notFounds

	mu    sync.Mutex
	cache map[string]*snapshot // by site, snapshot, name, zone and language: snapshots never change
	// latest is, per site, the snapshot built of it at its highest rev:
	// the next one is built from it, reading only what changed since.
	latest map[string]*snapshot
	// building is held by the one build under way: builds go one at a
	// time, each from the one before (see snapshot).
	building chan struct{}

	// renders is the sites read for the Renders at one instant (see sites).
	renders struct {
		sync.Mutex
		at    time.Time
		sites []public.LiveSite
	}
}

// Options are the public site's settings.
type Options struct {
	// PublicURL is the site's public base URL, scheme and host (and port):
	// "https://news.example". Empty is DefaultPublicURL.
	PublicURL string
	// CDNMaxAge is the longest a CDN may keep a public page (§7.4's
	// lifetime, capped further): releases and gates are foreseen, but a
	// person's "Publish site" or Publish now is not, and Studio purges no
	// CDN. Zero is DefaultCDNMaxAge.
	CDNMaxAge time.Duration
	// NotFounds counts the public site's 404s for broken-links' "top 404
	// paths" (engine/jobs.Jobs); nil counts nothing.
	NotFounds NotFoundCounter
}

// Defaults of Options: the address `studio serve` listens on by default, and
// a minute, the ticker's own granularity.
const (
	DefaultPublicURL = "http://127.0.0.1:8080"
	DefaultCDNMaxAge = 60 * time.Second
)

// New returns the public site handlers. log may be nil.
func New(eng *engine.Engine, pub *public.Public, log *slog.Logger, opt Options) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opt.PublicURL == "" {
		opt.PublicURL = DefaultPublicURL
	}
	if opt.CDNMaxAge <= 0 {
		opt.CDNMaxAge = DefaultCDNMaxAge
	}
	h := &Handler{eng: eng, pub: pub, log: log, origin: strings.TrimSuffix(opt.PublicURL, "/"),
		maxAge: max(1, int(opt.CDNMaxAge/time.Second)), cache: map[string]*snapshot{},
		latest: map[string]*snapshot{}, building: make(chan struct{}, 1)}
	h.notFounds.counter = opt.NotFounds
	h.notFounds.log = func(err error) { log.Warn("site: counting 404s failed", "err", err) }
	h.reader.load = pub.LiveSites
	h.reader.generation = pub.Generation
	return h
}

// request is one public request: the instant it is judged at, taken once,
// and what the live snapshot shows then.
type request struct {
	now    time.Time
	live   public.LiveSite
	snap   *snapshot
	view   *view
	origin string // the public base URL, for absolute URLs
}

// begin takes the request's one instant and finds its view.
func (h *Handler) begin(r *http.Request) (*request, error) {
	if ra, ok := r.Context().Value(renderAtKey{}).(renderAt); ok { // a Render: its instant, its site
		return h.beginAt(r, ra.at, ra.siteID)
	}
	return h.beginAt(r, h.eng.Now(), "")
}

// errNoSite: several sites, and none answers the request's host.
var errNoSite = errors.New("site: no site answers this host")

// beginAt finds the view at now of the site siteID, or ("") of the site
// the request's host names (public.SiteForHost). It is nil, with no
// error, while Studio holds no site; errNoSite when no site answers.
func (h *Handler) beginAt(r *http.Request, now time.Time, siteID string) (*request, error) {
	live, sn, err := h.snapshot(r.Context(), r.Host, siteID)
	if err != nil || sn == nil {
		return nil, err
	}
	origin := h.origin
	if sn.site.PublicURL != "" { // the site's own, set up in Studio
		origin = sn.site.PublicURL
	}
	return &request{now: now, live: live, snap: sn, view: sn.viewAt(now), origin: origin}, nil
}

// unavailable answers a request begin found no view for: not set up
// (nil err), no site at this host, or a failure.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case err == nil:
		h.notSetUp(w, r)
	case errors.Is(err, errNoSite):
		f := templates.SiteFrame{SiteName: "Studio", Lang: locales.Match(r.Header.Get("Accept-Language"))}
		h.uncached(w, r, http.StatusNotFound, templates.SiteNotFound(f))
	default:
		h.fail(w, r, err)
	}
}

// snapshot returns the site (by id, or else by host) as read for this
// request, with its next due release, and its live snapshot, prepared once.
func (h *Handler) snapshot(ctx context.Context, host, siteID string) (public.LiveSite, *snapshot, error) {
	sites, err := h.sites(ctx)
	if err != nil || len(sites) == 0 {
		return public.LiveSite{}, nil, err
	}
	var live public.LiveSite
	var found bool
	if siteID != "" {
		if i := slices.IndexFunc(sites, func(s public.LiveSite) bool { return s.ID == siteID }); i >= 0 {
			live, found = sites[i], true
		}
	} else {
		live, found = public.SiteForHost(sites, host)
	}
	if !found {
		return public.LiveSite{}, nil, errNoSite
	}
	s := live.Site
	key := s.ID + "/" + s.PublishedSnapshotID + "/" + s.Name + "/" + s.TimeZone + "/" + s.Lang + "/" + s.PublicURL
	h.mu.Lock()
	sn, ok := h.cache[key]
	h.mu.Unlock()
	if ok {
		return live, sn, nil
	}
	// One build at a time: a request whose snapshot is not cached waits
	// for the build under way, then finds it cached (it was the same) or
	// builds its own from it, reading only what changed since. So the
	// requests after a publish share one build, and a burst of publishes
	// costs a chain of small builds, not one whole build per request. The
	// build ignores its request's cancellation: the next one needs it.
	select {
	case h.building <- struct{}{}:
	case <-ctx.Done():
		return live, nil, ctx.Err()
	}
	defer func() { <-h.building }()
	h.mu.Lock()
	sn, ok = h.cache[key]
	base := h.latest[s.ID]
	h.mu.Unlock()
	if ok {
		return live, sn, nil
	}
	var prev *public.Snapshot
	if base != nil && base.site.Rev < s.Rev {
		prev = base.pub
	} else {
		base = nil
	}
	pub, err := h.pub.SnapshotAfter(context.WithoutCancel(ctx), s, prev)
	if err != nil {
		return live, nil, err
	}
	sn = newSnapshot(key, pub, base)
	h.mu.Lock()
	if len(h.cache) >= maxSnapshots {
		clear(h.cache)
	}
	h.cache[key] = sn
	if l := h.latest[s.ID]; l == nil || l.site.Rev < s.Rev {
		h.latest[s.ID] = sn
	}
	h.mu.Unlock()
	return live, sn, nil
}

func (q *request) frame() templates.SiteFrame {
	f := q.view.frame
	f.Origin = q.origin
	return f
}

// homeSize is how many entries the home page lists; /posts lists them all.
const homeSize = 10

// Home lists the newest visible entries.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	h.html(w, r, "/", func(q *request) (templ.Component, bool) {
		f := q.frame()
		entries := make([]templates.SiteEntry, 0, min(homeSize, len(q.view.entries)))
		for _, it := range q.view.entries[:min(homeSize, len(q.view.entries))] {
			entries = append(entries, it.entry)
		}
		head := templates.SiteHead{Title: f.SiteName, Canonical: q.origin + "/", Type: "website"}
		return templates.SiteHome(f, head, entries, len(q.view.entries) > homeSize), true
	})
}

// Posts lists every visible entry.
func (h *Handler) Posts(w http.ResponseWriter, r *http.Request) {
	h.html(w, r, "/posts", func(q *request) (templ.Component, bool) {
		f := q.frame()
		entries := make([]templates.SiteEntry, len(q.view.entries))
		for i, it := range q.view.entries {
			entries[i] = it.entry
		}
		head := templates.SiteHead{Title: t(f.Lang, "site.all_articles") + " · " + f.SiteName,
			Canonical: q.origin + "/posts", Type: "website"}
		return templates.SitePosts(f, head, entries), true
	})
}

// Entry serves /posts/{slug}.
func (h *Handler) Entry(w http.ResponseWriter, r *http.Request) {
	h.article(w, r, "/posts/"+chi.URLParam(r, "slug"))
}

// Page serves /{slug}.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) {
	h.article(w, r, "/"+chi.URLParam(r, "slug"))
}

func (h *Handler) article(w http.ResponseWriter, r *http.Request, path string) {
	h.html(w, r, path, func(q *request) (templ.Component, bool) {
		it, ok := q.view.byPath[path]
		if !ok {
			return nil, false
		}
		f := q.frame()
		a := templates.SiteArticleView{Entry: it.entry, Images: q.view.images(it), Related: q.view.related(it)}
		return templates.SiteArticle(f, seo(q, it, q.view.refImages(it)), a), true
	})
}

// seo is the head of a visible page or entry: Open Graph and JSON-LD
// (§7.2: only rendered nodes have any).
func seo(q *request, it *item, images []templates.SiteImage) templates.SiteHead {
	e, site := it.entry, q.snap.site.Name
	url := q.origin + e.Path
	h := templates.SiteHead{Title: e.Title + " · " + site, Name: e.Title, Description: e.Summary, Canonical: url, Type: "website"}
	ld := map[string]any{"@context": "https://schema.org", "url": url}
	if it.kind == release.KindContentEntry {
		h.Type, h.PublishedAt = "article", e.PublishedAt
		ld["@type"], ld["headline"] = "Article", e.Title
		ld["publisher"] = map[string]any{"@type": "Organization", "name": site}
		if e.PublishedAt != nil {
			ld["datePublished"] = e.PublishedAt.Format(time.RFC3339)
		}
	} else {
		ld["@type"], ld["name"] = "WebPage", e.Title
	}
	if e.Summary != "" {
		ld["description"] = e.Summary
	}
	if e.Lang != "" {
		ld["inLanguage"] = e.Lang
	}
	if len(images) > 0 {
		h.Image = q.origin + images[0].URL
		var all []string
		for _, img := range images {
			all = append(all, q.origin+img.URL)
		}
		ld["image"] = all
	}
	h.JSONLD = ld
	return h
}

// html serves a page at path: render builds it from the request's view and
// says whether it exists at all. Rendered pages are memoised in the view.
func (h *Handler) html(w http.ResponseWriter, r *http.Request, path string, render func(*request) (templ.Component, bool)) {
	h.serve(w, r, path, func(q *request) (*page, bool, error) {
		c, ok := render(q)
		if !ok {
			return nil, false, nil
		}
		var buf bytes.Buffer
		if err := c.Render(r.Context(), &buf); err != nil {
			return nil, false, err
		}
		return &page{contentType: "text/html; charset=utf-8", body: buf.Bytes()}, true, nil
	})
}

// serve answers a public GET at path with what build makes of the view, or
// the 404 page when build says it does not exist now.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, path string, build func(*request) (*page, bool, error)) {
	q, err := h.begin(r)
	if err != nil || q == nil {
		h.unavailable(w, r, err)
		return
	}
	key := path
	if p, ok := q.view.rendered.Load(key); ok {
		h.ok(w, r, q, p.(*page))
		return
	}
	p, ok, err := build(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !ok {
		h.countNotFound(r, q)
		h.notFound(w, r, q)
		return
	}
	p.etag = etag(q, path)
	if q.view.bytes.Load()+int64(len(p.body)) <= maxRendered {
		if _, loaded := q.view.rendered.LoadOrStore(key, p); !loaded {
			q.view.bytes.Add(int64(len(p.body)))
		}
	}
	h.ok(w, r, q, p)
}

// ok sends a published 200 (§7.4): browsers revalidate every time with the
// ETag, and a CDN may keep it only until the live site's next change — the
// snapshot's next gate or the site's next due release — and never longer
// than the ceiling, since a person's publish cannot be foreseen.
func (h *Handler) ok(w http.ResponseWriter, r *http.Request, q *request, p *page) {
	tag := p.etag
	hd := w.Header()
	hd.Set("ETag", tag)
	hd.Set("Cache-Control", "public, max-age=0, must-revalidate")
	hd.Set("CDN-Cache-Control", "public, max-age="+strconv.Itoa(q.snap.pub.CDNMaxAge(q.live, q.now, h.maxAge)))
	if noneMatch(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, p)
}

func writeBody(w http.ResponseWriter, status int, p *page) {
	hd := w.Header()
	if p.file {
		// An SVG opened on its own must not run script on the site's origin.
		hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	}
	hd.Set("Content-Type", p.contentType)
	hd.Set("Content-Length", strconv.Itoa(len(p.body)))
	w.WriteHeader(status)
	w.Write(p.body)
}

// etag names what a 200 holds: the live snapshot (with the site's name and
// zone), the gate interval (what is visible changes only between
// intervals), the origin (absolute URLs) and the path. It is weak (RFC 9110
// §8.8.1): it names what the page says, not its bytes, and the same page
// goes out gzip-, zstd- or not compressed as the reader asks (handlers'
// compress), all under this one tag, so a revalidation in any coding is
// answered 304.
func etag(q *request, path string) string {
	sum := sha256.Sum256([]byte(q.snap.key + "\x00" + strconv.Itoa(q.view.interval) + "\x00" + q.origin + path))
	return `W/"` + hex.EncodeToString(sum[:12]) + `"`
}

// notFound is the one 404 of the public site: the same page and headers for
// a path that never existed, a draft and a gated node, never stored.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, q *request) {
	h.uncached(w, r, http.StatusNotFound, templates.SiteNotFound(q.frame()))
}

// notSetUp answers while Studio holds no site: 503, in the reader's
// language, saying nothing of the setup link but that it exists.
func (h *Handler) notSetUp(w http.ResponseWriter, r *http.Request) {
	f := templates.SiteFrame{SiteName: "Studio", Lang: locales.Match(r.Header.Get("Accept-Language"))}
	h.uncached(w, r, http.StatusServiceUnavailable, templates.SiteNotSetUp(f))
}

// uncached writes page with status, for no cache to keep.
func (h *Handler) uncached(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	var buf bytes.Buffer
	if err := page.Render(r.Context(), &buf); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// noneMatch reports whether an If-None-Match header names tag, with the weak
// comparison RFC 9110 asks for (W/"x" matches "x") and "*".
func noneMatch(header, tag string) bool {
	tag = strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			return true
		}
	}
	return false
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		h.log.Error("site: request failed", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(http.StatusServiceUnavailable), http.StatusServiceUnavailable)
}

// t is a word of the site's language.
func t(lang, key string, args ...any) string { return locales.For(lang).T(key, args...) }
