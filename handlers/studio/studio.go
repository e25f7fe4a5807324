// Package studio serves the Studio pages for people: sign-in, the first
// run and invitations, content and media, scheduling, the Agenda and Month,
// releases and approvals, automations and their history, the site's
// history, people, settings, sites, one's own account, access tokens and
// agent keys. Each page is a row of handlers.StudioRoutes; Prepare and
// Guard run before it (session, CSRF, body, site and scope). Handlers
// parse the request, call one engine use case and render; rules live in
// the engine.
package studio

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/gates"
	"studio/engine/jobs"
	"studio/engine/nodes"
	"studio/engine/people"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/engine/settings"
	"studio/engine/setup"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/identity"
	"studio/engine/localtime"
	"studio/engine/oauth"
	"studio/engine/policy"
	refusals "studio/handlers/refusal"
	"studio/locales"
	"studio/web/templates"
)

// Handler holds what the Studio pages need.
type Handler struct {
	eng         *engine.Engine
	nodes       *nodes.Nodes
	releases    *releases.Releases
	cal         *calendar.Calendar
	sched       *scheduler.Scheduler
	pub         *public.Public
	set         *settings.Settings
	gates       *gates.Gates
	identity    *identity.Identity
	agents      *agents.Agents
	oauth       *oauth.OAuth
	jobs        *jobs.Jobs
	aut         *automations.Automations
	setup       *setup.Setup
	people      *people.People
	sessions    *scs.SessionManager
	log         *slog.Logger
	csrfKey     []byte
	crossOrigin *http.CrossOriginProtection
}

// New returns the Studio handlers.
func New(svc *services.Services, sessions *scs.SessionManager, log *slog.Logger) *Handler {
	key := make([]byte, 32)
	rand.Read(key)
	return &Handler{eng: svc.Engine, nodes: svc.Nodes, releases: svc.Releases, cal: svc.Calendar, sched: svc.Scheduler, pub: svc.Public, set: svc.Settings, gates: svc.Gates, identity: svc.Identity, agents: svc.Agents, oauth: svc.OAuth, jobs: svc.Jobs, aut: svc.Automations, setup: svc.Setup, people: svc.People, sessions: sessions, log: log, csrfKey: key, crossOrigin: http.NewCrossOriginProtection()}
}

// Session keys.
const (
	keyUser = "user_id"
	keyCSRF = "csrf"
	keyLang = "lang"
	// keyEpoch is the account's session epoch at sign-in: once the
	// account's moves on (a password change, "sign out everywhere else"),
	// the session has ended.
	keyEpoch = "epoch"
	keyNext  = "flash"
	// keySite is the site the person was last on (siteOf).
	keySite = "site"
	// keySession is the session's id in the account's list of sessions
	// (identity.StartSession).
	keySession = "sid"
	// keyEnded is what a password change, reset or "sign out everywhere
	// else" ended, for the next page's notice (flashEnded).
	keyEnded = "ended"
	// keyUndo is what the next page may undo for a while (undoOffer).
	keyUndo = "undo"
)

// CSRFField is the form field (and X-CSRF-Token the header) carrying the
// session's token on every state-changing request.
const CSRFField = "csrf_token"

type state struct {
	user  *engine.User
	json  bool // the route answers JSON (Body.JSON)
	csrf  string
	site  engine.Site
	sites []engine.Membership // the person's, for the site switcher
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	s, _ := ctx.Value(stateKey{}).(*state)
	if s == nil {
		return &state{}
	}
	return s
}

// Body is what a Studio route takes as a request body. The zero value is
// every form's: at most DefaultBodyMax bytes, and no files.
type Body struct {
	// Max bounds the body in bytes; 0 means DefaultBodyMax.
	Max int64
	// Files lets the route take multipart/form-data, a form with a file
	// field. Every other route refuses multipart unread (415), so nothing
	// is ever written to the temp folder for it.
	Files bool
	// JSON: the route answers a script (editor.js's upload) in JSON, so
	// every refusal on its way answers {"error": {"code", "message"}} with
	// its status too: the body's size or kind, the token, the origin, the
	// sign-in, the role (see problem).
	JSON bool
}

