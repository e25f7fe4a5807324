// Package oauth is Studio's authorization server for MCP connectors that
// speak only OAuth (issue 38; the MCP authorization spec): OAuth 2.1's
// authorization code grant with PKCE (RFC 7636), clients that register
// themselves (RFC 7591), and tokens that are agent keys. A person approves
// a client on a consent page, choosing the site, the mode and the scopes
// within their role; exchanging the code mints an agent key for them with
// those choices, so a connector's token is bound, audited, limited and
// revoked exactly as a key made on the Agents page, and is listed there.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/ids"
	"studio/engine/policy"
)

// Error is an OAuth error answer (RFC 6749 §4.1.2.1 and §5.2, RFC 7591
// §3.2.2): a code a client acts on and a description for its developer,
// in English as the protocol's are.
type Error struct {
	Code        string
	Description string
}

func (e *Error) Error() string { return "oauth: " + e.Code + ": " + e.Description }

func fail(code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

// The error codes of the protocol that Studio answers.
const (
	InvalidRequest          = "invalid_request"
	InvalidClient           = "invalid_client"
	InvalidGrant            = "invalid_grant"
	InvalidScope            = "invalid_scope"
	AccessDenied            = "access_denied"
	UnsupportedGrantType    = "unsupported_grant_type"
	UnsupportedResponseType = "unsupported_response_type"
	InvalidRedirectURI      = "invalid_redirect_uri"
	InvalidClientMetadata   = "invalid_client_metadata"
	InvalidTarget           = "invalid_target" // RFC 8707: a resource not ours
)

// NoRedirect reports whether err is about the client or its redirect URI
// themselves: the authorization endpoint then tells the person, and must
// never send the browser to the redirect URI (RFC 6749 §4.1.2.1).
func NoRedirect(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Code == InvalidClient || e.Code == InvalidRedirectURI)
}

// Limits on what a client registers.
const (
	MaxRedirectURIs   = 10
	MaxRedirectLength = 2000
	MaxClientName     = 120
)

// CodeLife is how long an authorization code may be exchanged: the
// client has it from the browser's redirect and exchanges it at once.
const CodeLife = 2 * time.Minute

// Client is a registered client: public (no secret; PKCE proves the code
// is the one it asked for), with the redirect URIs it may receive codes at.
type Client struct {
	ID           string // oac_…
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
}

// ClientInput is a registration request's metadata (RFC 7591 §2), the
// fields Studio reads. Every client is public (token_endpoint_auth_method
// none), whatever it asks.
type ClientInput struct {
	Name          string
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
}

// Request is an authorization request (RFC 6749 §4.1.1) with its PKCE
// challenge (RFC 7636) and resource (RFC 8707).
type Request struct {
	ResponseType    string
	ClientID        string
	RedirectURI     string
	State           string
	Challenge       string
	ChallengeMethod string
	Scope           string
	Resource        string
}

// Scopes are the agent scopes the request asks for, in Studio's order;
// words that are not agent scopes are left out (a client may ask for
// more than a site has, the person chooses).
func (r Request) Scopes() []policy.Scope {
	asked := strings.Fields(r.Scope)
	var out []policy.Scope
	for _, s := range agents.Scopes() {
		if slices.Contains(asked, string(s)) {
			out = append(out, s)
		}
	}
	return out
}

// Code is what an authorization code stands for until it is exchanged:
// the person's choices for the client, and the PKCE challenge.
type Code struct {
	ClientID    string
	SiteID      string
	UserID      string
	RedirectURI string
	Challenge   string
	Mode        policy.Mode
	Scopes      []policy.Scope
	ExpiresAt   time.Time
	// KeyID is the key the code was exchanged for, once it was.
	KeyID string
}

// TokenRequest is a token request (RFC 6749 §4.1.3) with its PKCE
// verifier.
type TokenRequest struct {
	GrantType   string
	Code        string
	RedirectURI string
	ClientID    string
	Verifier    string
	Resource    string
}

