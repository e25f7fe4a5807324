package studio

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Preview mints a signed preview link of a node's working copy, working for
// 24 hours (RFC §7.3), and sends the person to it: the public site shows
// the node there as it is now, gated or draft, to anyone given the link.
func (h *Handler) Preview(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	token, err := h.pub.PreviewLink(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/preview/"+token, http.StatusSeeOther)
}
