package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
)

// nodeJSON is a page or an entry: its working copy (the latest version,
// with the body's fields at the top level), the version that is live, and
// the release holding it, if one does.
type nodeJSON struct {
	ID   string           `json:"id"`
	Kind release.NodeKind `json:"kind"`
	Rev  int64            `json:"rev"`
	Hash string           `json:"hash"`
	content.Body
	UpdatedAt time.Time        `json:"updatedAt"`
	Live      *release.Version `json:"live,omitempty"`
	Held      *heldJSON        `json:"heldBy,omitempty"`
	// Author is who created the node (kept across versions).
	Author *release.Actor `json:"author,omitempty"`
	// Abilities are what the caller may do to it now (the engine's).
	Abilities releases.NodeAbilities `json:"abilities"`
}

// heldJSON is the release that holds a node (§6.2): while it does, the
// node cannot be changed.
type heldJSON struct {
	ReleaseID string        `json:"releaseId"`
	State     release.State `json:"state"`
	At        *time.Time    `json:"at,omitempty"`
}

func (h *Handler) nodeOf(ctx context.Context, d releases.NodeDetail) nodeJSON {
	n := nodeJSON{ID: d.ID, Kind: d.Kind, Rev: d.Rev, Hash: d.Hash, Body: d.Body, UpdatedAt: d.UpdatedAt,
		Abilities: h.releases.NodeAbilities(userOf(ctx), d)}
	if d.Author.ID != "" {
		a := d.Author
		n.Author = &a
	}
	if d.Live != nil {
		n.Live = &release.Version{Rev: d.Live.Rev, Hash: d.Live.Hash}
	}
	if d.Held != nil {
		n.Held = &heldJSON{ReleaseID: d.Held.ReleaseID, State: d.Held.State, At: d.Held.At}
	}
	return n
}

// Entries lists the site's articles; Pages its pages.
func (h *Handler) Entries(w http.ResponseWriter, r *http.Request) {
	h.listNodes(w, r, release.KindContentEntry, "entries")
}

// Pages lists the site's pages.
func (h *Handler) Pages(w http.ResponseWriter, r *http.Request) {
	h.listNodes(w, r, release.KindPage, "pages")
}

func (h *Handler) listNodes(w http.ResponseWriter, r *http.Request, kind release.NodeKind, name string) {
	list, err := h.nodes.Nodes(r.Context(), userOf(r.Context()), chi.URLParam(r, "siteId"))
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	out := []nodeJSON{}
	for _, d := range list {
		if d.Kind == kind {
			out = append(out, h.nodeOf(r.Context(), d))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{name: out})
}

// Entry answers one article; Page one page.
func (h *Handler) Entry(w http.ResponseWriter, r *http.Request) {
	h.node(w, r, release.KindContentEntry)
}

// Page answers one page.
func (h *Handler) Page(w http.ResponseWriter, r *http.Request) { h.node(w, r, release.KindPage) }

func (h *Handler) node(w http.ResponseWriter, r *http.Request, kind release.NodeKind) {
	d, ok := h.find(w, r, kind)
	if ok {
		writeJSON(w, http.StatusOK, h.nodeOf(r.Context(), d))
	}
}

// find reads the route's node; a node of another kind is not found here
// (an article is not under …/pages).
func (h *Handler) find(w http.ResponseWriter, r *http.Request, kind release.NodeKind) (releases.NodeDetail, bool) {
	d, err := h.nodes.Node(r.Context(), userOf(r.Context()), chi.URLParam(r, "siteId"), chi.URLParam(r, "nodeId"))
	if err == nil && d.Kind != kind {
		err = engine.ErrNotFound
	}
	if err != nil {
		h.fail(w, r.Context(), err)
		return releases.NodeDetail{}, false
	}
	return d, true
}

// patchBody is a PATCH of a page or an entry: the rev the caller last saw
// and the editor's fields it changes; the others keep their value.
type patchBody struct {
	ExpectedRev int64           `json:"expectedRev"`
	Title       *string         `json:"title"`
	Slug        *string         `json:"slug"`
	Summary     *string         `json:"summary"`
	Body        *string         `json:"body"`
	Lang        *string         `json:"lang"`
	Status      *content.Status `json:"status"`
}

// PatchEntry saves a new version of an article; PatchPage of a page.
func (h *Handler) PatchEntry(w http.ResponseWriter, r *http.Request) {
	h.patch(w, r, release.KindContentEntry)
}

// PatchPage saves a new version of a page.
func (h *Handler) PatchPage(w http.ResponseWriter, r *http.Request) { h.patch(w, r, release.KindPage) }

func (h *Handler) patch(w http.ResponseWriter, r *http.Request, kind release.NodeKind) {
	ctx := r.Context()
	var body patchBody
	if !h.decode(w, r, &body) {
		return
	}
	p := nodes.NodePatch{Title: body.Title, Slug: body.Slug, Summary: body.Summary, Text: body.Body, Lang: body.Lang, Status: body.Status}
	switch {
	case body.ExpectedRev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "expectedRev")
		return
	case p.Empty():
		h.badRequest(w, ctx, CodeNothingToChange, "")
		return
	}
	d, ok := h.find(w, r, kind)
	if !ok {
		return
	}
	if _, err := h.nodes.PatchNode(ctx, userOf(ctx), d.SiteID, d.ID, body.ExpectedRev, p); err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.node(w, r, kind)
}
