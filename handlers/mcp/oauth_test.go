package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// request is the consent form's fields of an authorization request.
func request(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out["request_"+k] = vs
	}
	return out
}

// consent is a signed-in person's browser on the consent page of the
// authorization URL: it opens the page, keeps the fields the page
// carries, sets the mode and scopes chosen, presses decision and returns
// where Studio sends the browser.
func consent(t *testing.T, c *apptest.Client, authURL, decision string, choose url.Values) *url.URL {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page := c.Do("GET", u.Path+"?"+u.RawQuery, nil, nil)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, `data-testid="oauth-consent"`) {
		t.Fatalf("the consent page: %d\n%s", page.Status, apptest.Excerpt(page.Body))
	}
	form := url.Values{"decision": {decision}}
	for _, m := range hiddenField.FindAllStringSubmatch(page.Body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	for k, v := range choose {
		form[k] = v
	}
	res := c.Do("POST", u.Path, form, nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("the answer to %s: %d\n%s", decision, res.Status, apptest.Excerpt(res.Body))
	}
	to, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestMCPOverOAuth: a connector that speaks only OAuth (the go-sdk
// client's own OAuth handler) connects to /mcp with nothing but its
// address: the 401 names the resource metadata, it discovers the
// authorization server, registers itself, sends the Editor's browser to
// the consent page, where the Editor picks the mode and permissions, and
// exchanges the code with its PKCE verifier. The token acts as an agent
// key of the Editor's on the site (get_mode names it, with the mode and
// scopes chosen), is listed on the Agents page, and revoking it there
// stops the connector at its next call. A bearer key keeps working beside.
func TestMCPOverOAuth(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor := a.SignedIn(t, a.Editor)
	const callback = "http://127.0.0.1:33418/callback"
	authorized := 0
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		RedirectURL: callback,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Claude", RedirectURIs: []string{callback}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			authorized++
			if authorized > 1 {
				return nil, errors.New("the person is away: no second consent")
			}
			to := consent(t, editor, args.URL, "allow", url.Values{"mode": {"manual"}, "scope": {"schedules:read", "content:read"}})
			if !strings.HasPrefix(to.String(), callback+"?") {
				t.Fatalf("the browser is sent to %s, not the client's callback", to)
			}
			q := to.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "connector", Version: "1"}, nil)
	s, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: a.URL + "/mcp", OAuthHandler: handler, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect over OAuth: %v", err)
	}
	defer s.Close()
	mode := apptest.OkTool(t, s, "get_mode", nil)
	site, _ := mode["site"].(map[string]any)
	if site["id"] != a.Site.ID || mode["mode"] != "manual" || authorized != 1 {
		t.Fatalf("get_mode over the OAuth token: %v (consents: %d)", mode, authorized)
	}
	if scopes, _ := mode["scopes"].([]any); len(scopes) != 2 || scopes[0] != "content:read" || scopes[1] != "schedules:read" {
		t.Fatalf("the token holds %v, not the scopes the Editor chose", mode["scopes"])
	}
	keyID, _ := mode["keyId"].(string)
	keys, err := a.Agents.Keys(ctx, a.Editor, a.Site.ID)
	if err != nil || len(keys) != 1 || keys[0].ID != keyID || keys[0].Name != "Claude" || keys[0].Mode != policy.ModeManual {
		t.Fatalf("the Editor's keys: %+v, %v", keys, err)
	}
	editor.Check(t, apptest.Scenario{Name: "Listed", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/agents/` + keyID + `" data-testid="agent-key-link">Claude</a>`}})

	// Revoked on the Agents page: the next call is refused, and the
	// connector, asking again, gets no second consent here.
	editor.Check(t, apptest.Scenario{Name: "Revoke", Method: "POST", URL: "/studio/agents/" + keyID + "/revoke",
		Form: url.Values{"csrf_token": {editor.Token()}}, ExpectedStatus: http.StatusSeeOther})
	if _, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "get_mode", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a revoked OAuth token still calls tools")
	}
}

