package studio

import (
	"net/http"
	"net/url"
	"strings"

	"studio/engine"
	"studio/locales"
	"studio/web/templates"
)

// LoginForm shows the sign-in page.
func (h *Handler) LoginForm(w http.ResponseWriter, r *http.Request) {
	if stateOf(r.Context()).user != nil {
		http.Redirect(w, r, "/studio", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.Login(h.page(r, "login.title", ""), templates.LoginForm{Next: safeNext(r.URL.Query().Get("next"))}))
}

// Login checks the email and password and starts a signed-in session.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	email := r.PostFormValue("email")
	u, err := h.eng.SignIn(ctx, email, r.PostFormValue("password"))
	if e, ok := engine.AsError(err); ok && e.Code == engine.CodeBadCredentials {
		h.render(w, r, http.StatusUnauthorized, templates.Login(h.page(r, "login.title", ""),
			templates.LoginForm{Email: email, Error: locales.T(ctx, "error.bad_credentials"), Next: safeNext(r.PostFormValue("next"))}))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// A new session token on sign-in, so a token planted before it is useless.
	if err := h.sessions.RenewToken(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	h.sessions.Put(ctx, keyUser, u.ID)
	h.sessions.Put(ctx, keyCSRF, newToken())
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// Logout ends the session.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	if err := h.sessions.Destroy(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/studio/login", http.StatusSeeOther)
}

// SetLanguage switches the language: remembered on the account when signed
// in, in the session otherwise. It returns to the page it came from.
func (h *Handler) SetLanguage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	lang := r.PostFormValue("lang")
	if !engine.ValidLanguage(lang) {
		h.problem(w, r, http.StatusUnprocessableEntity, "error.bad_language")
		return
	}
	if u := stateOf(ctx).user; u != nil {
		if err := h.eng.SetLanguage(ctx, *u, lang); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.sessions.Put(ctx, keyLang, lang)
	back := "/studio"
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		back = safeNext(ref.RequestURI())
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// safeNext keeps redirects after sign-in inside Studio.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/studio") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/studio"
}
