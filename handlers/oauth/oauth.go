// Package oauth is the JSON side of Studio's authorization server for MCP
// connectors (issue 38): the protected resource's metadata (RFC 9728), the
// authorization server's (RFC 8414), client registration (RFC 7591) and
// the token endpoint (RFC 6749 §3.2 with PKCE). No session is read and no
// cookie set: a client calls these from anywhere, so they answer any
// origin (CORS). The consent page, where a person approves a client, is
// Studio's (handlers/studio, /studio/oauth/authorize).
package oauth

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"studio/engine/agents"
	engoauth "studio/engine/oauth"
)

// Paths of the endpoints, from the origin.
const (
	ResourcePath       = "/mcp"
	AuthorizePath      = "/studio/oauth/authorize"
	TokenPath          = "/oauth/token"
	RegisterPath       = "/oauth/register"
	ResourceMetaPath   = "/.well-known/oauth-protected-resource"
	AuthServerMetaPath = "/.well-known/oauth-authorization-server"
	guidePath          = "/studio/agents/guide"
)

// MaxBody is the largest registration or token request read.
const MaxBody = 16 << 10

// Handler serves the endpoints.
type Handler struct {
	oauth    *engoauth.OAuth
	origin   func(*http.Request) string
	clientIP func(*http.Request) string
	log      *slog.Logger
	// registrations limits how many clients an address registers.
	registrations *addressLimit
}

// New serves o's endpoints; origin is the scheme and host a request
// reached Studio at (studio.Origin), which the metadata's addresses start
// with, and clientIP the address it came from (studio.ClientIP).
func New(o *engoauth.OAuth, origin, clientIP func(*http.Request) string, log *slog.Logger) *Handler {
	return &Handler{oauth: o, origin: origin, clientIP: clientIP, log: log, registrations: newAddressLimit(time.Now)}
}

// ResourceMetadataURL is where a client learns how to get a token for
// /mcp: the 401 of /mcp names it (WWW-Authenticate resource_metadata).
func ResourceMetadataURL(origin string) string { return origin + ResourceMetaPath + ResourcePath }

func scopes() []string {
	var out []string
	for _, s := range agents.Scopes() {
		out = append(out, string(s))
	}
	return out
}

// ProtectedResource is /mcp's metadata (RFC 9728), at the well-known
// address with and without the resource's path.
func (h *Handler) ProtectedResource(w http.ResponseWriter, r *http.Request) {
	origin := h.origin(r)
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: origin + ResourcePath, AuthorizationServers: []string{origin}, ScopesSupported: scopes(),
		BearerMethodsSupported: []string{"header"}, ResourceName: "Studio", ResourceDocumentation: origin + guidePath,
	}).ServeHTTP(w, r)
}

// authServerMeta is the authorization server's metadata (RFC 8414 §2),
// the fields Studio has: oauthex.AuthServerMeta writes an empty jwks_uri,
// which a strict client reads as a bad URL.
type authServerMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ServiceDocumentation              string   `json:"service_documentation"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

// AuthorizationServer is the authorization server's metadata (RFC 8414).
func (h *Handler) AuthorizationServer(w http.ResponseWriter, r *http.Request) {
	origin := h.origin(r)
	writeJSON(w, http.StatusOK, authServerMeta{
		Issuer: origin, AuthorizationEndpoint: origin + AuthorizePath, TokenEndpoint: origin + TokenPath,
		RegistrationEndpoint: origin + RegisterPath, ScopesSupported: scopes(), ResponseTypesSupported: []string{"code"},
		GrantTypesSupported: []string{"authorization_code"}, TokenEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported: []string{"S256"}, ServiceDocumentation: origin + guidePath, IssParameterSupported: true,
	})
}

// registration is a registration request's and answer's metadata (RFC
// 7591 §2, §3.2.1).
type registration struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
}

// Register registers a client (RFC 7591): a public one, which proves its
// codes with PKCE and holds no secret.
func (h *Handler) Register(w http.ResponseWriter, r *http.Request) {
	if ok, wait := h.registrations.allow(h.clientIP(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		cors(w)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]string{"error": engoauth.InvalidRequest,
			"error_description": "too many registrations from this address: try again later"})
		return
	}
	var in registration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	if err := dec.Decode(&in); err != nil {
		h.refuse(w, &engoauth.Error{Code: engoauth.InvalidClientMetadata, Description: "the body is not a JSON object of client metadata"})
		return
	}
	c, err := h.oauth.Register(r.Context(), engoauth.ClientInput{Name: in.ClientName, RedirectURIs: in.RedirectURIs,
		GrantTypes: in.GrantTypes, ResponseTypes: in.ResponseTypes})
	if err != nil {
		h.refuse(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, registration{ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, TokenEndpointAuthMethod: "none", GrantTypes: []string{"authorization_code"},
		ResponseTypes: []string{"code"}})
}

// Token exchanges an authorization code for an access token (RFC 6749
// §4.1.3, §5.1): an agent key's secret, which does not expire and is
// revoked on the Agents page.
func (h *Handler) Token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if err := r.ParseForm(); err != nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		h.refuse(w, &engoauth.Error{Code: engoauth.InvalidRequest, Description: "send the parameters as application/x-www-form-urlencoded"})
		return
	}
	f := r.PostForm
	tok, err := h.oauth.Exchange(r.Context(), engoauth.TokenRequest{GrantType: f.Get("grant_type"), Code: f.Get("code"),
		RedirectURI: f.Get("redirect_uri"), ClientID: f.Get("client_id"), Verifier: f.Get("code_verifier"), Resource: f.Get("resource")},
		h.origin(r)+ResourcePath)
	if err != nil {
		h.refuse(w, err)
		return
	}
	granted := make([]string, len(tok.Key.Scopes))
	for i, s := range tok.Key.Scopes {
		granted[i] = string(s)
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok.AccessToken, "token_type": "Bearer", "scope": strings.Join(granted, " ")})
}

// Preflight answers a browser's CORS preflight for the endpoints.
func (h *Handler) Preflight(w http.ResponseWriter, r *http.Request) {
	cors(w)
	w.WriteHeader(http.StatusNoContent)
}

func cors(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Mcp-Protocol-Version")
}

// refuse answers err as OAuth's error JSON (400; invalid_client 401), or
// a plain 500 when it is not a refusal.
func (h *Handler) refuse(w http.ResponseWriter, err error) {
	var e *engoauth.Error
	if !errors.As(err, &e) {
		h.log.Error("oauth: request failed", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	status := http.StatusBadRequest
	if e.Code == engoauth.InvalidClient {
		status = http.StatusUnauthorized
	}
	writeJSON(w, status, map[string]string{"error": e.Code, "error_description": e.Description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	cors(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
