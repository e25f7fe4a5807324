package site

import (
	"bytes"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/gate"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/locales"
	"studio/web/templates"
)

// Preview serves /preview/{token}: the working copy of the node a signed
// link names (RFC §7.3), draft or published, gated or not, with a notice of
// its gate. It looks as the live page will: the site's chrome and the
// notices in the site's language, the node's own language on its content
// element. Never stored, never indexed; a forged or expired link is the
// site's 404.
func (h *Handler) Preview(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
	token := chi.URLParam(r, "token")
	q, n, expires, ok := h.previewed(w, r, token)
	if !ok {
		return
	}
	f := q.frame()
	p := locales.For(f.Lang)

	e := templates.SiteEntry{Title: n.Body.Title, Summary: n.Body.Summary, Lang: n.Body.Lang, Body: n.Body.Text}
	if at := n.Body.PublishedAt; at != nil {
		local := at.In(q.snap.loc)
		e.PublishedAt = &local
	}
	a := templates.SiteArticleView{Entry: e, Notices: notices(q, p, n, expires)}
	for _, ref := range n.Body.Refs {
		if rel, ok := q.view.byID[ref]; ok && rel.kind == release.KindContentEntry && rel.id != n.ID {
			a.Related = append(a.Related, rel.entry) // other nodes only as the public sees them
			continue
		}
		if d, err := h.pub.PreviewNode(r.Context(), q.snap.site.ID, ref); err == nil && d.Kind == release.KindAsset {
			a.Images = append(a.Images, templates.SiteImage{URL: "/preview/" + token + "/media/" + d.Body.Slug, Alt: d.Body.Alt})
		}
	}
	head := templates.SiteHead{Title: e.Title + " · " + f.SiteName, NoIndex: true}
	var buf bytes.Buffer
	if err := templates.SiteArticle(f, head, a).Render(r.Context(), &buf); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, http.StatusOK, &page{contentType: "text/html; charset=utf-8", body: buf.Bytes()})
}

// notices say what the preview shows: that it is a preview, the node's
// status when it is not published, its gate when one holds it back, and
// until when the link works. Times are in the site's zone.
func notices(q *request, p *locales.Printer, n releases.NodeDetail, expires time.Time) []string {
	zone := q.snap.site.TimeZone
	if zone == "" {
		zone = "UTC"
	}
	city := p.ZoneCity(zone)
	out := []string{p.T("site.preview_notice")}
	if n.Body.Status != content.StatusPublished {
		out = append(out, p.T("site.preview_status", "Status", p.T("status."+string(n.Body.Status))))
	}
	g := public.Gate(n.ID, n.Body)
	switch gate.State(g, q.now) {
	case gate.Embargoed:
		out = append(out, p.T("site.embargoed_until", "When", p.DateTime(g.From.In(q.snap.loc)), "City", city))
	case gate.Expired:
		out = append(out, p.T("site.expired_on", "When", p.DateTime(g.Until.In(q.snap.loc)), "City", city))
	}
	out = append(out, p.T("site.preview_expires", "When", p.DateTime(expires.In(q.snap.loc)), "City", city))
	return out
}

// PreviewMedia serves /preview/{token}/media/{slug}: the working copy of an
// asset the previewed node refers to, so a preview shows its images before
// they are public.
func (h *Handler) PreviewMedia(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
	q, n, _, ok := h.previewed(w, r, chi.URLParam(r, "token"))
	if !ok {
		return
	}
	slug := chi.URLParam(r, "slug")
	for _, ref := range n.Body.Refs {
		d, err := h.pub.PreviewNode(r.Context(), q.snap.site.ID, ref)
		if err == nil && d.Kind == release.KindAsset && d.Body.Slug == slug {
			w.Header().Set("Cache-Control", "no-store")
			writeBody(w, http.StatusOK, &page{contentType: d.Body.Mime, body: d.Body.Data, file: true})
			return
		}
	}
	h.notFound(w, r, q)
}

// previewed checks a preview token at the request's one instant and reads
// the node it names; otherwise it answers the 404 and returns false.
func (h *Handler) previewed(w http.ResponseWriter, r *http.Request, token string) (*request, releases.NodeDetail, time.Time, bool) {
	now := h.eng.Now()
	id, expires, err := h.pub.VerifyPreview(r.Context(), token, now)
	var n releases.NodeDetail
	if err == nil {
		n, err = h.pub.PreviewedNode(r.Context(), id)
	}
	// The preview shows the node on its own site, whatever the host.
	q, qerr := h.beginAt(r, now, n.SiteID)
	if qerr != nil || q == nil {
		h.unavailable(w, r, qerr)
		return nil, releases.NodeDetail{}, time.Time{}, false
	}
	if err == nil && n.Kind != release.KindPage && n.Kind != release.KindContentEntry {
		err = engine.ErrNotFound
	}
	if err != nil {
		if !errors.Is(err, engine.ErrNotFound) {
			h.fail(w, r, err)
		} else {
			h.notFound(w, r, q)
		}
		return nil, releases.NodeDetail{}, time.Time{}, false
	}
	return q, n, expires, true
}
