// Package api is the JSON API for people's scripts and signed-in browsers
// (RFC §13), under /api/sites/{siteId}/…, with the operator routes under
// /api/admin/ for deploy tokens. A caller is a person, with their
// role: a script sends a personal access token (Authorization: Bearer …);
// a browser signed in to Studio sends its session cookie, and then every
// state-changing request also carries the session's CSRF token in the
// X-CSRF-Token header, as Studio's own htmx requests do.
//
// Errors are {"error": {"code", "message", "details"}} with the RFC's codes
// and a message in the person's language. The status says what to do:
// 400 the request itself is wrong (malformed, or a field's value is refused:
// fix it and send again), 401 no person, 403 not allowed, 404 no such thing
// on this site, 409 it changed elsewhere (load the latest), 422 the request
// is well formed but the thing's state refuses it.
//
// Handlers parse, call one engine use case and answer; rules live in the
// engine, so this API and Studio (and MCP, when it comes) never disagree.
package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/gates"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/engine/settings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/handlers/refusal"
	"studio/handlers/wire"
	"studio/locales"
)

// Codes of the API's own refusals (the engine's are passed through).
const (
	CodeUnauthenticated = "unauthenticated"
	CodeBadRequest      = wire.CodeBadRequest
	CodeBadInstant      = wire.CodeBadInstant
	CodeNothingToChange = wire.CodeNothingToChange
	CodeCSRF            = "csrf"
	CodeBodyTooLarge    = "body_too_large"
)

// maxBody bounds a request body: an entry's text may be 100,000 characters,
// up to four bytes each, plus the rest of the JSON.
const maxBody = 1 << 20

// Session reads the Studio session of a request, which the router has
// loaded: the person signed in, while the session lives, and the
// session's CSRF token; engine.ErrNotFound for nobody.
type Session func(ctx context.Context) (u engine.User, csrf string, err error)

// Handler holds what the API needs.
type Handler struct {
	eng      *engine.Engine
	nodes    *nodes.Nodes
	releases *releases.Releases
	cal      *calendar.Calendar
	sched    *scheduler.Scheduler
	set      *settings.Settings
	gates    *gates.Gates
	identity *identity.Identity
	aut      *automations.Automations
	session  Session
	log      *slog.Logger
	// crossOrigin refuses a state-changing request a browser says another
	// site sent; it passes safe methods and requests that are not a
	// browser's.
	crossOrigin *http.CrossOriginProtection
}

// New returns the API handlers. session may be nil: then only tokens
// authenticate.
func New(svc *services.Services, session Session, log *slog.Logger) *Handler {
	return &Handler{eng: svc.Engine, nodes: svc.Nodes, releases: svc.Releases, cal: svc.Calendar, sched: svc.Scheduler, set: svc.Settings, gates: svc.Gates, identity: svc.Identity, aut: svc.Automations, session: session, log: log, crossOrigin: http.NewCrossOriginProtection()}
}

type userKey struct{}

type siteKey struct{}

// TrustOrigin lets session calls come from origin (e.g. "https://studio.example"),
// for a proxy that does not pass the browser's Host on.
func (h *Handler) TrustOrigin(origin string) error { return h.crossOrigin.AddTrustedOrigin(origin) }

func userOf(ctx context.Context) engine.User { u, _ := ctx.Value(userKey{}).(engine.User); return u }

// siteOf is the site of the route's {siteId}, as Guard found it.
func siteOf(ctx context.Context) engine.Site { s, _ := ctx.Value(siteKey{}).(engine.Site); return s }

