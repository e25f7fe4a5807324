package studio

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/identity"
	"studio/web/templates"
)

// Account is the person's own page: their name and language, their
// password, their sessions, and the way to their access tokens.
func (h *Handler) Account(w http.ResponseWriter, r *http.Request) {
	u := stateOf(r.Context()).user
	h.renderAccount(w, r, http.StatusOK, templates.AccountPage{Name: u.Name, Lang: u.Lang})
}

func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, status int, v templates.AccountPage) {
	u := stateOf(r.Context()).user
	v.Email, v.Langs, v.PasswordChars = u.Email, engine.Languages, identity.MinPasswordChars
	if v.Name == "" && v.Errors["name"] == "" {
		v.Name = u.Name
	}
	if v.Lang == "" {
		v.Lang = u.Lang
	}
	ctx := r.Context()
	sessions, err := h.identity.Sessions(ctx, *u)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	this, zone := h.sessions.GetString(ctx, keySession), stateOf(ctx).site.TimeZone
	for _, s := range sessions {
		v.Sessions = append(v.Sessions, templates.SessionRow{ID: s.ID, Browser: s.Browser, OS: s.OS, This: s.ID == this,
			Created: timePair(r, s.Created, zone), Seen: timePair(r, s.Seen, zone)})
	}
	h.render(w, r, status, templates.Account(h.page(r, "account.title", "account"), v))
}

// accountRefused shows the page again with err's refusals under their
// fields; ok is false for an error that is no refusal.
func (h *Handler) accountRefused(w http.ResponseWriter, r *http.Request, err error, v templates.AccountPage) bool {
	if v.Errors = fieldRefusals(r.Context(), err); v.Errors == nil {
		return false
	}
	h.renderAccount(w, r, http.StatusUnprocessableEntity, v)
	return true
}

// SaveProfile changes the person's name and language.
func (h *Handler) SaveProfile(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := templates.AccountPage{Name: r.PostFormValue("name"), Lang: r.PostFormValue("lang")}
	_, err := h.identity.SetProfile(ctx, *stateOf(ctx).user, v.Name, v.Lang)
	if h.accountRefused(w, r, err, v) {
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "account.profile_saved")
	http.Redirect(w, r, to(r, "/studio/account"), http.StatusSeeOther)
}

// ChangePassword sets a new password once the current one is right; the
// person's other sessions end, this one stays, and the next page says how
// many ended.
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ended, err := h.identity.ChangePassword(ctx, *stateOf(ctx).user, h.sessions.GetString(ctx, keySession),
		r.PostFormValue("current"), r.PostFormValue("password"), ClientIP(r))
	if msg, status, ok := signInRefused(w, r, err); ok { // a lock: too many wrong passwords
		h.renderAccount(w, r, status, templates.AccountPage{Errors: templates.FieldErrors{"current": msg}})
		return
	}
	if h.accountRefused(w, r, err, templates.AccountPage{}) {
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.stayIn(r, ended.Epoch); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "account.password_changed")
	h.flashEnded(r, ended, false)
	http.Redirect(w, r, to(r, "/studio/account"), http.StatusSeeOther)
}

// EndOtherSessions signs the person out everywhere but here, and the next
// page says how many sessions ended.
func (h *Handler) EndOtherSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ended, err := h.identity.EndOtherSessions(ctx, *stateOf(ctx).user, h.sessions.GetString(ctx, keySession))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.stayIn(r, ended.Epoch); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "account.sessions_ended")
	h.flashEnded(r, ended, false)
	http.Redirect(w, r, to(r, "/studio/account"), http.StatusSeeOther)
}

// EndSession signs the person out of one of their other sessions (their
// list on Your account): its next request is signed out.
func (h *Handler) EndSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.identity.EndSession(ctx, *stateOf(ctx).user, chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "account.session_ended")
	http.Redirect(w, r, to(r, "/studio/account"), http.StatusSeeOther)
}

// stayIn keeps this session signed in at the account's new epoch, under a
// new token, and in the account's list.
func (h *Handler) stayIn(r *http.Request, epoch int64) error {
	ctx := r.Context()
	h.sessions.RenewToken(ctx)
	h.sessions.Put(ctx, keyEpoch, int(epoch))
	return h.identity.KeepSession(ctx, *stateOf(ctx).user, h.sessions.GetString(ctx, keySession), epoch)
}
