package studio

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/locales"
	"studio/web/markdown"
	"studio/web/templates"
)

// reviewOf is one item of release releaseID as its review shows it: the
// fields and the Markdown's diff (itemReview), and a page or an article
// rendered as the public site will show it, live beside after, or a media
// file's thumbnails (RFC §15.1: see what you approve).
func reviewOf(r *http.Request, releaseID string, d content.ItemDiff, loc *time.Location) templates.ItemReview {
	it := itemReview(r.Context(), d, loc)
	media := func(side string) string { return to(r, "/studio/releases/"+releaseID+"/media/"+side+"/") }
	switch d.Item.NodeKind {
	case release.KindAsset:
		it.Media = &templates.MediaReview{Live: mediaFileView(r, d.Base, media("live")), After: mediaFileView(r, d.Target, media("after"))}
	case release.KindPage, release.KindContentEntry:
		it.Rendered = renderedReview(d.Base, d.Target, media("live"), media("after"))
	}
	return it
}

// renderedReview renders both sides block by block and marks the blocks
// one side has and the other not.
func renderedReview(base, target *content.Body, liveMedia, afterMedia string) *templates.RenderedReview {
	var v templates.RenderedReview
	var before, after []string
	if base != nil {
		v.Live = templates.RenderedSide{Shown: true, Title: base.Title, Summary: base.Summary}
		before = markdown.Blocks(base.Text, liveMedia)
	}
	if target != nil {
		v.After = templates.RenderedSide{Shown: true, Title: target.Title, Summary: target.Summary}
		after = markdown.Blocks(target.Text, afterMedia)
	}
	// A side that is all new, or all gone, is not marked block by block.
	marks := base != nil && target != nil
	for _, l := range content.Diff(before, after) {
		b := templates.RenderedBlock{HTML: l.Text, Changed: marks && l.Op != ' '}
		if l.Op != '+' {
			v.Live.Blocks = append(v.Live.Blocks, b)
		}
		if l.Op != '-' {
			v.After.Blocks = append(v.After.Blocks, b)
		}
	}
	return &v
}

// mediaFileView is one version of a media file as a review shows it, its
// image from base (a side's media address); nil for none.
func mediaFileView(r *http.Request, b *content.Body, base string) *templates.MediaFileView {
	if b == nil {
		return nil
	}
	return &templates.MediaFileView{URL: base + url.PathEscape(b.Slug), Name: b.Slug, Alt: b.Alt, Mime: b.Mime,
		Size: locales.From(r.Context()).FileSize(len(b.Data)), Image: strings.HasPrefix(b.Mime, "image/")}
}

// ReviewMedia serves a media file as a review of a release shows it
// (releases.ReviewMedia): GET /studio/releases/{id}/media/{side}/{slug},
// side live or after.
func (h *Handler) ReviewMedia(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	side := chi.URLParam(r, "side")
	if side != "live" && side != "after" {
		h.fail(w, r, engine.ErrNotFound) // Studio's own 404 page
		return
	}
	b, err := h.releases.ReviewMedia(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "id"), chi.URLParam(r, "slug"), side == "live")
	h.serveMedia(w, r, b, err)
}

// WorkingMedia serves a media file as its working copy is, live or not
// yet, for the editor's preview: GET /studio/media/{slug}.
func (h *Handler) WorkingMedia(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	b, err := h.nodes.WorkingMedia(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "slug"))
	h.serveMedia(w, r, b, err)
}
