package studio

import "context"

// Session reads the request's Studio session for the JSON API, which acts
// for the person signed in to Studio's pages: their id ("" for nobody) and
// the session's CSRF token, which the API wants in X-CSRF-Token on every
// state-changing request. The router must have loaded the session.
func (h *Handler) Session(ctx context.Context) (userID, csrf string) {
	return h.sessions.GetString(ctx, keyUser), h.sessions.GetString(ctx, keyCSRF)
}
