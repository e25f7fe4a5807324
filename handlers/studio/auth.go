package studio

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/locales"
	"studio/web/templates"
)

// LoginForm shows the sign-in page.
func (h *Handler) LoginForm(w http.ResponseWriter, r *http.Request) {
	if stateOf(r.Context()).user != nil {
		http.Redirect(w, r, to(r, "/studio"), http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, templates.Login(h.page(r, "login.title", ""), templates.LoginForm{Next: safeNext(r.URL.Query().Get("next"))}))
}

// Login checks the email and password and starts a signed-in session. A
// language chosen on the sign-in page (the language switch there) is saved
// to the account as it signs in; without such a choice the account's
// language applies.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	form := templates.LoginForm{Email: r.PostFormValue("email"), Next: safeNext(r.PostFormValue("next"))}
	// The session holds a language only when the language switch set it.
	u, err := h.identity.SignIn(ctx, identity.SignInTry{Email: form.Email, Password: r.PostFormValue("password"),
		Client: ClientIP(r), Lang: h.sessions.GetString(ctx, keyLang)})
	if msg, status, ok := signInRefused(w, r, err); ok {
		form.Error = msg
		h.render(w, r, status, templates.Login(h.page(r, "login.title", ""), form))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.signIn(r, u); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, to(r, form.Next), http.StatusSeeOther)
}

// signIn makes the session the person's, under a new session token, so a
// token planted before it is useless, and with a new CSRF token; it is in
// the person's list of sessions from now on, named by its browser.
func (h *Handler) signIn(r *http.Request, u engine.User) error {
	ctx := r.Context()
	sid, err := h.identity.StartSession(ctx, u, r.UserAgent())
	if err != nil {
		return err
	}
	if err := h.sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.sessions.Put(ctx, keyUser, u.ID)
	h.sessions.Put(ctx, keyEpoch, int(u.SessionEpoch))
	h.sessions.Put(ctx, keySession, sid)
	h.sessions.Put(ctx, keyCSRF, newToken())
	return nil
}

// ClientIP is the address a request came from, as the sign-in throttle
// counts it: the one the transport middleware found behind trusted proxies
// (X-Forwarded-For), else the connection's remote address.
func ClientIP(r *http.Request) string {
	if ip, ok := r.Context().Value(clientKey{}).(string); ok {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// signInRefused words a refused sign-in (a wrong password, or a lock with
// Retry-After set on w) and its status; ok is false for any other error.
func signInRefused(w http.ResponseWriter, r *http.Request, err error) (msg string, status int, ok bool) {
	ctx := r.Context()
	e, isRefusal := engine.AsError(err)
	switch {
	case !isRefusal:
		return "", 0, false
	case e.Code == identity.CodeBadCredentials:
		return locales.T(ctx, "error.bad_credentials"), http.StatusUnauthorized, true
	case e.Code == identity.CodeTooManyAttempts:
		wait, _ := e.Args["RetryAfter"].(time.Duration)
		w.Header().Set("Retry-After", strconv.FormatInt(int64(roundUp(wait, time.Second)/time.Second), 10))
		if wait >= time.Minute {
			wait = roundUp(wait, time.Minute)
		}
		// No-break spaces keep "1 min" on one line.
		d := strings.ReplaceAll(locales.From(ctx).Duration(roundUp(wait, time.Second)), " ", "\u00a0")
		return locales.T(ctx, "error.too_many_attempts", "Wait", d), http.StatusTooManyRequests, true
	}
	return "", 0, false
}

type clientKey struct{}

// WithClientIP records the client's address that a trusted proxy forwarded.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientKey{}, ip)
}

// roundUp rounds d up to a whole multiple of unit, at least one unit.
func roundUp(d, unit time.Duration) time.Duration {
	if d <= unit {
		return unit
	}
	return (d + unit - 1) / unit * unit
}

// Logout ends the session, and takes it off the person's list.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if u := stateOf(ctx).user; u != nil {
		if err := h.identity.EndSession(ctx, *u, h.sessions.GetString(ctx, keySession)); err != nil && !errors.Is(err, engine.ErrNotFound) {
			h.fail(w, r, err)
			return
		}
	}
	if err := h.sessions.Destroy(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, to(r, "/studio/login"), http.StatusSeeOther)
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
		if err := h.identity.SetLanguage(ctx, *u, lang); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.sessions.Put(ctx, keyLang, lang)
	back := "/studio"
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		back = safeNext(ref.RequestURI())
	}
	http.Redirect(w, r, to(r, back), http.StatusSeeOther)
}

// safeNext keeps redirects after sign-in inside Studio.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/studio") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/studio"
}
