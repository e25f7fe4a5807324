package apptest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"testing"

	"studio/engine/oauth"
)

// OAuthVerifier is the PKCE verifier of OAuthRequest's challenge.
const OAuthVerifier = "a-verifier-of-forty-three-characters-or-more-000"

// OAuthCallback is where OAuthRequest's client receives its codes.
const OAuthCallback = "https://app.example/callback"

// OAuthRequest registers a connector and returns an authorization request
// of its, as the consent page's query.
func (a *App) OAuthRequest(t *testing.T) url.Values {
	t.Helper()
	c, err := a.OAuth.Register(context.Background(), oauth.ClientInput{Name: "Connector", RedirectURIs: []string{OAuthCallback}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(OAuthVerifier))
	return url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {OAuthCallback}, "state": {"s"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
}

// OAuthConsentForm is the consent form's answer to req: its fields, the
// decision and the mode.
func OAuthConsentForm(req url.Values, decision, mode string) url.Values {
	form := url.Values{"decision": {decision}, "mode": {mode}}
	for k, v := range req {
		form["request_"+k] = v
	}
	return form
}
