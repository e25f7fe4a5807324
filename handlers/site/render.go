package site

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
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
// entry's page through it). It serves the default site only, as the public
// site does; a render is not a visit, so its 404s are not counted.
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

// bufferWriter keeps a response in memory.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(status int)      { b.status = status }

// countNotFound counts a visitor's 404 of a public path (not a render's).
func (h *Handler) countNotFound(r *http.Request, q *request) {
	if h.notFounds == nil || r.Context().Value(renderAtKey{}) != nil {
		return
	}
	if err := h.notFounds.CountNotFound(r.Context(), q.snap.site.ID, r.URL.Path, q.now); err != nil {
		h.log.Warn("site: counting a 404 failed", "err", err)
	}
}
