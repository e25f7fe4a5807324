package studio

import (
	"errors"
	"net/http"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/setup"
	"studio/locales"
	"studio/web/templates"
)

// SetupForm is the first run's page (issue 15). Only the token of the link
// `studio serve` printed opens it, and only while Studio holds no site and
// no person: anything else is Studio's 404, so nobody on the network learns
// that a setup is waiting.
func (h *Handler) SetupForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if !h.setupOpen(w, r, token) {
		return
	}
	f := templates.SetupForm{Token: token, SiteLang: locales.From(r.Context()).Lang}
	if loc := viewerZone(r); loc != nil {
		f.TimeZone = loc.String()
	}
	h.renderSetup(w, r, http.StatusOK, f)
}

// Setup sets Studio up: the site and its Owner, who is signed in at once.
// Every bad field is refused together, in the person's language, and
// nothing is written.
func (h *Handler) Setup(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := r.PostFormValue("token")
	if !h.setupOpen(w, r, token) {
		return
	}
	in := setup.Input{SiteName: r.PostFormValue("siteName"), PublicURL: r.PostFormValue("publicUrl"),
		TimeZone: r.PostFormValue("timeZone"), SiteLang: r.PostFormValue("siteLang"), OwnerName: r.PostFormValue("name"),
		Email: r.PostFormValue("email"), Password: r.PostFormValue("password"), OwnerLang: locales.From(ctx).Lang}
	owner, _, err := h.setup.Install(ctx, token, in)
	if errors.Is(err, setup.ErrInstalled) { // someone finished it first
		h.NotFound(w, r)
		return
	}
	if fields := fieldRefusals(ctx, err); fields != nil {
		f := templates.SetupForm{Token: token, SiteName: in.SiteName, PublicURL: in.PublicURL, TimeZone: in.TimeZone,
			SiteLang: in.SiteLang, OwnerName: in.OwnerName, Email: in.Email, Errors: fields}
		h.renderSetup(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.signInAndGo(w, r, owner, "setup.done")
}

// setupOpen answers Studio's 404 unless token opens the setup.
func (h *Handler) setupOpen(w http.ResponseWriter, r *http.Request, token string) bool {
	ok, err := h.setup.Open(r.Context(), token)
	if err != nil {
		h.fail(w, r, err)
		return false
	}
	if !ok {
		h.NotFound(w, r)
	}
	return ok
}

func (h *Handler) renderSetup(w http.ResponseWriter, r *http.Request, status int, f templates.SetupForm) {
	f.Langs, f.PasswordChars = engine.Languages, identity.MinPasswordChars
	f.Zones = zoneOptions(r.Context(), h.eng.Now())
	// The token must not be stored by a browser's or a proxy's cache.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.Setup(h.page(r, "setup.title", ""), f))
}