const (
	// DefaultBodyMax bounds a Studio form: the largest, the content editor
	// at 100,000 characters of four bytes each, is 1.2 MB URL-encoded.
	DefaultBodyMax = 2 << 20
	// anonymousBodyMax bounds a request from nobody signed in: only the
	// sign-in and language forms are theirs to send.
	anonymousBodyMax = 64 << 10
	// uploadMemory is how much of an upload is held in memory; the rest
	// goes to a temp file that Prepare removes when the request ends.
	uploadMemory = 1 << 20
	// uploadReadTimeout is how long a route that takes files waits for
	// its body: 20 MB at 300 kbit/s.
	uploadReadTimeout = 10 * time.Minute
)

// Prepare runs before every Studio route, with the route's Body: it finds
// the signed-in person and their language and the request's CSRF token,
// bounds and reads the body, and refuses a state-changing request that
// another site sent or whose token does not match.
func (h *Handler) Prepare(body Body) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			// A signed-in session keeps its own token; nobody's token comes
			// from a cookie, so looking at a page stores no session.
			st := &state{csrf: h.sessions.GetString(ctx, keyCSRF), json: body.JSON}
			if st.csrf == "" {
				st.csrf = h.anonymousToken(w, r)
			}
			lang := h.sessions.GetString(ctx, keyLang)
			switch u, err := h.sessionUser(ctx); {
			case err == nil:
				st.user, lang = &u, u.Lang
			case !errors.Is(err, engine.ErrNotFound): // nobody, or a session that ended
				h.fail(w, r, err)
				return
			}
			if lang == "" {
				lang = locales.Match(r.Header.Get("Accept-Language"))
			}
			ctx = context.WithValue(locales.With(ctx, lang), stateKey{}, st)
			r = r.WithContext(ctx)
			h.backstop()
			// Go's own check of Sec-Fetch-Site and Origin comes first: it
			// needs neither the body nor the session.
			if err := h.crossOrigin.Check(r); err != nil {
				h.problem(w, r, http.StatusForbidden, "error.cross_origin")
				return
			}
			if body.JSON && st.user == nil && !safeMethod(r.Method) {
				// A script's call whose session ended: say so, rather than
				// that its token (the session's) no longer matches.
				h.problem(w, r, http.StatusUnauthorized, "error.signed_out")
				return
			}
			// Parsed here on this request, the multipart form is removed
			// here too: net/http removes only the one it parsed itself.
			defer func() {
				if r.MultipartForm != nil {
					r.MultipartForm.RemoveAll()
				}
			}()
			if key, status := readBody(w, r, body, st.user != nil); status != 0 {
				h.problem(w, r, status, key)
				return
			}
			if !safeMethod(r.Method) && !validToken(st.csrf, r) {
				h.problem(w, r, http.StatusForbidden, "error.csrf")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// readBody bounds the body and parses it, so no handler reads more than
// the route allows: a URL-encoded form in full; a multipart form only on a
// route that takes files and for someone signed in (for nobody it stays
// unread and the token check refuses it); any other multipart request is
// refused unread. It returns the sentence and status of a refusal.
func readBody(w http.ResponseWriter, r *http.Request, body Body, signedIn bool) (key string, status int) {
	limit := body.Max
	if limit <= 0 {
		limit = DefaultBodyMax
	}
	if !signedIn {
		limit = min(limit, anonymousBodyMax)
	}
	if r.ContentLength > limit {
		return "error.too_large", http.StatusRequestEntityTooLarge
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	switch {
	case mt == "multipart/form-data" && !body.Files:
		return "error.no_files", http.StatusUnsupportedMediaType
	case mt == "multipart/form-data" && signedIn:
		// A file takes longer than a form to arrive: the server's read
		// timeout is for forms.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTimeout))
		err = r.ParseMultipartForm(uploadMemory)
	case mt == "multipart/form-data":
	default:
		err = r.ParseForm()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return "error.too_large", http.StatusRequestEntityTooLarge
	case err != nil:
		return "error.csrf", http.StatusBadRequest
	}
	return "", 0
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// validToken compares the request's token with want. It reads only what
// readBody parsed: a form field never makes it parse a body.
func validToken(want string, r *http.Request) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostForm.Get(CSRFField)
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// CSRFCookie holds a random nonce for someone not signed in; their token is
// its HMAC under the CSRF key, so a cookie another site plants is useless
// without a token Studio signed for it, and no session row is needed.
const CSRFCookie = "studio_csrf"

// anonymousToken is the CSRF token of someone not signed in, from their
// nonce cookie; a request without a good one gets a new cookie (a form it
// posts is refused, the page it loads works).
func (h *Handler) anonymousToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(CSRFCookie); err == nil {
		if n, err := base64.RawURLEncoding.DecodeString(c.Value); err == nil && len(n) == 32 {
			return h.csrfMAC(c.Value)
		}
	}
	nonce := newToken()
	// Secure is added by the router when the request came over HTTPS.
	http.SetCookie(w, &http.Cookie{Name: CSRFCookie, Value: nonce, Path: "/studio", HttpOnly: true,
		SameSite: http.SameSiteLaxMode})
	return h.csrfMAC(nonce)
}

func (h *Handler) csrfMAC(nonce string) string {
	m := hmac.New(sha256.New, h.csrfKey)
	m.Write([]byte("studio-csrf-v1\x00" + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SetCSRFKey sets the key that signs the tokens of people not signed in;
// every process sharing a database should use the same one, so a form
// survives a restart. Without it, New's random key works until the process
// ends.
func (h *Handler) SetCSRFKey(key []byte) { h.csrfKey = key }

// TrustOrigin lets state-changing requests come from origin (e.g.
// "https://studio.example"), for a proxy that does not pass the browser's
// Host on; browsers that send Sec-Fetch-Site need none.
func (h *Handler) TrustOrigin(origin string) error { return h.crossOrigin.AddTrustedOrigin(origin) }

// NotFound is Studio's own page for a Studio address no route has.
func (h *Handler) NotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, http.StatusNotFound, templates.Problem(h.page(r, "error.not_found_title", ""), locales.T(r.Context(), "error.not_found")))
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
		if st.user == nil && st.json {
			h.problem(w, r, http.StatusUnauthorized, "error.signed_out") // a script cannot follow a sign-in page
			return
		}
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
		site, member, err := h.siteOf(r, st)
		switch {
		case errors.Is(err, errNotMember):
			h.problem(w, r, http.StatusNotFound, "error.not_found")
			return
		case errors.Is(err, engine.ErrNotFound):
			h.problem(w, r, http.StatusForbidden, "error.no_site")
			return
		case err != nil:
			h.fail(w, r, err)
			return
		}
		st.site, st.user = site, &member
		if chi.URLParam(r, "siteId") != "" { // the page keeps its site in every link
			r = r.WithContext(templates.WithSiteBase(r.Context(), site.ID))
		}
		if !st.user.Passes(scope) {
			h.problem(w, r, http.StatusForbidden, "error.forbidden")
			return
		}
		next(w, r)
	}
}

// errNotMember: the URL names a site the person is not a member of, which
// is answered as a page that does not exist.
var errNotMember = errors.New("studio: not a member of the site")

// siteOf is the site the request acts on and the person as a member of it,
// with their role there: the site its URL names (/studio/s/{siteId}/…),
// else the one the person was last on, else the first they are a member
// of. It keeps the person's sites in st for the site switcher, and
// remembers a site named in the URL as the one they were last on.
// engine.ErrNotFound when they are a member of none.
func (h *Handler) siteOf(r *http.Request, st *state) (engine.Site, engine.User, error) {
	ctx := r.Context()
	u := *st.user
	ms, err := h.identity.Memberships(ctx, u.ID)
	if err != nil {
		return engine.Site{}, engine.User{}, err
	}
	if len(ms) == 0 {
		return engine.Site{}, engine.User{}, engine.ErrNotFound
	}
	st.sites = ms
	named := chi.URLParam(r, "siteId")
	want := named
	if want == "" {
		want = h.sessions.GetString(ctx, keySite)
	}
	m := ms[0]
	if i := slices.IndexFunc(ms, func(m engine.Membership) bool { return m.SiteID == want }); i >= 0 {
		m = ms[i]
	} else if named != "" {
		return engine.Site{}, engine.User{}, errNotMember
	}
	site, err := h.eng.Site(ctx, m.SiteID)
	if err != nil {
		return engine.Site{}, engine.User{}, err
	}
	if named != "" && want != h.sessions.GetString(ctx, keySite) {
		h.sessions.Put(ctx, keySite, named)
	}
	u.Role, u.SiteID = m.Role, site.ID
	return site, u, nil
}

// to is the Studio path p on the site the request's page is on
// (templates.StudioPath), for redirects.
func to(r *http.Request, p string) string { return templates.StudioPath(r.Context(), p) }

// page builds the frame of a page for the request.
func (h *Handler) page(r *http.Request, titleKey, nav string) templates.Page {
	ctx := r.Context()
	st := stateOf(ctx)
	p := templates.Page{Title: locales.T(ctx, titleKey), Nav: nav, CSRF: st.csrf, Flash: h.sessions.PopString(ctx, keyNext),
		Ended: poppedEnded(h.sessions.PopString(ctx, keyEnded))}
	if st.user != nil {
		p.User = &templates.UserView{Name: st.user.Name, Role: string(st.user.Role)}
		can := engine.AbilitiesOfPerson(*st.user)
		p.CanSettings, p.AddSite = can.Settings, can.AddSite
		for _, m := range st.sites {
			p.Sites = append(p.Sites, templates.SiteLink{ID: m.SiteID, Name: m.SiteName,
				URL: templates.SitePrefix + m.SiteID + sectionPath(nav), Current: m.SiteID == st.site.ID})
		}
	}
	if st.site.ID != "" {
		p.Site = templates.SiteView{ID: st.site.ID, Name: st.site.Name, TimeZone: st.site.TimeZone,
			ZoneLabel: zoneLabel(ctx, st.site.TimeZone, h.eng.Now()), PublicURL: st.site.PublicURL}
		if st.user != nil {
			// A failed count only hides the number; the page still works.
			if list, err := h.sched.Notifications(ctx, *st.user, st.site.ID); err == nil {
				p.Notices = len(list)
			} else {
				h.log.Error("studio: notifications", "err", err)
			}
		}
	}
	return p
}

// sectionPath is where the site switcher leads on another site: the same
// section of Studio, or its Schedules page for a section that only some
// roles see or a page of one thing.
func sectionPath(nav string) string {
	switch nav {
	case "approvals", "content", "history", "agents", "notifications", "account":
		return "/" + nav
	}
	return "/schedules"
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

// flashEnded keeps what e ended for the next page's notice, beside the
// flash: the sessions (other ones, unless reset), and for a reset the
// access tokens and agent keys revoked.
func (h *Handler) flashEnded(r *http.Request, e identity.Ended, reset bool) {
	h.sessions.Put(r.Context(), keyEnded, fmt.Sprintf("%t %d %d %d", reset, e.Sessions, len(e.Tokens), len(e.AgentKeys)))
}

// poppedEnded reads flashEnded's note back; nil for none.
func poppedEnded(s string) *templates.EndedView {
	var v templates.EndedView
	if _, err := fmt.Sscanf(s, "%t %d %d %d", &v.Reset, &v.Sessions, &v.Tokens, &v.AgentKeys); err != nil {
		return nil
	}
	return &v
}

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
	if stateOf(r.Context()).json {
		w.Header().Set("Cache-Control", "no-store")
		writeJSONError(w, status, strings.TrimPrefix(key, "error."), locales.T(r.Context(), key), "")
		return
	}
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
	msg = refusals.Sentence(locales.From(ctx), siteLoc(stateOf(ctx).site), e)
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
// fieldRefusals words every refusal err holds, each under its field (one
// of no field under ""); nil when err holds none.
func fieldRefusals(ctx context.Context, err error) templates.FieldErrors {
	refused := engine.Refusals(err)
	if len(refused) == 0 {
		return nil
	}
	out := templates.FieldErrors{}
	for _, e := range refused {
		out[e.Field] = refusals.Sentence(locales.From(ctx), siteLoc(stateOf(ctx).site), e)
	}
	return out
}

// signInAndGo signs u in under a new session token and sends them to
// Studio with done's notice.
func (h *Handler) signInAndGo(w http.ResponseWriter, r *http.Request, u engine.User, done string) {
	if err := h.signIn(r, u); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, done)
	http.Redirect(w, r, to(r, "/studio"), http.StatusSeeOther)
}

func siteLoc(s engine.Site) *time.Location {
	loc, err := localtime.LoadZone(s.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// backstop gives a stalled scheduler a tick from a person's request
// (§8.6), beside the request: the page never waits for it, and a flood of
// requests runs at most one at a time (scheduler.Nudge).
func (h *Handler) backstop() {
	if h.sched != nil {
		h.sched.Nudge()
	}
}