// Guard finds the calling person (a bearer token, or else the Studio
// session with its CSRF token on state-changing requests), for routes
// under a site their role there (a site they are no member of is not
// found), and checks the route's scope.
func (h *Handler) Guard(scope policy.Scope, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := locales.With(r.Context(), locales.Match(r.Header.Get("Accept-Language")))
		// No handler reads more than maxBody, and a body that says it is
		// larger is refused before anyone is looked up.
		if r.ContentLength > maxBody {
			h.problem(w, ctx, http.StatusRequestEntityTooLarge, CodeBodyTooLarge, nil)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		u, csrf, err := h.caller(ctx, r)
		bySession := csrf != ""
		if errors.Is(err, engine.ErrNotFound) {
			h.problem(w, ctx, http.StatusUnauthorized, CodeUnauthenticated, nil)
			return
		}
		if err != nil {
			h.fail(w, ctx, err)
			return
		}
		ctx = locales.With(context.WithValue(ctx, userKey{}, u), u.Lang)
		// A browser sends the cookie with any request, also one another
		// site makes it send: Go's check of Sec-Fetch-Site and Origin
		// refuses what a browser says another site sent, and only Studio's
		// pages know the session's token. A bearer token is no browser's.
		if bySession && (h.crossOrigin.Check(r) != nil || !safeMethod(r.Method) && !validCSRF(r, csrf)) {
			h.problem(w, ctx, http.StatusForbidden, CodeCSRF, nil)
			return
		}
		if id := chi.URLParam(r, "siteId"); id != "" {
			// The caller acts with their role on this site; a site they
			// are no member of is answered as one that does not exist.
			site, err := h.eng.Site(ctx, id)
			if err == nil {
				u, err = h.identity.OnSite(ctx, u, id)
			}
			if err != nil {
				h.fail(w, ctx, err)
				return
			}
			ctx = context.WithValue(context.WithValue(ctx, siteKey{}, site), userKey{}, u)
		}
		if !u.Passes(scope) { // the own level is the use case's to check
			h.problem(w, ctx, http.StatusForbidden, engine.CodeForbidden, nil)
			return
		}
		next(w, r.WithContext(ctx))
	}
}

// caller is the person a request acts for: the bearer token's, or the
// signed-in session's (with its CSRF token, "" for a token) when the
// request sends no Authorization at all. ErrNotFound means nobody: no
// credentials, an unknown or revoked token, a session without a person or
// that has ended, or an account that is gone.
func (h *Handler) caller(ctx context.Context, r *http.Request) (u engine.User, csrf string, err error) {
	auth := r.Header.Get("Authorization")
	if secret, ok := strings.CutPrefix(auth, "Bearer "); ok {
		u, err := h.identity.TokenUser(ctx, strings.TrimSpace(secret))
		return u, "", err
	}
	if auth != "" || h.session == nil { // another scheme is not ignored in favour of a cookie
		return engine.User{}, "", engine.ErrNotFound
	}
	if u, csrf, err = h.session(ctx); err == nil && csrf == "" {
		err = engine.ErrNotFound // a signed-in session always holds its token
	}
	return u, csrf, err
}

