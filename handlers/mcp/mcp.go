// Package mcp is Studio's MCP surface (RFC §12): the /mcp endpoint, over
// Streamable HTTP (github.com/modelcontextprotocol/go-sdk), for external
// agents calling through an agent key (Authorization: Bearer <secret>).
//
// Like the API and Studio, it parses, calls one engine use case and
// answers: every tool first passes automations.StartCall (an automation
// key's open run, its mode and taint, its budget, then engine.AgentMayCall:
// §12's class × mode table and the key's scopes), then calls the use case
// the matching API route calls, answers the API's JSON shape, lets
// Call.End count the call in its run, and writes an audit row
// (engine.AuditToolCall, with the run's id), refused calls too. A refusal is an MCP tool error
// (IsError) whose structured content is the API's error body, {"error":
// {"code", "message", "details"?}}, the message in the key owner's language.
//
// No cookie and no session is read here: a browser page cannot reach the
// endpoint with a person's session, and a request a browser says another
// origin sent is refused before anything is looked up.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/gates"
	"studio/engine/jobs"
	"studio/engine/localtime"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/services"
	"studio/handlers/refusal"
	"studio/locales"
)

// Keys authenticates an agent key's secret: the key's owner as an
// engine.User with User.Agent set (the key, its effective mode, its
// automation and open run) and the owner's scopes narrowed to the key's.
// An unknown, revoked or disabled key is engine.ErrNotFound or a refusal
// (engine.Error); both answer 401 alike.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (engine.User, error)
}

// Instructions are the server's instructions (§12's paragraph).
const Instructions = "Schedules: to publish later, propose or schedule a release with the entries; a person approves the pinned versions in Studio and Studio publishes them at that time — do not poll. Scheduled content is locked; ask a person to unschedule it. Embargoes and expiries are times on the entry, enforced by the site itself. Inside an automation run (begin_run) you have a budget and an end time; once you read reader text, 404 paths, analytics referrers or fetched pages, the run can only read, label, hide or pause."

// MaxBody bounds a request's body: the largest tool input (a draft's text
// in the next pass's save_draft, up to 100,000 characters of four bytes)
// and the JSON-RPC around it.
const MaxBody = 1 << 20

// CodeUnauthenticated answers a request without a valid agent key.
const CodeUnauthenticated = "unauthenticated"

// CodeBadRequest is a tool's input that does not fit its schema.
const CodeBadRequest = "bad_request"

// Handler is the /mcp endpoint.
type Handler struct {
	eng      *engine.Engine
	nodes    *nodes.Nodes
	releases *releases.Releases
	cal      *calendar.Calendar
	aut      *automations.Automations
	gates    *gates.Gates
	jobs     *jobs.Jobs
	keys     Keys
	log      *slog.Logger
	server   *sdk.Server
	http     http.Handler
	// sessions are the open MCP sessions: their keys, last use and taint.
	sessions *sessionBook
	// crossOrigin refuses what a browser says another origin sent, for
	// every method (an agent is no browser and sends neither header).
	crossOrigin *http.CrossOriginProtection
	// resourceMetadata is the address of /mcp's OAuth metadata for a
	// request, which a 401 names; nil: none is served.
	resourceMetadata func(*http.Request) string
}

// New builds the MCP server with its tools and its HTTP handler.
func New(svc *services.Services, keys Keys, log *slog.Logger) *Handler {
	h := &Handler{eng: svc.Engine, nodes: svc.Nodes, releases: svc.Releases, cal: svc.Calendar, aut: svc.Automations, gates: svc.Gates, jobs: svc.Jobs, keys: keys, log: log,
		crossOrigin: http.NewCrossOriginProtection(), sessions: newSessionBook(time.Now)}
	h.server = sdk.NewServer(&sdk.Implementation{Name: "studio", Version: "1"},
		&sdk.ServerOptions{Instructions: Instructions, Logger: log})
	h.server.AddReceivingMiddleware(h.book, h.badInput)
	h.addTools()
	h.addWriteTools()
	// DNS-rebinding protection stays on (DisableLocalhostProtection false):
	// a request reaching a loopback listener with another Host is refused.
	stream := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.server },
		&sdk.StreamableHTTPOptions{Logger: log, MaxRequestBodyBytes: MaxBody, SessionTimeout: SessionIdle})
	verify := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		u, ok := ctx.Value(userKey{}).(engine.User)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		// UserID binds the MCP session to the key: another key cannot
		// take a session over.
		return &auth.TokenInfo{UserID: u.Agent.KeyID, Extra: map[string]any{"user": u}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	h.http = verify(stream)
	return h
}

// AnnounceOAuth makes a 401 name the address of /mcp's OAuth metadata
// (RFC 9728 §5.1), where a connector that speaks only OAuth learns how to
// get a token: at is that address for a request.
func (h *Handler) AnnounceOAuth(at func(*http.Request) string) { h.resourceMetadata = at }

// TrustOrigin lets browser requests come from origin too (as Studio's
// WithTrustedOrigins).
func (h *Handler) TrustOrigin(origin string) error { return h.crossOrigin.AddTrustedOrigin(origin) }

type userKey struct{}

