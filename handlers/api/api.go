// Package api is the JSON API for people's scripts (RFC §13), under
// /api/sites/{siteId}/…. Callers authenticate with a personal access token
// (Authorization: Bearer …) and act as its person, with their role. Errors
// are {"error": {"code", "message", "details"}} with the RFC's codes and a
// message in the person's language.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/policy"
	"studio/locales"
)

// Codes of the API's own refusals (the engine's are passed through).
const (
	CodeUnauthenticated = "unauthenticated"
	CodeBadRequest      = "bad_request"
	CodeBadInstant      = "bad_instant"
)

// Handler holds what the API needs.
type Handler struct {
	eng *engine.Engine
	log *slog.Logger
}

// New returns the API handlers.
func New(eng *engine.Engine, log *slog.Logger) *Handler { return &Handler{eng: eng, log: log} }

type userKey struct{}

func userOf(ctx context.Context) engine.User { u, _ := ctx.Value(userKey{}).(engine.User); return u }

// Guard authenticates the bearer token and checks the route's scope. A
// token is not sent by browsers on their own, so no CSRF token is needed.
func (h *Handler) Guard(scope policy.Scope, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := locales.With(r.Context(), locales.Match(r.Header.Get("Accept-Language")))
		secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			h.problem(w, ctx, http.StatusUnauthorized, CodeUnauthenticated, nil)
			return
		}
		u, err := h.eng.TokenUser(ctx, strings.TrimSpace(secret))
		if errors.Is(err, engine.ErrNotFound) {
			h.problem(w, ctx, http.StatusUnauthorized, CodeUnauthenticated, nil)
			return
		}
		if err != nil {
			h.fail(w, ctx, err)
			return
		}
		ctx = locales.With(context.WithValue(ctx, userKey{}, u), u.Lang)
		if !policy.Has(u.Role, scope) {
			h.problem(w, ctx, http.StatusForbidden, engine.CodeForbidden, nil)
			return
		}
		if id := chi.URLParam(r, "siteId"); id != "" {
			if _, err := h.eng.Site(ctx, id); err != nil {
				h.fail(w, ctx, err)
				return
			}
		}
		next(w, r.WithContext(ctx))
	}
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
	body := map[string]any{"code": code, "message": locales.T(ctx, "error."+code)}
	if len(details) > 0 {
		body["details"] = details
	}
	writeJSON(w, status, map[string]any{"error": body})
}

// fail answers an engine error: refusals with their code, the rest logged
// and hidden.
func (h *Handler) fail(w http.ResponseWriter, ctx context.Context, err error) {
	if errors.Is(err, engine.ErrNotFound) {
		h.problem(w, ctx, http.StatusNotFound, engine.CodeNotFound, nil)
		return
	}
	if e, ok := engine.AsError(err); ok {
		status := http.StatusUnprocessableEntity
		switch {
		case e.Code == engine.CodeForbidden:
			status = http.StatusForbidden
		case e.ChangedElsewhere():
			status = http.StatusConflict
		}
		details := map[string]any{}
		if e.Field != "" {
			details["field"] = e.Field
		}
		for k, v := range e.Args {
			details[strings.ToLower(k[:1])+k[1:]] = v
		}
		h.problem(w, ctx, status, e.Code, details)
		return
	}
	h.log.Error("api: request failed", "err", err)
	h.problem(w, ctx, http.StatusInternalServerError, "internal", nil)
}

// Sites lists the sites.
func (h *Handler) Sites(w http.ResponseWriter, r *http.Request) {
	sites, err := h.eng.Sites(r.Context())
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	type site struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		TimeZone string `json:"timeZone"`
	}
	out := make([]site, 0, len(sites))
	for _, s := range sites {
		out = append(out, site{s.ID, s.Name, s.TimeZone})
	}
	writeJSON(w, http.StatusOK, map[string]any{"sites": out})
}

// Releases lists a site's releases timed in [from, to) (RFC 3339; default
// from now for 400 days) and the undated ones still open.
func (h *Handler) Releases(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	from, to := h.eng.Now(), h.eng.Now().AddDate(0, 0, 400)
	for name, dst := range map[string]*time.Time{"from": &from, "to": &to} {
		if v := r.URL.Query().Get(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				h.problem(w, ctx, http.StatusUnprocessableEntity, CodeBadInstant, map[string]any{"field": name})
				return
			}
			*dst = t
		}
	}
	rows, err := h.eng.Releases(ctx, chi.URLParam(r, "siteId"), from, to)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := make([]any, 0, len(rows))
	for _, row := range rows {
		out = append(out, row.Release)
	}
	writeJSON(w, http.StatusOK, map[string]any{"releases": out})
}

// Release answers one release in the §4.2 shape.
func (h *Handler) Release(w http.ResponseWriter, r *http.Request) {
	row, err := h.eng.Release(r.Context(), chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId"))
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	writeJSON(w, http.StatusOK, row.Release)
}

// revBody is the body of a state change: the rev the caller last saw (CAS).
type revBody struct {
	Rev int64 `json:"rev"`
}

// Unschedule turns a release back into a draft.
func (h *Handler) Unschedule(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, h.eng.Unschedule)
}

// Cancel ends a release without publishing.
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) { h.change(w, r, h.eng.Cancel) }

func (h *Handler) change(w http.ResponseWriter, r *http.Request, fn func(context.Context, engine.User, string, string, int64) error) {
	ctx := r.Context()
	var body revBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil || body.Rev < 1 {
		h.problem(w, ctx, http.StatusUnprocessableEntity, CodeBadRequest, map[string]any{"field": "rev"})
		return
	}
	site, id := chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId")
	if err := fn(ctx, userOf(ctx), site, id, body.Rev); err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.Release(w, r)
}

// Scheduler reports the scheduler's health (§8.7).
func (h *Handler) Scheduler(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	hb, err := h.eng.Heartbeat(ctx)
	found := err == nil
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		h.fail(w, ctx, err)
		return
	}
	out := map[string]any{"mode": "node", "healthy": !engine.Stalled(hb, found, h.eng.Now())}
	if found {
		out["lastTick"], out["nextWakeAt"], out["trigger"] = hb.At, hb.NextWakeAt, hb.Trigger
	}
	writeJSON(w, http.StatusOK, out)
}

// PublishNow runs a missed, expired or scheduled release now, as the token's
// person (§8.6, §13); body {"rev": n}.
func (h *Handler) PublishNow(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, func(ctx context.Context, u engine.User, site, id string, rev int64) error {
		_, err := h.eng.PublishNow(ctx, u, site, id, rev)
		return err
	})
}

// Notifications are the token person's notices, derived on every read (§14).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.eng.Notifications(ctx, userOf(ctx), chi.URLParam(r, "siteId"))
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
