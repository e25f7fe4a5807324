// Package site serves the public website from the live snapshot: the home
// page of entries, entry pages and page routes. Only published nodes of the
// live snapshot are shown; anything else answers 404 with no-store.
package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/release"
	"studio/web/templates"
)

// Handler renders the default site (the first one). Later, the host name
// will choose the site.
type Handler struct {
	eng *engine.Engine
	log *slog.Logger

	mu    sync.Mutex
	cache map[string]*view // by snapshot id: snapshots never change
}

// New returns the public site handlers.
func New(eng *engine.Engine, log *slog.Logger) *Handler {
	return &Handler{eng: eng, log: log, cache: map[string]*view{}}
}

// view is a snapshot made ready to serve.
type view struct {
	frame   templates.SiteFrame
	entries []templates.SiteEntry
	byPath  map[string]templates.SiteEntry
}

func (h *Handler) current(r *http.Request) (*view, string, error) {
	sites, err := h.eng.Sites(r.Context())
	if err != nil || len(sites) == 0 {
		return nil, "", err
	}
	s := sites[0]
	key := s.ID + "/" + s.PublishedSnapshotID + "/" + s.Name + "/" + s.TimeZone
	h.mu.Lock()
	v, ok := h.cache[key]
	h.mu.Unlock()
	if ok {
		return v, key, nil
	}
	nodes, err := h.eng.LiveNodes(r.Context(), s)
	if err != nil {
		return nil, "", err
	}
	v = build(s, nodes)
	h.mu.Lock()
	if len(h.cache) > 64 { // old snapshots are rarely asked for again
		clear(h.cache)
	}
	h.cache[key] = v
	h.mu.Unlock()
	return v, key, nil
}

func build(s engine.Site, nodes []engine.LiveNode) *view {
	loc, err := localtime.LoadZone(s.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	v := &view{frame: templates.SiteFrame{SiteName: s.Name, Lang: "tr"}, byPath: map[string]templates.SiteEntry{}}
	for _, n := range nodes {
		if n.Body.Status != content.StatusPublished {
			continue
		}
		e := templates.SiteEntry{Title: n.Body.Title, Summary: n.Body.Summary, Lang: n.Body.Lang, Body: paragraphs(n.Body.Text)}
		if p := n.Body.PublishedAt; p != nil {
			local := p.In(loc) // readers see dates in the site's zone
			e.PublishedAt = &local
		}
		switch n.Kind {
		case release.KindContentEntry:
			e.Path = "/posts/" + n.Body.Slug
			v.entries = append(v.entries, e)
		case release.KindPage:
			e.Path = "/" + n.Body.Slug
			v.frame.Pages = append(v.frame.Pages, e)
		default:
			continue
		}
		v.byPath[e.Path] = e
	}
	sort.SliceStable(v.entries, func(i, j int) bool {
		a, b := v.entries[i].PublishedAt, v.entries[j].PublishedAt
		return a != nil && (b == nil || a.After(*b))
	})
	sort.SliceStable(v.frame.Pages, func(i, j int) bool { return v.frame.Pages[i].Title < v.frame.Pages[j].Title })
	return v
}

func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Home lists the live entries.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	v, etag, err := h.current(r)
	if err != nil || v == nil {
		h.fail(w, r, err)
		return
	}
	h.write(w, r, http.StatusOK, etag, templates.SiteHome(v.frame, v.entries))
}

// Entry serves /posts/{slug}.
func (h *Handler) Entry(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "/posts/"+chi.URLParam(r, "slug"))
}

// Page serves /{slug}.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, "/"+chi.URLParam(r, "slug"))
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, path string) {
	v, etag, err := h.current(r)
	if err != nil || v == nil {
		h.fail(w, r, err)
		return
	}
	e, ok := v.byPath[path]
	if !ok {
		h.write(w, r, http.StatusNotFound, "", templates.SiteNotFound(v.frame))
		return
	}
	h.write(w, r, http.StatusOK, etag+path, templates.SiteArticle(v.frame, e))
}

// write sends a page. A 200 may be revalidated by its ETag (the live
// snapshot): browsers always ask again, so a release shows at once.
// Anything else is never stored.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, status int, etag string, c templ.Component) {
	if status == http.StatusOK {
		sum := sha256.Sum256([]byte(etag))
		tag := `"` + hex.EncodeToString(sum[:12]) + `"`
		w.Header().Set("ETag", tag)
		w.Header().Set("Cache-Control", "public, max-age=0, must-revalidate")
		if noneMatch(r.Header.Get("If-None-Match"), tag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// noneMatch reports whether an If-None-Match header names tag, with the weak
// comparison RFC 9110 asks for (W/"x" matches "x") and "*".
func noneMatch(header, tag string) bool {
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
