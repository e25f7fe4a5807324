package studio

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"studio/engine/oauth"
	"studio/engine/policy"
	"studio/web/templates"
)

// The consent page of Studio's authorization server (issue 38): a
// connector that speaks only OAuth sends the person here; signed in, they
// choose the site, the mode and the scopes for it, within their role, and
// allow or deny. Allowing sends the browser back to the client with a
// code, which the client exchanges for an agent key of theirs
// (handlers/oauth).

// authRequest is the authorization request in v: the query of the
// consent page, or the consent form's fields once consentRequest took
// them out (requestValues is the other way).
func authRequest(v url.Values) oauth.Request {
	return oauth.Request{ResponseType: v.Get("response_type"), ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		State: v.Get("state"), Challenge: v.Get("code_challenge"), ChallengeMethod: v.Get("code_challenge_method"),
		Scope: v.Get("scope"), Resource: v.Get("resource")}
}

// requestPrefix names the consent form's hidden fields that carry the
// request on: its own scope is not the scopes the person ticks.
const requestPrefix = "request_"

// consentRequest is the request the consent form carried on.
func consentRequest(form url.Values) oauth.Request {
	v := url.Values{}
	for k, vs := range form {
		if name, ok := strings.CutPrefix(k, requestPrefix); ok {
			v[name] = vs
		}
	}
	return authRequest(v)
}

// OAuthAuthorize is the consent page for the request in the query.
func (h *Handler) OAuthAuthorize(w http.ResponseWriter, r *http.Request) {
	req := authRequest(r.URL.Query())
	c, req, err := h.oauth.Check(r.Context(), req, mcpEndpoint(r))
	if err != nil {
		h.oauthFailed(w, r, req, err)
		return
	}
	role := stateOf(r.Context()).user.Role
	mode := defaultKeyMode(role)
	var ticked []policy.Scope // nil: the mode's defaults
	if asked := req.Scopes(); len(asked) > 0 {
		ticked = []policy.Scope{} // of the mode's defaults, only those asked for
		for _, s := range policy.DefaultAgentScopes(mode, role) {
			if slices.Contains(asked, s) {
				ticked = append(ticked, s)
			}
		}
	}
	h.renderConsent(w, r, http.StatusOK, c, req, mode, ticked, templates.OAuthConsentPage{})
}

// OAuthDecide is the person's answer: allow (with the site of the page,
// the mode and the scopes) or deny; either sends the browser back to the
// client.
func (h *Handler) OAuthDecide(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	c, req, err := h.oauth.Check(ctx, consentRequest(r.PostForm), mcpEndpoint(r))
	if err != nil {
		h.oauthFailed(w, r, req, err)
		return
	}
	if r.PostFormValue("decision") != "allow" {
		h.oauthRedirect(w, r, req, url.Values{"error": {oauth.AccessDenied}})
		return
	}
	mode := policy.Mode(r.PostFormValue("mode"))
	scopes := []policy.Scope{}
	for _, s := range r.PostForm["scope"] {
		scopes = append(scopes, policy.Scope(s))
	}
	code, err := h.oauth.Approve(ctx, *st.user, st.site.ID, req, mcpEndpoint(r), mode, scopes)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderConsent(w, r, status, c, req, formMode(mode, st.user.Role), scopes, templates.OAuthConsentPage{Errors: fields, Error: msg})
		return
	}
	if err != nil {
		h.oauthFailed(w, r, req, err)
		return
	}
	h.oauthRedirect(w, r, req, url.Values{"code": {code}})
}

// oauthFailed answers a request that cannot go on: one whose client or
// redirect URI is wrong is told to the person (never redirected, RFC 6749
// §4.1.2.1); any other protocol error goes back to the client.
func (h *Handler) oauthFailed(w http.ResponseWriter, r *http.Request, req oauth.Request, err error) {
	var e *oauth.Error
	if !errors.As(err, &e) {
		h.fail(w, r, err)
		return
	}
	if oauth.NoRedirect(err) {
		h.render(w, r, http.StatusBadRequest, templates.OAuthFailed(h.page(r, "oauth.bad_title", "agents"), e.Description))
		return
	}
	h.oauthRedirect(w, r, req, url.Values{"error": {e.Code}, "error_description": {e.Description}})
}

// oauthRedirect sends the browser to the request's redirect URI with
// answer, the request's state and this server's name (iss, RFC 9207).
func (h *Handler) oauthRedirect(w http.ResponseWriter, r *http.Request, req oauth.Request, answer url.Values) {
	to, err := url.Parse(req.RedirectURI)
	if err != nil { // checked already: registered URIs parse
		h.fail(w, r, err)
		return
	}
	q := to.Query()
	for k, v := range answer {
		q[k] = v
	}
	if req.State != "" {
		q.Set("state", req.State)
	}
	q.Set("iss", Origin(r))
	to.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to.String(), http.StatusSeeOther)
}

func (h *Handler) renderConsent(w http.ResponseWriter, r *http.Request, status int, c oauth.Client, req oauth.Request,
	mode policy.Mode, scopes []policy.Scope, v templates.OAuthConsentPage) {
	st := stateOf(r.Context())
	v.Client, v.Site = c.Name, st.site.Name
	v.Destination = destination(req.RedirectURI)
	for name, value := range requestValues(req) {
		v.Fields = append(v.Fields, templates.HiddenField{Name: requestPrefix + name, Value: value[0]})
	}
	slices.SortFunc(v.Fields, func(a, b templates.HiddenField) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range st.sites {
		if m.SiteID != st.site.ID {
			v.OtherSites = append(v.OtherSites, templates.SiteLink{ID: m.SiteID, Name: m.SiteName,
				URL: templates.SitePrefix + m.SiteID + "/oauth/authorize?" + requestValues(req).Encode()})
		}
	}
	v.Modes, v.Scopes = keyForm(st.user.Role, mode, scopes)
	// The page's form leads, through its answer's redirect, to the
	// client: a browser lets a form end up only where the page's
	// form-action allows.
	if src := formSource(req.RedirectURI); src != "" {
		csp := w.Header().Get("Content-Security-Policy")
		w.Header().Set("Content-Security-Policy", strings.Replace(csp, "form-action 'self'", "form-action 'self' "+src, 1))
	}
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.OAuthConsent(h.page(r, "oauth.title", "agents"), v))
}

// requestValues is req as the query of an authorization request.
func requestValues(req oauth.Request) url.Values {
	return url.Values{"response_type": {req.ResponseType}, "client_id": {req.ClientID}, "redirect_uri": {req.RedirectURI},
		"state": {req.State}, "code_challenge": {req.Challenge}, "code_challenge_method": {req.ChallengeMethod},
		"scope": {req.Scope}, "resource": {req.Resource}}
}

// destination is where the person's answer goes, as they read it: the
// host of a web address, or an app's scheme.
func destination(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return ""
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

// formSource is redirect's origin as a Content-Security-Policy source:
// scheme://host[:port], or scheme: for an app's own scheme.
func formSource(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || strings.ContainsAny(redirect, " ;,'\"") {
		return ""
	}
	if u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}