// Token is an issued access token: an agent key's secret, and the key.
type Token struct {
	AccessToken string
	Key         agents.Key
}

// Store is what the use cases read and write.
type Store interface {
	CreateOAuthClient(ctx context.Context, c Client) error
	// OAuthClient reads a client; engine.ErrNotFound.
	OAuthClient(ctx context.Context, id string) (Client, error)
	// CreateOAuthCode stores a code by its hash with its audit row, and
	// forgets codes that expired before c was made.
	CreateOAuthCode(ctx context.Context, hash string, c Code, audit engine.AuditEntry) error
	// TakeOAuthCode reads a code and marks it taken at at, in one
	// transaction; first is false when it was taken before (its KeyID
	// then names the key it was exchanged for). engine.ErrNotFound when
	// there is none.
	TakeOAuthCode(ctx context.Context, hash string, at time.Time) (c Code, first bool, err error)
	// SetOAuthCodeKey records the key a code was exchanged for.
	SetOAuthCodeKey(ctx context.Context, hash, keyID string) error
	// MemberByID reads a person as a member of a site, with their role
	// there; engine.ErrNotFound when there is none or they are not one.
	MemberByID(ctx context.Context, siteID, id string) (engine.User, error)
}

// Keys mints and revokes the agent keys tokens are.
type Keys interface {
	Mint(ctx context.Context, u engine.User, siteID string, in agents.KeyInput) (agents.Key, string, error)
	Revoke(ctx context.Context, u engine.User, siteID, keyID string) error
}

// Clock is the time.
type Clock interface{ Now() time.Time }

// OAuth is the authorization server's use cases.
type OAuth struct {
	store Store
	keys  Keys
	clock Clock
}

// New wires the use cases.
func New(st Store, keys Keys, clock Clock) *OAuth { return &OAuth{store: st, keys: keys, clock: clock} }

// Register registers a public client (RFC 7591): redirect URIs that are
// https, http on a loopback address, or an app's own scheme (RFC 8252),
// with no fragment; the authorization code grant only, and no secret.
func (o *OAuth) Register(ctx context.Context, in ClientInput) (Client, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = "MCP client"
	}
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxClientName || strings.ContainsAny(name, "\r\n") {
		return Client{}, fail(InvalidClientMetadata, "client_name: one line of at most %d characters", MaxClientName)
	}
	if len(in.RedirectURIs) == 0 || len(in.RedirectURIs) > MaxRedirectURIs {
		return Client{}, fail(InvalidRedirectURI, "redirect_uris: 1 to %d URIs", MaxRedirectURIs)
	}
	for _, u := range in.RedirectURIs {
		if err := checkRedirect(u); err != nil {
			return Client{}, err
		}
	}
	// What a client asks beyond a public client's code grant is not
	// refused but left out: the answer says what it got (RFC 7591 §3.2.1),
	// and clients commonly ask for refresh tokens or a secret too.
	if len(in.GrantTypes) > 0 && !slices.Contains(in.GrantTypes, "authorization_code") {
		return Client{}, fail(InvalidClientMetadata, "grant_types: this server issues authorization codes only")
	}
	if len(in.ResponseTypes) > 0 && !slices.Contains(in.ResponseTypes, "code") {
		return Client{}, fail(InvalidClientMetadata, "response_types: this server answers code only")
	}
	c := Client{ID: ids.New("oac"), Name: name, RedirectURIs: slices.Clone(in.RedirectURIs), CreatedAt: o.clock.Now()}
	if err := o.store.CreateOAuthClient(ctx, c); err != nil {
		return Client{}, err
	}
	return c, nil
}

