// Package studio serves the Studio pages for people: sign-in, content,
// scheduling, the Agenda and releases. Handlers parse the request, call one
// engine use case and render; rules live in the engine.
package studio

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/locales"
	"studio/web/templates"
)

// Handler holds what the Studio pages need.
type Handler struct {
	eng      *engine.Engine
	sessions *scs.SessionManager
	log      *slog.Logger
}

// New returns the Studio handlers.
func New(eng *engine.Engine, sessions *scs.SessionManager, log *slog.Logger) *Handler {
	return &Handler{eng: eng, sessions: sessions, log: log}
}

// Session keys.
const (
	keyUser = "user_id"
	keyCSRF = "csrf"
	keyLang = "lang"
	keyNext = "flash"
)

// CSRFField is the form field (and X-CSRF-Token the header) carrying the
// session's token on every state-changing request.
const CSRFField = "csrf_token"

type state struct {
	user *engine.User
	csrf string
	site engine.Site
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	s, _ := ctx.Value(stateKey{}).(*state)
	if s == nil {
		return &state{}
	}
	return s
}

// Prepare runs before every Studio route: it finds the signed-in person and
// their language, makes sure the session has a CSRF token, and refuses a
// state-changing request whose token does not match.
func (h *Handler) Prepare(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		st := &state{csrf: h.sessions.GetString(ctx, keyCSRF)}
		if st.csrf == "" {
			st.csrf = newToken()
			h.sessions.Put(ctx, keyCSRF, st.csrf)
		}
		lang := h.sessions.GetString(ctx, keyLang)
		if id := h.sessions.GetString(ctx, keyUser); id != "" {
			u, err := h.eng.User(ctx, id)
			switch {
			case err == nil:
				st.user, lang = &u, u.Lang
			case errors.Is(err, engine.ErrNotFound): // the account is gone
				h.sessions.Remove(ctx, keyUser)
			default:
				h.fail(w, r, err)
				return
			}
		}
		if lang == "" {
			lang = locales.Match(r.Header.Get("Accept-Language"))
		}
		ctx = context.WithValue(locales.With(ctx, lang), stateKey{}, st)
		r = r.WithContext(ctx)
		h.backstop(ctx)
		if !safeMethod(r.Method) && !validToken(st.csrf, r) {
			h.problem(w, r, http.StatusForbidden, "error.csrf")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func validToken(want string, r *http.Request) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue(CSRFField)
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// returnTo is the page to come back to after signing in: the page itself for
// a plain GET; the page the person was on for an htmx fragment or a form
// post, whose own address is not a page.
func returnTo(r *http.Request) string {
	if r.Method == http.MethodGet && r.Header.Get("HX-Request") != "true" {
		return r.URL.RequestURI()
	}
	from := r.Header.Get("HX-Current-URL")
	if from == "" {
		from = r.Referer()
	}
	if u, err := url.Parse(from); err == nil && u.Host == r.Host {
		return u.RequestURI()
	}
	return "/studio"
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Guard lets a request through only for a signed-in person holding scope;
// anyone else is sent to sign in, or told they may not.
func (h *Handler) Guard(scope policy.Scope, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		if st.user == nil {
			target := "/studio/login?next=" + url.QueryEscape(returnTo(r))
			if r.Header.Get("HX-Request") == "true" {
				w.Header().Set("HX-Redirect", target)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		if !policy.Has(st.user.Role, scope) {
			h.problem(w, r, http.StatusForbidden, "error.forbidden")
			return
		}
		sites, err := h.eng.Sites(r.Context())
		if err != nil || len(sites) == 0 {
			h.fail(w, r, errors.Join(err, errors.New("studio: no site")))
			return
		}
		st.site = sites[0] // one site per Studio for now; later chosen per request
		next(w, r)
	}
}

// page builds the frame of a page for the request.
func (h *Handler) page(r *http.Request, titleKey, nav string) templates.Page {
	ctx := r.Context()
	st := stateOf(ctx)
	p := templates.Page{Title: locales.T(ctx, titleKey), Nav: nav, CSRF: st.csrf, Flash: h.sessions.PopString(ctx, keyNext)}
	if st.user != nil {
		p.User = &templates.UserView{Name: st.user.Name, Role: string(st.user.Role)}
		p.CanSettings = policy.Has(st.user.Role, policy.SiteSettings)
	}
	if st.site.ID != "" {
		p.Site = templates.SiteView{ID: st.site.ID, Name: st.site.Name, TimeZone: st.site.TimeZone,
			ZoneLabel: zoneLabel(ctx, st.site.TimeZone, h.eng.Now())}
		if st.user != nil {
			// A failed count only hides the number; the page still works.
			if list, err := h.eng.Notifications(ctx, *st.user, st.site.ID); err == nil {
				p.Notices = len(list)
			} else {
				h.log.Error("studio: notifications", "err", err)
			}
		}
	}
	return p
}

func zoneLabel(ctx context.Context, zone string, at time.Time) string {
	loc, err := localtime.LoadZone(zone)
	if err != nil {
		return zone
	}
	return locales.ZoneLabel(locales.From(ctx).ZoneCity(zone), localtime.OffsetLabel(at, loc))
}

// flash leaves a one-time notice for the next page.
func (h *Handler) flash(r *http.Request, key string) { h.sessions.Put(r.Context(), keyNext, key) }

// render writes a component with status, rendered into a buffer first so a
// failure never sends half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.log.Error("studio: render", "path", r.URL.Path, "err", err)
		http.Error(w, locales.T(r.Context(), "error.internal"), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// problem renders a page that explains what went wrong.
func (h *Handler) problem(w http.ResponseWriter, r *http.Request, status int, key string) {
	p := h.page(r, "error.title", "")
	h.render(w, r, status, templates.Problem(p, locales.T(r.Context(), key)))
}

// fail handles an error no person can act on: it is logged, never shown.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, engine.ErrNotFound) {
		h.problem(w, r, http.StatusNotFound, "error.not_found")
		return
	}
	if e, ok := engine.AsError(err); ok && e.Code == engine.CodeForbidden {
		h.problem(w, r, http.StatusForbidden, "error.forbidden")
		return
	}
	h.log.Error("studio: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	h.problem(w, r, http.StatusInternalServerError, "error.internal")
}

// refusal turns an engine refusal into a sentence and, when it belongs to a
// field, a field error. ok is false for errors that are not refusals.
func refusal(ctx context.Context, err error) (msg string, fields templates.FieldErrors, status int, ok bool) {
	e, isRefusal := engine.AsError(err)
	if !isRefusal || e.Code == engine.CodeForbidden {
		return "", nil, 0, false
	}
	key, args := "error."+e.Code, []any{}
	for k, v := range e.Args {
		if t, ok := v.(time.Time); ok {
			v = locales.From(ctx).DateTime(t.In(siteLoc(stateOf(ctx).site)))
		}
		args = append(args, k, v)
	}
	if _, timed := e.Args["When"]; timed {
		key += "_at" // the sentence that names the time
	}
	msg = locales.T(ctx, key, args...)
	status = http.StatusUnprocessableEntity
	if e.ChangedElsewhere() {
		status = http.StatusConflict
	}
	if e.Field != "" {
		return "", templates.FieldErrors{e.Field: msg}, status, true
	}
	return msg, nil, status, true
}

func formRev(r *http.Request) int64 {
	n, _ := strconv.ParseInt(r.PostFormValue("rev"), 10, 64)
	return n
}

// viewerZone is the zone the viewer's browser reported, if valid.
func viewerZone(r *http.Request) *time.Location {
	c, err := r.Cookie("tz")
	if err != nil {
		return nil
	}
	name, err := url.QueryUnescape(c.Value)
	if err != nil {
		return nil
	}
	loc, err := localtime.LoadZone(name)
	if err != nil {
		return nil
	}
	return loc
}

// timePair shows at in the site's zone and, when the viewer's zone shows a
// different clock, in theirs too.
func timePair(r *http.Request, at time.Time, siteZone string) templates.TimePair {
	ctx := r.Context()
	loc, err := localtime.LoadZone(siteZone)
	if err != nil {
		loc = time.UTC
	}
	p := templates.TimePair{At: at.In(loc), SiteCity: locales.From(ctx).ZoneCity(siteZone)}
	if v := viewerZone(r); v != nil && v.String() != siteZone {
		va := at.In(v)
		if va.Format("15:04") != p.At.Format("15:04") {
			p.Viewer, p.ViewerCity = &va, locales.From(ctx).ZoneCity(v.String())
		}
	}
	return p
}

// siteLoc is the site's zone; a broken zone name shows UTC rather than fail.
func siteLoc(s engine.Site) *time.Location {
	loc, err := localtime.LoadZone(s.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// backstop gives a stalled scheduler a tick from a person's request (§8.6).
// It runs before the request, not beside it: it costs nothing in the usual
// minute (the engine memoises the check) and one heartbeat read otherwise;
// only a stalled scheduler makes one request wait for a tick. A goroutine
// outliving its request would outlive the store it writes to as well.
func (h *Handler) backstop(ctx context.Context) {
	if ran, err := h.eng.Backstop(ctx); err != nil {
		h.log.Error("studio: backstop tick failed", "err", err)
	} else if ran {
		h.log.Warn("studio: the scheduler had stalled; a request ran a tick")
	}
}