// validCSRF reports whether the request carries the session's token want.
func validCSRF(r *http.Request, want string) bool {
	got := r.Header.Get("X-CSRF-Token")
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// writeJSON sends v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// problem answers an error a caller can act on.
func (h *Handler) problem(w http.ResponseWriter, ctx context.Context, status int, code string, details map[string]any) {
	h.say(w, status, code, locales.T(ctx, "error."+code), details)
}

func (h *Handler) say(w http.ResponseWriter, status int, code, message string, details map[string]any) {
	body := map[string]any{"code": code, "message": message}
	if len(details) > 0 {
		body["details"] = details
	}
	writeJSON(w, status, map[string]any{"error": body})
}

// badRequest answers a request whose shape is wrong, naming the field.
func (h *Handler) badRequest(w http.ResponseWriter, ctx context.Context, code, field string) {
	var details map[string]any
	if field != "" {
		details = map[string]any{"field": field}
	}
	h.problem(w, ctx, http.StatusBadRequest, code, details)
}

// fail answers an engine error: refusals with their code and a sentence
// (times in it in the site's zone), the rest logged and hidden.
func (h *Handler) fail(w http.ResponseWriter, ctx context.Context, err error) {
	h.failIn(w, ctx, err, "")
}

// failDraft is fail in the words of a draft release, as Studio's draft page
// says them: where drafts.error.<code> exists (a sentence that names the
// node, or offers Re-pin) and the refusal carries every name it uses, it
// replaces error.<code>. Code, status and details are fail's.
func (h *Handler) failDraft(w http.ResponseWriter, ctx context.Context, err error) {
	h.failIn(w, ctx, err, "drafts.")
}

// failIn is fail, preferring the message under prefix+"error.<code>".
func (h *Handler) failIn(w http.ResponseWriter, ctx context.Context, err error, prefix string) {
	if errors.Is(err, engine.ErrNotFound) {
		h.problem(w, ctx, http.StatusNotFound, engine.CodeNotFound, nil)
		return
	}
	e, ok := engine.AsError(err)
	if !ok {
		h.log.Error("api: request failed", "err", err)
		h.problem(w, ctx, http.StatusInternalServerError, "internal", nil)
		return
	}
	status := http.StatusUnprocessableEntity
	switch {
	case e.Code == engine.CodeForbidden:
		status = http.StatusForbidden
	case e.ChangedElsewhere(), e.Code == releases.CodeSlugTaken: // another node has the address
		status = http.StatusConflict
	case e.Field != "":
		status = http.StatusBadRequest
	}
	details := map[string]any{}
	if e.Field != "" {
		details["field"] = e.Field
	}
	for k, v := range e.Args {
		details[strings.ToLower(k[:1])+k[1:]] = v
	}
	msg := refusal.SentenceIn(locales.From(ctx), siteLoc(ctx), e, prefix)
	h.say(w, status, e.Code, msg, details)
}

// siteLoc is the zone of the request's site; UTC outside a site or for a
// broken zone name.
func siteLoc(ctx context.Context) *time.Location {
	if loc, err := localtime.LoadZone(siteOf(ctx).TimeZone); err == nil && siteOf(ctx).ID != "" {
		return loc
	}
	return time.UTC
}

// decode reads the JSON body into v. Unknown fields and anything after the
// object are refused, so a misspelt field is an error rather than a change
// that silently did not happen. It answers 400 itself and returns false
// when the body will not do.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	return h.decodeBody(w, r, v, false)
}

// decodeOptional is decode for a body that may be left out.
func (h *Handler) decodeOptional(w http.ResponseWriter, r *http.Request, v any) bool {
	return h.decodeBody(w, r, v, true)
}

func (h *Handler) decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if optional && err == io.EOF {
		return true // no body at all
	}
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = errors.New("api: data after the object")
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		h.problem(w, r.Context(), http.StatusRequestEntityTooLarge, CodeBodyTooLarge, nil)
		return false
	}
	if err != nil {
		h.badRequest(w, r.Context(), CodeBadRequest, jsonField(err))
		return false
	}
	return true
}

// jsonField names the field a decoding error is about, if it says.
func jsonField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return strings.Trim(name, `"`)
	}
	return ""
}

// Scheduler reports the scheduler's health (§8.7) from the same use case
// as /health and the Scheduler card: the heartbeat, and the releases it
// should have taken and has not; and the last 7 days' lateness.
func (h *Handler) Scheduler(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := userOf(ctx)
	st, err := h.sched.StatusOf(ctx, u)
	h.writeScheduler(ctx, w, st, u.ID, err)
}

// Sites lists the sites the caller is a member of.
func (h *Handler) Sites(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sites, err := h.eng.Sites(ctx)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	ms, err := h.identity.Memberships(ctx, userOf(ctx).ID)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	member := make(map[string]bool, len(ms))
	for _, m := range ms {
		member[m.SiteID] = true
	}
	type site struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		TimeZone string `json:"timeZone"`
		Lang     string `json:"lang"` // the public site's language
	}
	out := make([]site, 0, len(sites))
	for _, s := range sites {
		if member[s.ID] {
			out = append(out, site{s.ID, s.Name, s.TimeZone, s.Lang})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sites": out})
}

// Notifications are the person's notices, derived on every read (§14).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.sched.Notifications(ctx, userOf(ctx), chi.URLParam(r, "siteId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	type notice struct {
		ID        string    `json:"id"`
		Kind      string    `json:"kind"`
		ReleaseID string    `json:"releaseId,omitempty"`
		Title     string    `json:"title,omitempty"`
		At        time.Time `json:"at"`
	}
	out := make([]notice, 0, len(list))
	for _, n := range list {
		out = append(out, notice{n.ID, n.Kind, n.ReleaseID, n.Title, n.At})
	}
	writeJSON(w, http.StatusOK, map[string]any{"notifications": out})
}