// checkRedirect refuses a redirect URI a code must never be sent to.
func checkRedirect(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > MaxRedirectLength || !u.IsAbs() || u.Fragment != "" || strings.Contains(raw, "#") {
		return fail(InvalidRedirectURI, "%q: an absolute URI without a fragment", raw)
	}
	switch scheme := strings.ToLower(u.Scheme); scheme {
	case "https":
		if u.Host == "" {
			return fail(InvalidRedirectURI, "%q: no host", raw)
		}
	case "http":
		if !loopback(u.Hostname()) {
			return fail(InvalidRedirectURI, "%q: http only on a loopback address (127.0.0.1, [::1], localhost)", raw)
		}
	case "javascript", "data", "vbscript", "file", "blob", "about", "ftp", "ws", "wss":
		return fail(InvalidRedirectURI, "%q: scheme %s is not a redirect", raw, scheme)
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether asked is registered: exactly, or for a
// loopback http URI on any port (RFC 8252 §7.3: a native app listens on
// the port it gets).
func redirectMatches(registered []string, asked string) bool {
	if slices.Contains(registered, asked) {
		return true
	}
	a, err := url.Parse(asked)
	if err != nil || a.Scheme != "http" || !loopback(a.Hostname()) {
		return false
	}
	for _, r := range registered {
		if u, err := url.Parse(r); err == nil && u.Scheme == "http" && u.Hostname() == a.Hostname() &&
			u.Path == a.Path && u.RawQuery == a.RawQuery {
			return true
		}
	}
	return false
}

// Check checks an authorization request for resource (the MCP endpoint's
// URL) and returns its client and the request with its redirect URI
// filled in when the client registered one only and the request named
// none. A wrong client or redirect URI is an Error NoRedirect reports.
func (o *OAuth) Check(ctx context.Context, req Request, resource string) (Client, Request, error) {
	c, err := o.store.OAuthClient(ctx, req.ClientID)
	if errors.Is(err, engine.ErrNotFound) {
		return Client{}, req, fail(InvalidClient, "client_id: no such client; register first")
	}
	if err != nil {
		return Client{}, req, err
	}
	if req.RedirectURI == "" && len(c.RedirectURIs) == 1 {
		req.RedirectURI = c.RedirectURIs[0]
	}
	if !redirectMatches(c.RedirectURIs, req.RedirectURI) {
		return Client{}, req, fail(InvalidRedirectURI, "redirect_uri: not one the client registered")
	}
	switch {
	case req.ResponseType != "code":
		return c, req, fail(UnsupportedResponseType, "response_type: only code")
	case req.ChallengeMethod != "S256":
		return c, req, fail(InvalidRequest, "code_challenge_method: S256 is required")
	case !pkceValue(req.Challenge) || len(req.Challenge) != 43:
		return c, req, fail(InvalidRequest, "code_challenge: the base64url SHA-256 of the code verifier (43 characters)")
	case req.Resource != "" && req.Resource != resource:
		return c, req, fail(InvalidTarget, "resource: this server's resource is %s", resource)
	}
	return c, req, nil
}

// pkceValue reports whether s is made of a code verifier's characters
// (RFC 7636 §4.1), which a challenge's base64url also is.
func pkceValue(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)) {
			return false
		}
	}
	return s != ""
}

// Approve is a person's yes on the consent page: u (a person, on siteID)
// lets req's client act as an agent key of theirs there with mode and
// scopes, within u's role (agents.CheckKey; none: the mode's defaults).
// It returns the authorization code, which only a redirect carries.
// Audited as oauth.grant.
func (o *OAuth) Approve(ctx context.Context, u engine.User, siteID string, req Request, resource string, mode policy.Mode, scopes []policy.Scope) (string, error) {
	if err := engine.ActsOn(u, siteID); err != nil {
		return "", err
	}
	if u.Agent != nil {
		return "", engine.Refuse(engine.CodeForbidden, "")
	}
	c, req, err := o.Check(ctx, req, resource)
	if err != nil {
		return "", err
	}
	in, err := agents.CheckKey(agents.KeyInput{Name: c.Name, Mode: mode, Scopes: scopes}, u.Role)
	if err != nil {
		return "", err
	}
	code := newCode()
	now := o.clock.Now()
	names := make([]string, len(in.Scopes))
	for i, s := range in.Scopes {
		names[i] = string(s)
	}
	audit := engine.AuditEntry{Action: "oauth.grant", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"client": c.ID, "name": c.Name, "redirect": req.RedirectURI, "mode": string(in.Mode), "scopes": names}}
	err = o.store.CreateOAuthCode(ctx, hashOf(code), Code{ClientID: c.ID, SiteID: siteID, UserID: u.ID, RedirectURI: req.RedirectURI,
		Challenge: req.Challenge, Mode: in.Mode, Scopes: in.Scopes, ExpiresAt: now.Add(CodeLife)}, audit)
	if err != nil {
		return "", err
	}
	return code, nil
}

