package apptest

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/studio"
)

// Serve starts a second server on a's engine and database, wired as
// New wires it but with opts, and returns its URL.
func (a *App) Serve(t *testing.T, tlsToo bool, opts ...handlers.Option) string {
	t.Helper()
	sessions := scs.New()
	sessions.Store = studio.HashedStore(sqlite3store.NewWithCleanupInterval(a.Store.DB(), 0))
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	sessions.Cookie.Name = SessionCookie
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := services.Of(a.Engine, a.Store, a.Clock, log)
	// One sign-in throttle for both servers, as when it was the engine's.
	svc.Identity = a.Identity
	t.Cleanup(svc.Scheduler.Stop) // after the server closes: a request's backstop may still run
	stop := func() {}
	t.Cleanup(func() { stop() }) // after the server closes, before the app's database does
	h := handlers.New(svc, sessions, log, append(opts, handlers.WithStopper(func(f func()) { stop = f }))...)
	var srv *httptest.Server
	if tlsToo {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv.URL
}

// On is a client of another server of the same app.
func (a *App) On(t *testing.T, base string) *Client {
	t.Helper()
	b := *a
	b.URL = base
	return b.Client(t, "")
}