// ServeHTTP checks the origin, then the key, on every request: a revoked
// key stops at its next request, whatever session it opened.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// CrossOriginProtection passes safe methods; an MCP GET opens the
	// event stream, so every method is checked as a POST would be.
	probe := r.Clone(r.Context())
	probe.Method = http.MethodPost
	if err := h.crossOrigin.Check(probe); err != nil {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if r.ContentLength > MaxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	u, err := h.caller(r)
	if err != nil {
		if !errors.Is(err, engine.ErrNotFound) {
			h.log.Error("mcp: authentication failed", "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		challenge := `Bearer realm="studio-mcp"`
		if h.resourceMetadata != nil {
			challenge += `, resource_metadata="` + h.resourceMetadata(r) + `"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": CodeUnauthenticated,
			"message": locales.T(locales.With(r.Context(), "en"), "mcp.unauthenticated")}})
		return
	}
	w, ok := guardProtocol(w, r)
	if !ok {
		return
	}
	h.http.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	if um, held := w.(*unknownMethod); held {
		um.finish()
	}
}

// caller is the agent the request's key acts as; ErrNotFound for no key,
// another scheme, or a key that does not authenticate.
func (h *Handler) caller(r *http.Request) (engine.User, error) {
	secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(secret) == "" || h.keys == nil {
		return engine.User{}, engine.ErrNotFound
	}
	u, err := h.keys.Authenticate(r.Context(), strings.TrimSpace(secret))
	if _, refused := engine.AsError(err); refused {
		return engine.User{}, engine.ErrNotFound // the key's refusal says no more than "not a key"
	}
	if err != nil {
		return engine.User{}, err
	}
	if u.Agent == nil || u.Agent.KeyID == "" {
		return engine.User{}, engine.ErrNotFound // a person's credentials are not an agent's
	}
	return u, nil
}

// agentOf is the agent of a tool call, as ServeHTTP authenticated it.
func agentOf(req *sdk.CallToolRequest) (engine.User, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return engine.User{}, false
	}
	u, ok := req.Extra.TokenInfo.Extra["user"].(engine.User)
	return u, ok && u.Agent != nil
}

// ctxOf is the call's context in the owner's language.
func ctxOf(ctx context.Context, u engine.User) context.Context {
	lang := u.Lang
	if lang == "" {
		lang = "en"
	}
	return locales.With(ctx, lang)
}

// refused is the tool error of err: the API's code, sentence and details.
func (h *Handler) refused(ctx context.Context, site engine.Site, err error) (*sdk.CallToolResult, string) {
	code, msg, details := CodeBadRequest, "", map[string]any{}
	switch e, ok := engine.AsError(err); {
	case errors.Is(err, engine.ErrNotFound):
		code, msg = engine.CodeNotFound, locales.T(ctx, "error."+engine.CodeNotFound)
	case ok:
		loc := time.UTC
		if z, zerr := localtime.LoadZone(site.TimeZone); zerr == nil && site.ID != "" {
			loc = z
		}
		code, msg = e.Code, refusal.SentenceIn(locales.From(ctx), loc, e, "")
		if e.Field != "" {
			details["field"] = e.Field
		}
		for k, v := range e.Args {
			details[strings.ToLower(k[:1])+k[1:]] = v
		}
	default:
		h.log.Error("mcp: tool failed", "err", err)
		code, msg = "internal", locales.T(ctx, "error.internal")
	}
	return errorResult(code, msg, details), code
}

func errorResult(code, msg string, details map[string]any) *sdk.CallToolResult {
	body := map[string]any{"code": code, "message": msg}
	if len(details) > 0 {
		body["details"] = details
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: code + ": " + msg}},
		StructuredContent: map[string]any{"error": body}}
}

// badInput turns the SDK's own refusal of a tool's arguments (they do not
// fit the tool's input schema: a missing or misspelt field, a wrong type)
// into the API's bad_request, and audits it like any call.
func (h *Handler) badInput(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		call, ok := req.(*sdk.CallToolRequest)
		tr, isTool := res.(*sdk.CallToolResult)
		if method != "tools/call" || !ok || err != nil || !isTool || !tr.IsError || tr.StructuredContent != nil {
			return res, err
		}
		u, ok := agentOf(call)
		if !ok {
			return res, err
		}
		reason := ""
		for _, c := range tr.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				reason = t.Text
			}
		}
		lctx := ctxOf(ctx, u)
		// Inside a run the bad call is the run's: counted as a refusal and
		// audited with its run_id (whatever the gate says, the answer stays
		// bad_request).
		started, _ := h.aut.StartCall(ctx, u, automations.CallRequest{Tool: call.Params.Name})
		started.End(ctx, automations.CallResult{Refused: true})
		h.audit(ctx, started.User, call.Params.Name, CodeBadRequest)
		details := map[string]any{"reason": reason}
		msg := locales.T(lctx, "mcp.bad_input")
		if arg := argumentOf(reason); arg != "" {
			details["argument"] = arg
			msg = locales.T(lctx, "mcp.bad_argument", "Argument", arg)
		}
		return errorResult(CodeBadRequest, msg, details), nil
	}
}

// argumentPatterns find the argument the SDK's refusal of a tool's input
// is about, in the words of its schema validator and of encoding/json.
var argumentPatterns = []*regexp.Regexp{
	regexp.MustCompile(`validating /properties/([A-Za-z]+)`),
	regexp.MustCompile(`missing properties: \["([A-Za-z]+)"`),
	regexp.MustCompile(`additional properties \["([^"]+)"`),
	regexp.MustCompile(`Go struct field [\w.]+\.([A-Za-z]+) of type`),
}

// argumentOf is the argument a refusal's reason names, "" when none.
func argumentOf(reason string) string {
	for _, re := range argumentPatterns {
		if m := re.FindStringSubmatch(reason); m != nil {
			return m[1]
		}
	}
	return ""
}

// audit writes a call's row on the key's own site (a key acts on no other).
func (h *Handler) audit(ctx context.Context, u engine.User, tool, code string) {
	if err := h.eng.AuditToolCall(ctx, u, engine.ToolCall{Tool: tool, Code: code}); err != nil {
		h.log.Error("mcp: audit", "tool", tool, "err", err)
	}
}
