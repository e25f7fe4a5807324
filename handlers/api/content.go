package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/handlers/wire"
)

// Entries lists the site's articles; Pages its pages.
func (h *Handler) Entries(w http.ResponseWriter, r *http.Request) {
	h.listNodes(w, r, release.KindContentEntry, "entries")
}

// Pages lists the site's pages.
func (h *Handler) Pages(w http.ResponseWriter, r *http.Request) {
	h.listNodes(w, r, release.KindPage, "pages")
}

func (h *Handler) listNodes(w http.ResponseWriter, r *http.Request, kind release.NodeKind, name string) {
	list, err := h.nodes.NodeAnswers(r.Context(), userOf(r.Context()), chi.URLParam(r, "siteId"))
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	out := []wire.Node{}
	for _, a := range list {
		if a.Kind == kind {
			out = append(out, wire.NodeAnswerOf(a))
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
	a, err := h.nodes.NodeAnswer(r.Context(), userOf(r.Context()), chi.URLParam(r, "siteId"), chi.URLParam(r, "nodeId"))
	h.answerNode(w, r, kind, a, err)
}

// answerNode writes a, a node of kind; a node of another kind is not found
// here (an article is not under …/pages).
func (h *Handler) answerNode(w http.ResponseWriter, r *http.Request, kind release.NodeKind, a nodes.Answer, err error) {
	if err == nil && a.Kind != kind {
		err = engine.ErrNotFound
	}
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	writeJSON(w, http.StatusOK, wire.NodeAnswerOf(a))
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
	a, err := h.nodes.PatchNodeAnswer(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "nodeId"), kind, body.ExpectedRev, p)
	h.answerNode(w, r, kind, a, err)
}
