package studio

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/docs"
	"studio/engine"
	"studio/engine/agents"
	"studio/engine/policy"
	"studio/locales"
	"studio/web/markdown"
	"studio/web/templates"
)

// agentScopeKey is the message key of what a scope allows an agent.
func agentScopeKey(s policy.Scope) string {
	return "agents.scope_" + strings.ReplaceAll(string(s), ":", "_")
}

// defaultKeyMode is the mode the new-key form starts with: edits (the
// RFC's default cap, §11.3), within the person's role.
func defaultKeyMode(role policy.Role) policy.Mode { return agents.CapMode(policy.ModeEdits, role) }

// formMode is the mode a form shows again after a refusal: the one sent,
// or the default when the role may not give it.
func formMode(mode policy.Mode, role policy.Role) policy.Mode {
	if agents.CapMode(mode, role) != mode || !slices.Contains(agents.Modes(), mode) {
		return defaultKeyMode(role)
	}
	return mode
}

// keyForm is the new-key form for role, with mode chosen and scopes
// ticked (nil: the mode's defaults).
func keyForm(role policy.Role, mode policy.Mode, scopes []policy.Scope) ([]templates.ModeChoice, []templates.ScopeChoice) {
	if scopes == nil {
		scopes = policy.DefaultAgentScopes(mode, role)
	}
	var modes []templates.ModeChoice
	for _, m := range agents.Modes() {
		if agents.CapMode(m, role) != m {
			continue // above the role's cap: not offered
		}
		var defaults []string
		for _, s := range policy.DefaultAgentScopes(m, role) {
			defaults = append(defaults, string(s))
		}
		modes = append(modes, templates.ModeChoice{Name: string(m), Checked: m == mode, Defaults: strings.Join(defaults, " ")})
	}
	var choices []templates.ScopeChoice
	for _, s := range agents.OfferedScopes(role) {
		choices = append(choices, templates.ScopeChoice{Name: string(s), Key: agentScopeKey(s), Checked: slices.Contains(scopes, s)})
	}
	return modes, choices
}

// Agents shows the person's agent keys (an Owner's or Administrator's:
// the site's) and the form for a new one. ?revoke=ID is the revoke
// confirmation for browsers without JavaScript.
func (h *Handler) Agents(w http.ResponseWriter, r *http.Request) {
	u := stateOf(r.Context()).user
	v := templates.AgentsPage{Confirm: r.URL.Query().Get("revoke")}
	v.Modes, v.Scopes = keyForm(u.Role, defaultKeyMode(u.Role), nil)
	h.renderAgents(w, r, http.StatusOK, v)
}

