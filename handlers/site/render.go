package site

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"studio/engine/public"
)

// renderAtKey carries a Render's renderAt.
type renderAtKey struct{}

// renderAt is the instant a Render is judged at and the site it asked for.
type renderAt struct {
	at     time.Time
	siteID string
}

// Render answers a public path as a visitor's GET would at the instant at
// (engine/jobs.Renderer: feed-check renders /rss.xml, /sitemap.xml and each
// entry's page through it), for the site siteID whatever its host; a
// render is not a visit, so its 404s are not counted.
func (h *Handler) Render(ctx context.Context, siteID, path string, at time.Time) (int, []byte, error) {
	r, err := http.NewRequestWithContext(context.WithValue(ctx, renderAtKey{}, renderAt{at: at, siteID: siteID}),
		http.MethodGet, path, nil)
	if err != nil {
		return 0, nil, err
	}
	w := &bufferWriter{header: http.Header{}, status: http.StatusOK}
	switch {
	case path == "/":
		h.Home(w, r)
	case path == "/posts":
		h.Posts(w, r)
	case path == "/rss.xml":
		h.RSS(w, r)
	case path == "/sitemap.xml":
		h.Sitemap(w, r)
	case path == "/robots.txt":
		h.Robots(w, r)
	case strings.HasPrefix(path, "/media/"):
		h.media(w, r, strings.TrimPrefix(path, "/media/"))
	case strings.HasPrefix(path, "/posts/"), strings.Count(path, "/") == 1:
		h.article(w, r, path)
	default:
		q, err := h.begin(r)
		if err != nil || q == nil {
			return 0, nil, fmt.Errorf("site: render %s: %v", path, err)
		}
		h.notFound(w, r, q)
	}
	if w.status == http.StatusServiceUnavailable {
		return 0, nil, fmt.Errorf("site: render %s: the public site failed or is not %s", path, siteID)
	}
	return w.status, w.body.Bytes(), nil
}

// sites reads the sites for a request. Renders at one instant share one
// read: feed-check renders a page of entries at its step's instant, and
// they are one look at the site, as requests arriving together share one
// read (siteReader); a Render at another instant reads afresh.
func (h *Handler) sites(ctx context.Context) ([]public.LiveSite, error) {
	ra, ok := ctx.Value(renderAtKey{}).(renderAt)
	if !ok {
		return h.reader.sites(ctx)
	}
	rs := &h.renders
	rs.Lock()
	defer rs.Unlock()
	if rs.sites != nil && rs.at.Equal(ra.at) {
		return rs.sites, nil
	}
	sites, err := h.reader.sites(ctx)
	if err != nil {
		return nil, err
	}
	rs.at, rs.sites = ra.at, sites
	return sites, nil
}

// bufferWriter keeps a response in memory.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(status int)      { b.status = status }

// NotFound answers a path no public route matches (the router's NotFound):
// the site's one 404 page, counted like every other public 404 unless the
// path is Studio's, the API's or another of the process's own.
func (h *Handler) NotFound(w http.ResponseWriter, r *http.Request) {
	q, err := h.begin(r)
	if err != nil || q == nil {
		h.unavailable(w, r, err)
		return
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !ownPrefixes[first] {
		h.countNotFound(r, q)
	}
	h.notFound(w, r, q)
}

// ownPrefixes are first path segments the process serves itself, never the
// public site: their 404s are not the site's.
var ownPrefixes = map[string]bool{"studio": true, "api": true, "mcp": true, "preview": true, "static": true,
	"health": true, "metrics": true}