// Exchange trades an authorization code for a token (RFC 6749 §4.1.3):
// the same client, the same redirect URI, the verifier of the code's
// challenge, within CodeLife, once. The token is a new agent key of the
// person who approved, minted with their choices as their role allows
// now. A code used a second time revokes the key the first use got
// (RFC 6749 §4.1.2: it may have been stolen).
func (o *OAuth) Exchange(ctx context.Context, in TokenRequest, resource string) (Token, error) {
	if in.GrantType != "authorization_code" {
		return Token{}, fail(UnsupportedGrantType, "grant_type: only authorization_code")
	}
	if in.Resource != "" && in.Resource != resource {
		return Token{}, fail(InvalidTarget, "resource: this server's resource is %s", resource)
	}
	now := o.clock.Now()
	hash := hashOf(in.Code)
	c, first, err := o.store.TakeOAuthCode(ctx, hash, now)
	if errors.Is(err, engine.ErrNotFound) {
		return Token{}, fail(InvalidGrant, "code: unknown or expired")
	}
	if err != nil {
		return Token{}, err
	}
	member, err := o.store.MemberByID(ctx, c.SiteID, c.UserID)
	if errors.Is(err, engine.ErrNotFound) {
		return Token{}, fail(InvalidGrant, "code: the person who approved it is no longer a member of the site")
	}
	if err != nil {
		return Token{}, err
	}
	if !first {
		if c.KeyID != "" {
			if err := o.keys.Revoke(ctx, member, c.SiteID, c.KeyID); err != nil {
				return Token{}, err
			}
		}
		return Token{}, fail(InvalidGrant, "code: used already; the token it gave is revoked")
	}
	switch {
	case !now.Before(c.ExpiresAt):
		return Token{}, fail(InvalidGrant, "code: expired")
	case in.ClientID != c.ClientID:
		return Token{}, fail(InvalidGrant, "client_id: the code was issued to another client")
	case in.RedirectURI != "" && in.RedirectURI != c.RedirectURI:
		return Token{}, fail(InvalidGrant, "redirect_uri: not the one of the authorization request")
	case !verifies(in.Verifier, c.Challenge):
		return Token{}, fail(InvalidGrant, "code_verifier: does not match the code_challenge")
	}
	client, err := o.store.OAuthClient(ctx, c.ClientID)
	if err != nil {
		return Token{}, err
	}
	k, secret, err := o.keys.Mint(ctx, member, c.SiteID, agents.KeyInput{Name: client.Name, Mode: c.Mode, Scopes: c.Scopes})
	if _, refused := engine.AsError(err); refused {
		return Token{}, fail(InvalidGrant, "the person's role no longer allows what they approved")
	}
	if err != nil {
		return Token{}, err
	}
	if err := o.store.SetOAuthCodeKey(ctx, hash, k.ID); err != nil {
		return Token{}, err
	}
	return Token{AccessToken: secret, Key: k}, nil
}

// verifies reports whether verifier is the one challenge was made from
// (S256: the base64url of its SHA-256).
func verifies(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 || !pkceValue(verifier) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// newCode is an authorization code: 256 random bits.
func newCode() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("oauth: crypto/rand: " + err.Error()) // never fails on Go ≥ 1.24
	}
	return "stc_" + base64.RawURLEncoding.EncodeToString(b[:])
}

func hashOf(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}
