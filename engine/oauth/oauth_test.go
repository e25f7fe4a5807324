package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/internal/enginetest"
	"studio/engine/oauth"
	"studio/engine/policy"
)

const (
	resource = "https://studio.example/mcp"
	redirect = "http://127.0.0.1:33418/callback"
	verifier = "a-verifier-of-forty-three-characters-or-more-000"
)

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

type fixture struct {
	*enginetest.Bundle
	keys  *agents.Agents
	oauth *oauth.OAuth
}

func newFixture(t *testing.T) *fixture {
	b := enginetest.New(t)
	keys := agents.New(b.Store, b.Eng)
	return &fixture{Bundle: b, keys: keys, oauth: oauth.New(b.Store, keys, b.Clock)}
}

func (f *fixture) client(t *testing.T) oauth.Client {
	t.Helper()
	c, err := f.oauth.Register(context.Background(), oauth.ClientInput{Name: "Claude", RedirectURIs: []string{redirect}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(c oauth.Client) oauth.Request {
	return oauth.Request{ResponseType: "code", ClientID: c.ID, RedirectURI: redirect, State: "s1",
		Challenge: challenge(verifier), ChallengeMethod: "S256", Resource: resource}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *oauth.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want the OAuth error %s", err, code)
	}
}

// TestRegisterRefusesUnsafeRedirects: a client registers https addresses,
// http on loopback and an app's own scheme; a code is never sent to plain
// http elsewhere, a script, a fragment, or nowhere.
func TestRegisterRefusesUnsafeRedirects(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, ok := range []string{"https://claude.ai/api/mcp/auth_callback", "http://localhost:8976/cb", "http://[::1]/cb", "cursor://anysphere.cursor-mcp/oauth/callback"} {
		if _, err := f.oauth.Register(ctx, oauth.ClientInput{Name: "App", RedirectURIs: []string{ok}}); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	before := f.Count(t, `SELECT count(*) FROM oauth_clients`) + 1 // the refresh-token client below
	for _, bad := range [][]string{nil, {"http://evil.example/cb"}, {"javascript:alert(1)"}, {"https://app.example/cb#frag"},
		{"/relative"}, {"data:text/html,hi"}, {"https:///nohost"}} {
		_, err := f.oauth.Register(ctx, oauth.ClientInput{Name: "App", RedirectURIs: bad})
		wantCode(t, err, oauth.InvalidRedirectURI)
	}
	_, err := f.oauth.Register(ctx, oauth.ClientInput{Name: "App", RedirectURIs: []string{redirect}, GrantTypes: []string{"client_credentials"}})
	wantCode(t, err, oauth.InvalidClientMetadata)
	// Refresh tokens asked beside codes: registered, for codes.
	if _, err := f.oauth.Register(ctx, oauth.ClientInput{Name: "App", RedirectURIs: []string{redirect},
		GrantTypes: []string{"authorization_code", "refresh_token"}}); err != nil {
		t.Errorf("a client asking for refresh tokens too: %v", err)
	}
	_, err = f.oauth.Register(ctx, oauth.ClientInput{Name: strings.Repeat("x", oauth.MaxClientName+1), RedirectURIs: []string{redirect}})
	wantCode(t, err, oauth.InvalidClientMetadata)
	if f.Count(t, `SELECT count(*) FROM oauth_clients`) != before {
		t.Fatal("a refused registration stored a client")
	}
}

// TestCheckNeverRedirectsAWrongClient: an unknown client or a redirect
// URI it did not register is an error the person is shown (NoRedirect);
// a loopback redirect may take any port (RFC 8252); PKCE S256 and this
// server's resource are required.
func TestCheckNeverRedirectsAWrongClient(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := f.client(t)
	req := request(c)
	if _, _, err := f.oauth.Check(ctx, req, resource); err != nil {
		t.Fatal(err)
	}
	other := req
	other.RedirectURI = "http://127.0.0.1:50123/callback"
	if _, _, err := f.oauth.Check(ctx, other, resource); err != nil {
		t.Fatalf("a loopback redirect on another port: %v", err)
	}
	none := req
	none.RedirectURI = ""
	if _, got, err := f.oauth.Check(ctx, none, resource); err != nil || got.RedirectURI != redirect {
		t.Fatalf("no redirect_uri with one registered: %v %q", err, got.RedirectURI)
	}
	for name, bad := range map[string]func(*oauth.Request){
		"unknown client": func(r *oauth.Request) { r.ClientID = "oac_nobody" },
		"other redirect": func(r *oauth.Request) { r.RedirectURI = "https://evil.example/cb" },
		"other path":     func(r *oauth.Request) { r.RedirectURI = "http://127.0.0.1:33418/other" },
	} {
		r := req
		bad(&r)
		if _, _, err := f.oauth.Check(ctx, r, resource); !oauth.NoRedirect(err) {
			t.Errorf("%s: %v, want an error shown, not redirected", name, err)
		}
	}
	for name, bad := range map[string]func(*oauth.Request){
		"token response": func(r *oauth.Request) { r.ResponseType = "token" },
		"plain PKCE":     func(r *oauth.Request) { r.ChallengeMethod = "plain" },
		"no challenge":   func(r *oauth.Request) { r.Challenge = "" },
		"other resource": func(r *oauth.Request) { r.Resource = "https://other.example/mcp" },
	} {
		r := req
		bad(&r)
		if _, _, err := f.oauth.Check(ctx, r, resource); err == nil || oauth.NoRedirect(err) {
			t.Errorf("%s: %v, want an error sent back to the client", name, err)
		}
	}
}

// TestApproveAndExchange: the person's choices, within their role, become
// an agent key of theirs on the site when the code is exchanged with its
// verifier, once, within its life; a second use revokes the key; the
// wrong verifier, client or redirect gets nothing.
func TestApproveAndExchange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := f.client(t)
	req := request(c)

	// Above the role: a Contributor may not give Auto, nor schedules:write.
	_, err := f.oauth.Approve(ctx, f.Contributor, f.Site.ID, req, resource, policy.ModeAuto, nil)
	enginetest.WantRefusal(t, err, agents.CodeModeAboveRole, "mode")
	_, err = f.oauth.Approve(ctx, f.Contributor, f.Site.ID, req, resource, policy.ModeEdits, []policy.Scope{policy.SchedulesWrite})
	enginetest.WantRefusal(t, err, agents.CodeScopeAboveRole, "scopes")
	// Another site's id is not the person's to grant.
	if _, err := f.oauth.Approve(ctx, f.Editor, "site_elsewhere", req, resource, policy.ModeEdits, nil); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("approve on another site: %v", err)
	}
	if n := f.Count(t, `SELECT count(*) FROM oauth_codes`); n != 0 {
		t.Fatalf("refusals stored %d codes", n)
	}

	exchange := func(code string, mod func(*oauth.TokenRequest)) (oauth.Token, error) {
		in := oauth.TokenRequest{GrantType: "authorization_code", Code: code, RedirectURI: redirect, ClientID: c.ID, Verifier: verifier, Resource: resource}
		if mod != nil {
			mod(&in)
		}
		return f.oauth.Exchange(ctx, in, resource)
	}
	approve := func() string {
		t.Helper()
		code, err := f.oauth.Approve(ctx, f.Editor, f.Site.ID, req, resource, policy.ModeManual, []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite})
		if err != nil {
			t.Fatal(err)
		}
		return code
	}

	code := approve()
	if f.Count(t, `SELECT count(*) FROM audit WHERE action = 'oauth.grant'`) != 1 {
		t.Error("the grant is not audited")
	}
	tok, err := exchange(code, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.keys.Authenticate(ctx, tok.AccessToken)
	if err != nil || u.ID != f.Editor.ID || u.SiteID != f.Site.ID || u.Agent.Mode != policy.ModeManual || u.Agent.KeyID != tok.Key.ID {
		t.Fatalf("the token authenticates as %+v, %v", u, err)
	}
	if tok.Key.Name != "Claude" || !slices.Equal(tok.Key.Scopes, []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite}) {
		t.Fatalf("key = %+v", tok.Key)
	}
	// A second use: refused, and the first use's key no longer works.
	_, err = exchange(code, nil)
	wantCode(t, err, oauth.InvalidGrant)
	if _, err := f.keys.Authenticate(ctx, tok.AccessToken); err == nil {
		t.Fatal("a code used twice left its token working")
	}

	for name, mod := range map[string]func(*oauth.TokenRequest){
		"wrong verifier": func(in *oauth.TokenRequest) { in.Verifier = strings.Repeat("b", 43) },
		"no verifier":    func(in *oauth.TokenRequest) { in.Verifier = "" },
		"other client":   func(in *oauth.TokenRequest) { in.ClientID = "oac_other" },
		"other redirect": func(in *oauth.TokenRequest) { in.RedirectURI = "http://127.0.0.1:1/other" },
		"unknown code":   func(in *oauth.TokenRequest) { in.Code = "stc_nothing" },
	} {
		keys := f.Count(t, `SELECT count(*) FROM agent_keys`)
		_, err := exchange(approve(), mod)
		wantCode(t, err, oauth.InvalidGrant)
		if f.Count(t, `SELECT count(*) FROM agent_keys`) != keys {
			t.Errorf("%s: a refused exchange minted a key", name)
		}
	}
	_, err = exchange(approve(), func(in *oauth.TokenRequest) { in.GrantType = "password" })
	wantCode(t, err, oauth.UnsupportedGrantType)

	// A code lives CodeLife: a moment later it is refused.
	late := approve()
	f.Clock.Advance(oauth.CodeLife)
	_, err = exchange(late, nil)
	wantCode(t, err, oauth.InvalidGrant)

	// Approved by someone who has left the site since: nothing.
	code = approve()
	f.Exec(t, `DELETE FROM memberships WHERE user_id = ?`, f.Editor.ID)
	_, err = exchange(code, nil)
	wantCode(t, err, oauth.InvalidGrant)
}
