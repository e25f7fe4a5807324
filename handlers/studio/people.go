package studio

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/people"
	"studio/engine/policy"
	"studio/locales"
	"studio/web/templates"
)

// People shows the site's members, its open invitations and the invite
// form. ?remove=ID is the remove confirmation for browsers without
// JavaScript: the dialog comes open in the page.
func (h *Handler) People(w http.ResponseWriter, r *http.Request) {
	h.renderPeople(w, r, http.StatusOK, templates.PeoplePage{Confirm: r.URL.Query().Get("remove")})
}

func (h *Handler) renderPeople(w http.ResponseWriter, r *http.Request, status int, v templates.PeoplePage) {
	ctx := r.Context()
	st := stateOf(ctx)
	members, err := h.people.Members(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	open, err := h.people.Invitations(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	loc := siteLoc(st.site)
	for _, m := range members {
		v.Members = append(v.Members, templates.MemberRow{ID: m.User.ID, Name: m.User.Name, Email: m.User.Email,
			Role: string(m.User.Role), Joined: m.Joined.In(loc), Self: m.User.ID == st.user.ID,
			Locked: !m.Can.Manage, ResetPassword: m.Can.ResetPassword, Elsewhere: m.Can.Elsewhere})
	}
	for _, i := range open {
		v.Invitations = append(v.Invitations, templates.InvitationRow{ID: i.ID, Email: i.Email, Role: string(i.Role),
			By: i.By.Name, Expires: i.ExpiresAt.In(loc)})
	}
	for _, role := range people.GivableRoles(*st.user) {
		v.Roles = append(v.Roles, string(role))
	}
	if v.Role == "" {
		v.Role = string(policy.Editor)
	}
	// A new invitation's link is in this answer only: no cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.People(h.page(r, "people.title", "people"), v))
}

// Invite makes an invitation and shows its link once: the page is the
// answer to the POST itself, as the link is never stored.
func (h *Handler) Invite(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	email, role := r.PostFormValue("email"), r.PostFormValue("role")
	secret, inv, err := h.people.Invite(ctx, *st.user, st.site.ID, email, policy.Role(role))
	if fields := fieldRefusals(ctx, err); fields != nil {
		v := templates.PeoplePage{Email: email, Role: role, Errors: fields, Error: fields[""]}
		h.renderPeople(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderPeople(w, r, http.StatusOK, templates.PeoplePage{Link: Origin(r) + JoinURL(secret), LinkEmail: inv.Email})
}

// ResetPasswordLink makes a one-time link for a member to choose a new
// password, and shows it once, as an invitation's.
func (h *Handler) ResetPasswordLink(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	secret, _, err := h.people.ResetLink(ctx, *st.user, st.site.ID, id)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		for _, m := range fields {
			msg = m
		}
		h.renderPeople(w, r, status, templates.PeoplePage{Error: msg})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.identity.User(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderPeople(w, r, http.StatusOK, templates.PeoplePage{Link: Origin(r) + "/studio/reset?token=" + url.QueryEscape(secret),
		LinkName: m.Name})
}

// JoinURL is the address of an invitation's page.
func JoinURL(secret string) string { return "/studio/join?token=" + url.QueryEscape(secret) }

// studioOrigin is the scheme and host this request reached Studio at: the
// address the person sharing a link uses Studio at themselves.
func Origin(r *http.Request) string {
	scheme := "http"
	if over, _ := r.Context().Value(httpsKey{}).(bool); over {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

type httpsKey struct{}

// WithHTTPS records that the request came over HTTPS (its own TLS, or a
// trusted proxy's word).
func WithHTTPS(ctx context.Context) context.Context { return context.WithValue(ctx, httpsKey{}, true) }

// SetRole changes a member's role.
func (h *Handler) SetRole(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	err := h.people.SetRole(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"), policy.Role(r.PostFormValue("role")))
	h.afterPeopleChange(w, r, err, "people.role_changed")
}

// RemoveMember takes a member off the site.
func (h *Handler) RemoveMember(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	err := h.people.Remove(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	h.afterPeopleChange(w, r, err, "people.removed")
}

// RevokeInvitation ends an open invitation.
func (h *Handler) RevokeInvitation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	err := h.people.RevokeInvitation(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	h.afterPeopleChange(w, r, err, "people.invitation_revoked")
}

// afterPeopleChange goes back to the People page with done's notice, or
// shows it again with the refusal.
func (h *Handler) afterPeopleChange(w http.ResponseWriter, r *http.Request, err error, done string) {
	if msg, fields, status, ok := refusal(r.Context(), err); ok {
		if msg == "" {
			for _, m := range fields {
				msg = m
			}
		}
		h.renderPeople(w, r, status, templates.PeoplePage{Error: msg})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, done)
	http.Redirect(w, r, to(r, "/studio/people"), http.StatusSeeOther)
}

// JoinForm is an invitation's page. A link that is unknown, spent, revoked
// or expired is one page, which says so and nothing else.
func (h *Handler) JoinForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	o, ok := h.openInvitation(w, r, token)
	if !ok {
		return
	}
	h.renderJoin(w, r, http.StatusOK, o, templates.JoinForm{Token: token})
}

// Join takes up an invitation: the person joins the site and is signed in.
func (h *Handler) Join(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := r.PostFormValue("token")
	o, ok := h.openInvitation(w, r, token)
	if !ok {
		return
	}
	f := templates.JoinForm{Token: token, Name: r.PostFormValue("name")}
	u, err := h.people.Accept(ctx, token, people.AcceptInput{Name: f.Name, Password: r.PostFormValue("password"),
		Lang: locales.From(ctx).Lang, Client: ClientIP(r)})
	if msg, status, ok := signInRefused(w, r, err); ok {
		f.Error = msg
		h.renderJoin(w, r, status, o, f)
		return
	}
	if f.Errors = fieldRefusals(ctx, err); f.Errors != nil {
		h.renderJoin(w, r, http.StatusUnprocessableEntity, o, f)
		return
	}
	if linkOpen(h, w, r, err, "join.not_open") { // spent meanwhile
		h.signInAndGo(w, r, u, "join.done")
	}
}

func (h *Handler) openInvitation(w http.ResponseWriter, r *http.Request, token string) (people.Opened, bool) {
	o, err := h.people.Open(r.Context(), token)
	return o, linkOpen(h, w, r, err, "join.not_open")
}

// linkOpen reports whether a one-time link's use went on (err is nil);
// otherwise it has answered: the page notOpen words for a link that is not
// open (engine.ErrNotFound), a failure for any other error.
func linkOpen(h *Handler, w http.ResponseWriter, r *http.Request, err error, notOpen string) bool {
	switch {
	case errors.Is(err, engine.ErrNotFound):
		w.Header().Set("Cache-Control", "no-store")
		h.problem(w, r, http.StatusNotFound, notOpen)
		return false
	case err != nil:
		h.fail(w, r, err)
		return false
	}
	return true
}

func (h *Handler) renderJoin(w http.ResponseWriter, r *http.Request, status int, o people.Opened, f templates.JoinForm) {
	site, err := h.eng.Site(r.Context(), o.Invitation.SiteID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f.SiteName, f.Email, f.Role, f.HasAccount = site.Name, o.Invitation.Email, string(o.Invitation.Role), o.HasAccount
	f.PasswordChars = identity.MinPasswordChars
	// The token must not be stored by a browser's or a proxy's cache.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.Join(h.page(r, "join.title_short", ""), f))
}

// ResetForm is a password reset link's page. A link that is unknown, used,
// replaced or expired is one page, which says so and nothing else.
func (h *Handler) ResetForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	u, ok := h.openReset(w, r, token)
	if !ok {
		return
	}
	h.renderReset(w, r, http.StatusOK, templates.ResetForm{Token: token, Name: u.Name})
}

// Reset sets the new password of a reset link and signs the person in
// anew, on Your account, which says what ended: every session of theirs,
// their access tokens and their agent keys.
func (h *Handler) Reset(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := r.PostFormValue("token")
	u, ok := h.openReset(w, r, token)
	if !ok {
		return
	}
	done, ended, err := h.people.Reset(ctx, token, r.PostFormValue("password"))
	if fields := fieldRefusals(ctx, err); fields != nil {
		h.renderReset(w, r, http.StatusUnprocessableEntity, templates.ResetForm{Token: token, Name: u.Name, Errors: fields})
		return
	}
	if !linkOpen(h, w, r, err, "reset.not_open") { // used meanwhile
		return
	}
	if err := h.signIn(r, done); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "reset.done")
	h.flashEnded(r, ended, true)
	http.Redirect(w, r, to(r, "/studio/account"), http.StatusSeeOther)
}

func (h *Handler) openReset(w http.ResponseWriter, r *http.Request, token string) (engine.User, bool) {
	u, err := h.people.OpenReset(r.Context(), token)
	return u, linkOpen(h, w, r, err, "reset.not_open")
}

func (h *Handler) renderReset(w http.ResponseWriter, r *http.Request, status int, f templates.ResetForm) {
	f.PasswordChars = identity.MinPasswordChars
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.Reset(h.page(r, "reset.title", ""), f))
}
