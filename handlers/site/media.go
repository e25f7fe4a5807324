package site

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Media serves /media/{slug}: a live asset by its file name, unless it is
// gated — by its own gates, or by its referrers' when every live referrer is
// embargoed (§7.2), so an embargoed article's image is not served early.
func (h *Handler) Media(w http.ResponseWriter, r *http.Request) {
	h.media(w, r, chi.URLParam(r, "slug"))
}

func (h *Handler) media(w http.ResponseWriter, r *http.Request, slug string) {
	h.serve(w, r, "/media/"+slug, func(q *request) (*page, bool, error) {
		a, ok := q.view.media[slug]
		if !ok {
			return nil, false, nil
		}
		return &page{contentType: a.mime, body: a.data, file: true}, true, nil
	})
}
