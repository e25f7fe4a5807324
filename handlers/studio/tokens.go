package studio

import (
	"net/http"

	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"studio/engine/identity"
	"studio/engine/policy"
	"studio/web/templates"
)

// scopeKey is the message key of what a scope allows.
func scopeKey(s policy.Scope) string {
	return "tokens.scope_" + strings.ReplaceAll(string(s), ":", "_")
}

// Tokens shows the person's own access tokens and the form for a new one.
// ?revoke=ID is the revoke confirmation for browsers without JavaScript:
// the dialog comes open in the page.
func (h *Handler) Tokens(w http.ResponseWriter, r *http.Request) {
	h.renderTokens(w, r, http.StatusOK, templates.TokensPage{Confirm: r.URL.Query().Get("revoke")})
}

func (h *Handler) renderTokens(w http.ResponseWriter, r *http.Request, status int, v templates.TokensPage) {
	ctx := r.Context()
	st := stateOf(ctx)
	list, err := h.identity.Tokens(ctx, *st.user)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	loc := siteLoc(st.site)
	if v.Scopes == nil {
		for _, s := range identity.TokenScopes(*st.user) {
			v.Scopes = append(v.Scopes, templates.ScopeChoice{Name: string(s), Key: scopeKey(s), Checked: true})
		}
	}
	for _, t := range list {
		row := templates.TokenRow{ID: t.ID, Name: t.Name, Created: t.CreatedAt.In(loc)}
		for _, s := range t.Scopes {
			row.Scopes = append(row.Scopes, scopeKey(s))
		}
		if t.LastUsed != nil {
			used := t.LastUsed.In(loc)
			row.LastUsed = &used
		}
		v.Rows = append(v.Rows, row)
	}
	// A new token's secret is in this answer only: no cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.Tokens(h.page(r, "tokens.title", "tokens"), v))
}

// CreateToken makes a token for the person and shows its secret once. The
// page is the answer to the POST itself, not a redirect: the secret is
// never stored, so it cannot wait in the session for the next page.
func (h *Handler) CreateToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	name := r.PostFormValue("name")
	// The form always says it chose (scopes_chosen); a post without it,
	// from before tokens had scopes, gets everything the role allows.
	var scopes []policy.Scope
	if r.PostFormValue("scopes_chosen") != "" {
		scopes = []policy.Scope{}
		for _, s := range r.PostForm["scope"] {
			scopes = append(scopes, policy.Scope(s))
		}
	}
	secret, t, err := h.identity.CreateToken(ctx, *st.user, name, scopes)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		v := templates.TokensPage{Name: name, Errors: fields, Error: msg, Scopes: []templates.ScopeChoice{}}
		for _, s := range identity.TokenScopes(*st.user) {
			v.Scopes = append(v.Scopes, templates.ScopeChoice{Name: string(s), Key: scopeKey(s), Checked: scopes == nil || slices.Contains(scopes, s)})
		}
		h.renderTokens(w, r, status, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderTokens(w, r, http.StatusOK, templates.TokensPage{Secret: secret, SecretName: t.Name})
}

// RevokeToken revokes one of the person's tokens; from now on it
// authenticates nothing. Someone else's token is not found.
func (h *Handler) RevokeToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.identity.RevokeToken(ctx, *stateOf(ctx).user, chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "tokens.revoked")
	http.Redirect(w, r, to(r, "/studio/tokens"), http.StatusSeeOther)
}