// TestOAuthEndpoints: the metadata a connector discovers (RFC 9728, RFC
// 8414) names this server's addresses; /mcp's 401 points at it; a
// registration with an unsafe redirect is refused; the consent page shows
// an unknown client to the person and never redirects; Deny and a choice
// above the role answer as they should; a code is good once, with its
// verifier.
func TestOAuthEndpoints(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	anon := a.Client(t, "")
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		status, meta := anon.JSON("GET", path, "", nil)
		if status != http.StatusOK || meta["resource"] != a.URL+"/mcp" || mustJSON(t, meta["authorization_servers"]) != `["`+a.URL+`"]` {
			t.Fatalf("%s: %d %v", path, status, meta)
		}
	}
	status, asm := anon.JSON("GET", "/.well-known/oauth-authorization-server", "", nil)
	if status != http.StatusOK || asm["issuer"] != a.URL || asm["authorization_endpoint"] != a.URL+"/studio/oauth/authorize" ||
		asm["token_endpoint"] != a.URL+"/oauth/token" || asm["registration_endpoint"] != a.URL+"/oauth/register" ||
		mustJSON(t, asm["code_challenge_methods_supported"]) != `["S256"]` {
		t.Fatalf("authorization server metadata: %d %v", status, asm)
	}
	res := anon.DoBody("POST", "/mcp", `{}`, map[string]string{"Content-Type": "application/json"})
	if want := `resource_metadata="` + a.URL + `/.well-known/oauth-protected-resource/mcp"`; res.Status != http.StatusUnauthorized ||
		!strings.Contains(res.Header.Get("WWW-Authenticate"), want) {
		t.Fatalf("/mcp without a token: %d, WWW-Authenticate %q, want %s", res.Status, res.Header.Get("WWW-Authenticate"), want)
	}

	status, bad := anon.JSON("POST", "/oauth/register", `{"client_name":"Evil","redirect_uris":["http://evil.example/cb"]}`, nil)
	if status != http.StatusBadRequest || bad["error"] != "invalid_redirect_uri" {
		t.Fatalf("an http redirect elsewhere than loopback: %d %v", status, bad)
	}
	const callback = "https://app.example/callback"
	status, reg := anon.JSON("POST", "/oauth/register", `{"client_name":"Newsroom bot","redirect_uris":["`+callback+`"]}`, nil)
	clientID, _ := reg["client_id"].(string)
	if status != http.StatusCreated || !strings.HasPrefix(clientID, "oac_") || reg["token_endpoint_auth_method"] != "none" {
		t.Fatalf("register: %d %v", status, reg)
	}

	contributor := a.SignedIn(t, a.Contributor)
	verifier := strings.Repeat("v", 50)
	authorize := func(client, redirect string) string {
		return "/studio/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
			"state": {"xyz"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}.Encode()
	}
	// Unknown client, or a redirect it never registered: told, not sent.
	for _, u := range []string{authorize("oac_nobody", callback), authorize(clientID, "https://evil.example/cb")} {
		contributor.Check(t, apptest.Scenario{Name: "NotSent", URL: u, ExpectedStatus: http.StatusBadRequest,
			ExpectedContent: []string{"This connection request does not work", "Nothing was sent to it."}})
	}
	// Signed out: the sign-in comes first, and brings the person back.
	anon.Check(t, apptest.Scenario{Name: "SignInFirst", URL: authorize(clientID, callback), ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/login?next=" + url.QueryEscape(authorize(clientID, callback))}})
	// The page, within a Contributor's role: no Auto, no schedules:write;
	// it lets the form go to the client's address.
	page := contributor.Check(t, apptest.Scenario{Name: "Consent", URL: authorize(clientID, callback), ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"“Newsroom bot” asks to work in Studio as an agent of yours", "app.example", `data-testid="mode-edits"`},
		NotExpectedContent: []string{`data-testid="mode-auto"`, `data-testid="scope-schedules:write"`},
		ExpectedHeaders:    map[string]string{"Cache-Control": "no-store"}})
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://app.example;") {
		t.Errorf("the consent page's form-action: %s", csp)
	}
	// Deny: back to the client with access_denied, nothing made.
	to := consent(t, contributor, a.URL+authorize(clientID, callback), "deny", nil)
	if q := to.Query(); q.Get("error") != "access_denied" || q.Get("state") != "xyz" || q.Get("iss") != a.URL || q.Get("code") != "" {
		t.Fatalf("deny sent the browser to %s", to)
	}
	// Above the role: the page again, with the refusal.
	before := a.Fingerprint(t)
	contributor.Check(t, apptest.Scenario{Name: "AboveTheRole", Method: "POST", URL: "/studio/oauth/authorize",
		Form: func() url.Values {
			f := request(url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback}, "state": {"xyz"},
				"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}})
			f.Set("csrf_token", contributor.Token())
			f.Set("decision", "allow")
			f.Set("mode", "auto")
			return f
		}(),
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-mode">Your role does not allow this mode: choose a lower one.`}})
	if a.Fingerprint(t) != before {
		t.Fatal("a refused consent changed the database")
	}
	// Allow in Turkish, then the token endpoint: the code once, with its
	// verifier only.
	a.SetLang(t, a.Contributor, "tr")
	contributor.Check(t, apptest.Scenario{Name: "Turkish", URL: authorize(clientID, callback), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"“Newsroom bot”, Studio&#39;da sizin yapay zekâ ajanınız olarak çalışmak istiyor", ">İzin ver</button>"}})
	to = consent(t, contributor, a.URL+authorize(clientID, callback), "allow", url.Values{"mode": {"plan"}})
	code := to.Query().Get("code")
	token := func(v string) (int, map[string]any) {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}, "client_id": {clientID}, "code_verifier": {v}}
		res := anon.DoBody("POST", "/oauth/token", form.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
			t.Fatalf("the token endpoint's answer: %v\n%s", err, res.Body)
		}
		return res.Status, out
	}
	if status, out := token(strings.Repeat("w", 50)); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("a wrong verifier: %d %v", status, out)
	}
	to = consent(t, contributor, a.URL+authorize(clientID, callback), "allow", url.Values{"mode": {"plan"}})
	code = to.Query().Get("code")
	status, out := token(verifier)
	secret, _ := out["access_token"].(string)
	if status != http.StatusOK || out["token_type"] != "Bearer" || !strings.HasPrefix(secret, "sta_") || out["scope"] != "content:read schedules:read" {
		t.Fatalf("the token: %d %v", status, out)
	}
	u, err := a.Agents.Authenticate(context.Background(), secret)
	if err != nil || u.ID != a.Contributor.ID || u.Agent.Mode != policy.ModePlan {
		t.Fatalf("the token authenticates as %+v, %v", u, err)
	}
	if status, out := token(verifier); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("the code again: %d %v", status, out)
	}
	if _, err := a.Agents.Authenticate(context.Background(), secret); err == nil {
		t.Fatal("a code used twice left its token working")
	}
}