func (h *Handler) renderAgents(w http.ResponseWriter, r *http.Request, status int, v templates.AgentsPage) {
	ctx := r.Context()
	st := stateOf(ctx)
	keys, err := h.agents.Keys(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	names := map[string]string{}
	if slices.ContainsFunc(keys, func(k agents.Key) bool { return k.AutomationID != "" }) {
		list, err := h.aut.List(ctx, *st.user, st.site.ID)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, a := range list {
			names[a.ID] = a.Name
		}
	}
	loc := siteLoc(st.site)
	v.SeesAll = agents.SeesAll(*st.user)
	for _, k := range keys {
		v.Rows = append(v.Rows, keyRow(k, names[k.AutomationID], loc))
	}
	// A new key's secret is in this answer only: no cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.Agents(h.page(r, "agents.title", "agents"), v))
}

// CreateAgentKey mints a key for the person and shows its secret once.
// The page is the answer to the POST itself, never a redirect or a flash:
// the secret is not stored anywhere, so it cannot wait for the next page.
func (h *Handler) CreateAgentKey(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	name := r.PostFormValue("name")
	mode := policy.Mode(r.PostFormValue("mode"))
	scopes := []policy.Scope{}
	for _, s := range r.PostForm["scope"] {
		scopes = append(scopes, policy.Scope(s))
	}
	k, secret, err := h.agents.Mint(ctx, *st.user, st.site.ID, agents.KeyInput{Name: name, Mode: mode, Scopes: scopes})
	if msg, fields, status, ok := refusal(ctx, err); ok {
		v := templates.AgentsPage{Name: name, Errors: fields, Error: msg}
		v.Modes, v.Scopes = keyForm(st.user.Role, formMode(mode, st.user.Role), scopes)
		h.renderAgents(w, r, status, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.showSecret(w, r, k.ID, secret)
}

// RevokeAgentKey revokes a key (the person's own, or any for an Owner or
// Administrator); from now on it authenticates nothing, and an
// automation's key leaves its automation broken. Someone else's key is
// not found.
func (h *Handler) RevokeAgentKey(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	if err := h.agents.Revoke(ctx, *st.user, st.site.ID, chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "agents.revoked")
	http.Redirect(w, r, to(r, "/studio/agents"), http.StatusSeeOther)
}

// keyRow is k as the pages show it, its times in loc; automation is the
// name of the automation whose own key it is ("" when there is none or
// it was deleted).
func keyRow(k agents.Key, automation string, loc *time.Location) templates.AgentKeyRow {
	row := templates.AgentKeyRow{ID: k.ID, Name: k.Name, Mode: string(k.Mode), Owner: k.OwnerName, Created: k.CreatedAt.In(loc),
		AutomationID: k.AutomationID, AutomationName: automation}
	for _, s := range k.Scopes {
		row.Scopes = append(row.Scopes, agentScopeKey(s))
	}
	if k.LastUsedAt != nil {
		t := k.LastUsedAt.In(loc)
		row.LastUsed = &t
	}
	if k.RevokedAt != nil {
		t := k.RevokedAt.In(loc)
		row.Revoked = &t
	}
	return row
}

// AgentKey is one key's page: what it may do and how to connect an agent
// with it (the endpoint, the site's and automation's ids, a client
// configuration, curl lines, Test connection). Someone else's key is not
// found.
func (h *Handler) AgentKey(w http.ResponseWriter, r *http.Request) {
	h.renderAgentKey(w, r, chi.URLParam(r, "id"), "")
}

// showSecret answers the POST that made a key (a person's, or an agent
// task's own) with the key's page and its secret, shown this once: the
// secret is stored nowhere, so it cannot wait for a redirect. The page
// then takes the key's own address (agents.js), so a reload shows the
// page without the secret and never makes a second key.
func (h *Handler) showSecret(w http.ResponseWriter, r *http.Request, keyID, secret string) {
	h.renderAgentKey(w, r, keyID, secret)
}

func (h *Handler) renderAgentKey(w http.ResponseWriter, r *http.Request, keyID, secret string) {
	ctx := r.Context()
	st := stateOf(ctx)
	k, err := h.agents.Key(ctx, *st.user, st.site.ID, keyID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	automation := ""
	if k.AutomationID != "" {
		if a, err := h.aut.Get(ctx, *st.user, st.site.ID, k.AutomationID); err == nil {
			automation = a.Name
		} else if !errors.Is(err, engine.ErrNotFound) {
			h.fail(w, r, err)
			return
		}
	}
	endpoint := mcpEndpoint(r)
	shown := secret
	if shown == "" {
		shown = keyPlaceholder
	}
	v := templates.AgentKeyPage{Key: keyRow(k, automation, siteLoc(st.site)), Secret: secret, SeesAll: agents.SeesAll(*st.user),
		Endpoint: endpoint, SiteID: st.site.ID, SiteName: st.site.Name, Protocol: mcpProtocol,
		Config: mcpConfig(endpoint), Curl: curlCheck(endpoint, shown)}
	for _, m := range agents.Modes() {
		v.Modes = append(v.Modes, string(m))
	}
	if secret != "" {
		v.Address = to(r, "/studio/agents/"+k.ID)
	}
	// A new key's secret is in this answer only: no cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	p := h.page(r, "agents.title", "agents")
	p.Title = locales.T(ctx, "agents.key_title", "Name", k.Name)
	h.render(w, r, http.StatusOK, templates.AgentKey(p, v))
}

// AgentsGuide is docs/agents.md, the guide to connecting an agent, as a
// page of Studio (it is written in English).
func (h *Handler) AgentsGuide(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, templates.AgentsGuide(h.page(r, "agents.guide_title", "agents"), markdown.HTML(docs.Agents)))
}
