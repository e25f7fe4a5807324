package studio

import (
	"net/http"

	"studio/web/templates"
)

// NavCounts is what waits, beside the navigation's entries (issue 39,
// §15.1's attention badge): the requests the person may decide, beside
// Approvals, and the releases that need attention, beside Schedules. Every
// page asks for it when it loads and again every half minute (layout.templ),
// so a request filed elsewhere shows without a reload.
func (h *Handler) NavCounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	waiting, err := h.releases.WaitingForDecision(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	page, _, err := h.needsAttention(r, siteLoc(st.site))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, http.StatusOK, templates.NavCounts(waiting, len(page.Items)))
}
