package studio

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"studio/web/templates"
)

// UndoForm shows what undoing a published release would do.
func (h *Handler) UndoForm(w http.ResponseWriter, r *http.Request) {
	h.renderUndo(w, r, http.StatusOK, "")
}

func (h *Handler) renderUndo(w http.ResponseWriter, r *http.Request, status int, errMsg string) {
	ctx := r.Context()
	st := stateOf(ctx)
	plan, err := h.releases.PlanUndo(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	if msg, _, code, ok := refusal(ctx, err); ok {
		h.renderRelease(w, r, code, chi.URLParam(r, "id"), msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.UndoView{ReleaseID: plan.Release.ID, Title: releaseTitle(plan.Release), SiteRev: plan.Site.Rev, Error: errMsg,
		Latest: loadLatest(status, "/studio/releases/"+plan.Release.ID+"/undo")}
	for _, o := range plan.Reverts {
		v.Reverts = append(v.Reverts, releaseTitle(o))
	}
	for _, o := range plan.Conflicts {
		v.Conflicts = append(v.Conflicts, releaseTitle(o))
	}
	h.render(w, r, status, templates.Undo(h.page(r, "undo.page_title", "schedules"), v))
}

// Undo rolls the site back to the release's base.
func (h *Handler) Undo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	rev, _ := strconv.ParseInt(r.PostFormValue("site_rev"), 10, 64)
	_, err := h.releases.Undo(ctx, *st.user, st.site.ID, id, rev)
	if msg, _, status, ok := refusal(ctx, err); ok {
		h.renderUndo(w, r, status, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "undo.done")
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}
