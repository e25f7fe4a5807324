package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/gates"
	"studio/engine/identity"
	"studio/engine/nodes"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/services"
	"studio/engine/setup"
	"time"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"studio/engine"
	"studio/handlers"
	"studio/handlers/metrics"
	"studio/handlers/site"
	"studio/handlers/studio"
	"studio/store"
)

// app is Studio wired together: store → engine, calendar, scheduler →
// handlers.
type app struct {
	store    *store.Store
	engine   *engine.Engine
	releases *releases.Releases
	nodes    *nodes.Nodes
	ticker   *scheduler.Scheduler
	gates    *gates.Gates       // for the browser tests' setups
	identity *identity.Identity // the handlers' own: one sign-in throttle per process
	// automations are the handlers' own use cases: --automations=off stops
	// their begin_run as it stops the ticker's runs.
	automations *automations.Automations
	agents      *agents.Agents // the handlers' own agent keys (/mcp authenticates with them)
	setup       *setup.Setup   // the handlers' own: the token of the link serve prints
	handler     http.Handler
	// stop writes what the handlers still hold (handlers.WithStopper),
	// once no request is served any more.
	stop func()
}

// sessionRows is the scs store of the sessions table, in the database's
// engine: both keep their rows in the database Studio uses.
func sessionRows(st *store.Store) interface {
	scs.Store
	scs.IterableStore
} {
	if st.Postgres() {
		return postgresstore.NewWithCleanupInterval(st.DB(), 30*time.Minute)
	}
	return sqlite3store.NewWithCleanupInterval(st.DB(), 30*time.Minute)
}

// newApp wires the parts. Tests call it with a fake clock.
func newApp(st *store.Store, clock engine.Clock, log *slog.Logger, secureCookies bool, opts ...handlers.Option) *app {
	eng := engine.New(st, clock, log)
	sessions := scs.New()
	// Sessions are stored under their token's hash; rows from before are
	// moved once, so nobody is signed out by the change.
	plain := sessionRows(st)
	sessions.Store = studio.HashedStore(plain)
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	if n, err := studio.MigrateSessionTokens(plain, sessions.Codec, sessions.IdleTimeout, time.Now()); err != nil {
		log.Error("studio: hashing the stored session tokens", "err", err)
	} else if n > 0 {
		log.Info("studio: stored session tokens are hashed now", "sessions", n)
	}
	sessions.Cookie.Name = "studio_session"
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	sessions.Cookie.Secure = secureCookies
	if secureCookies {
		opts = append(opts, handlers.WithSecureCookies())
	}
	// The CSRF key of people not signed in comes from the database's own
	// preview key, so every process on it, and the next one, signs alike.
	fresh := make([]byte, 32)
	rand.Read(fresh)
	if key, err := st.PreviewSecret(context.Background(), fresh); err == nil {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("studio-csrf-key-v1"))
		opts = append([]handlers.Option{handlers.WithCSRFKey(m.Sum(nil))}, opts...)
	} else {
		log.Error("studio: reading the signing key; sign-in forms last until a restart", "err", err)
	}
	svc := services.Of(eng, withServeHooks(st), clock, log)
	a := &app{store: st, engine: eng, releases: svc.Releases, nodes: svc.Nodes, ticker: svc.Scheduler, gates: svc.Gates, identity: svc.Identity, automations: svc.Automations,
		agents: svc.Agents, setup: svc.Setup, stop: func() {}}
	a.handler = handlers.New(svc, sessions, log, append(opts, handlers.WithStopper(func(stop func()) { a.stop = stop }))...)
	return a
}

// The server's timeouts. A request's headers get 10 s and all of it, its
// body included, 60 s (a 2 MiB form over a slow mobile link); a response
// gets 60 s from the end of its headers (the slowest page, one that waits
// for a stalled scheduler's tick, takes a few seconds); a kept-alive
// connection is closed after 2 minutes unused. A connection that trickles
// is closed, not held for ever.
var serverTimeouts = struct{ readHeader, read, write, idle time.Duration }{
	10 * time.Second, 60 * time.Second, 60 * time.Second, 2 * time.Minute}

func newServer(h http.Handler) *http.Server {
	t := serverTimeouts
	return &http.Server{Handler: h, ReadHeaderTimeout: t.readHeader, ReadTimeout: t.read,
		WriteTimeout: t.write, IdleTimeout: t.idle}
}

func serveCmd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	demo := fs.Bool("demo", false, "seed the demo site on first start")
	secure := fs.Bool("secure-cookies", false, "mark cookies Secure on every request (Studio is only reached over HTTPS)")
	proxies := fs.String("trusted-proxy", "", "comma-separated addresses or CIDRs of proxies whose X-Forwarded-Proto is believed")
	publicURL := fs.String("public-url", "", "the public site's base URL for absolute links, e.g. https://news.example (default: http:// and the listening address)")
	cdnMaxAge := fs.Duration("cdn-max-age", site.DefaultCDNMaxAge, "longest a CDN may keep a public page (manual publishes cannot be foreseen)")
	autoDefault := os.Getenv("STUDIO_AUTOMATIONS")
	if autoDefault == "" {
		autoDefault = "on"
	}
	metricsToken := fs.String("metrics-token", os.Getenv("STUDIO_METRICS_TOKEN"),
		"serve /metrics on --addr to requests that carry this token (Authorization: Bearer); env STUDIO_METRICS_TOKEN")
	metricsAddr := fs.String("metrics-addr", "", "also serve /metrics, without a token, on this address (keep it off the public network), e.g. 127.0.0.1:9090")
	autos := fs.String("automations", autoDefault, "on or off: off stops every automation of this deployment while releases and gates go on (env STUDIO_AUTOMATIONS)")
	st, folder, err := openData(ctx, fs, args, demo)
	if err != nil {
		return err
	}
	defer st.Close()
	automationsOff, err := parseOnOff(*autos)
	if err != nil {
		return fmt.Errorf("--automations: %w", err)
	}
	trusted, err := handlers.ParseTrustedProxies(*proxies)
	if err != nil {
		return fmt.Errorf("--trusted-proxy: %w", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	// Both addresses are taken before anything starts, so a bad
	// --metrics-addr stops serve before it says it is running.
	var metricsLn net.Listener
	if *metricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", *metricsAddr); err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer metricsLn.Close()
	}
	base, err := publicBase(*publicURL, ln.Addr())
	if err != nil {
		return err
	}
	if *metricsToken != "" && len(*metricsToken) < 16 {
		return errors.New("--metrics-token: at least 16 characters, so it cannot be guessed")
	}
	meters := metrics.New()
	meters.WatchPools(st.Pools())
	opts := []handlers.Option{handlers.WithTrustedProxies(trusted), handlers.WithPublicURL(base), handlers.WithCDNMaxAge(*cdnMaxAge),
		handlers.WithMetrics(meters, *metricsToken)}
	if *publicURL != "" {
		// Behind a proxy that rewrites Host, forms still come from the public URL.
		opts = append(opts, handlers.WithTrustedOrigins(base))
	}
	clock, err := newInstanceClock(ctx, st)
	if err != nil {
		return err
	}
	go clock.follow(ctx, st, log)
	a := newApp(st, clock, log, *secure, opts...)
	// Several instances on one PostgreSQL database wake each other's
	// tickers when something is scheduled or moved (a no-op on SQLite).
	a.engine.SetAnnouncer(st.Announce)
	go st.Wakeups(ctx, a.engine.Woken, log)
	if err := st.Liveness(ctx); err != nil { // the write probe at open failed: serve reads, say so loudly
		log.Error("DATABASE PROBLEM: every write will fail and /health answers 503", "err", err)
	}
	if *demo {
		seed, err := folder.demoSeed()
		if err != nil {
			return err
		}
		if seed {
			if seeded, err := seedDemo(ctx, a.releases, a.store); err != nil {
				return err
			} else if seeded {
				fmt.Fprintln(stdout, "Seeded the demo site “Demo Gazette”.")
			}
		}
	}

	srv := newServer(a.handler)
	if automationsOff {
		a.ticker.SetAutomationsOff(true)
		a.automations.SetAutomationsOff(true)
		log.Warn("automations are off for this deployment (--automations=off): releases and gates still run")
	}
	if _, err := a.ticker.TzdataChanged(ctx, tzdataVersion()); err != nil {
		log.Error("schedules: could not check the releases against the time-zone data; each is checked at its time", "err", err)
	}
	// SIGTERM ends ctx; the ticker is stopped by Shutdown below instead,
	// which lets the run in progress finish or hands it back.
	a.ticker.Start(context.WithoutCancel(ctx))
	defer a.ticker.Stop()

	fmt.Fprintf(stdout, "Studio is running on http://%s/studio\n", ln.Addr())
	if line := clock.banner(); line != "" {
		fmt.Fprintln(stdout, line)
	}
	if *demo {
		fmt.Fprintln(stdout, demoSignIn(ln.Addr().String()))
	}
	if err := printSetupLink(ctx, stdout, a.setup, ln.Addr()); err != nil {
		return err
	}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if metricsLn != nil {
		mux := http.NewServeMux()
		for _, rt := range handlers.OperatorRoutes(meters, "", http.NotFoundHandler()) {
			if rt.Scope != handlers.MetricsToken { // only the metrics are served without a token
				panic("serve: --metrics-addr would serve " + rt.Pattern + " without its token")
			}
			mux.HandleFunc(rt.Method+" "+rt.Pattern, rt.Handler)
		}
		msrv := newServer(mux)
		defer msrv.Close()
		go func() { errc <- msrv.Serve(metricsLn) }()
		fmt.Fprintf(stdout, "Metrics on http://%s/metrics\n", metricsLn.Addr())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stopping (SIGTERM or Ctrl-C) takes under 10 s: no new requests or
	// scheduler work; the requests in flight and the run in progress get a
	// few seconds to finish, and a run that does not is handed back, so
	// another instance (or the next start) takes it over at once.
	stopped := make(chan struct{})
	go func() { a.ticker.Shutdown(tickerGrace); close(stopped) }()
	shutdown, cancel := context.WithTimeout(context.Background(), requestGrace)
	defer cancel()
	err = srv.Shutdown(shutdown)
	<-stopped
	a.stop() // the last 404 counts, before the database closes
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// How long, as the process stops, the run in progress may take to finish
// before it is handed back (which takes at most 2 s more), and the requests
// in flight: within the 10 s a service manager waits before SIGKILL.
const (
	tickerGrace  = 6 * time.Second
	requestGrace = 8 * time.Second
)

// printSetupLink prints the first run's one-time link when the database
// holds no site and no person: whoever has this process's output may set
// Studio up, nobody else on the network. A site with nobody to sign in
// gets the command that makes its Owner instead.
func printSetupLink(ctx context.Context, stdout io.Writer, s *setup.Setup, listen net.Addr) error {
	token, err := s.Offer(ctx)
	if err != nil {
		return err
	}
	if token == "" {
		if nobody, err := s.NobodyToSignIn(ctx); err != nil || !nobody {
			return err
		}
		fmt.Fprintln(stdout, "Studio has a site but nobody to sign in: add its Owner with\n  studio user add --email EMAIL --name NAME --role owner [--site SITE_ID]")
		return nil
	}
	base, err := publicBase("", listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Studio is not set up yet. Open this link to name the site and make its Owner (it works once):\n  %s/studio/setup?token=%s\n", base, token)
	return nil
}

// publicBase is --public-url checked, or for a local run the address Studio
// listens on (an unspecified host reads as localhost).
func publicBase(flagValue string, listen net.Addr) (string, error) {
	if flagValue != "" {
		return public.ParsePublicURL(flagValue)
	}
	host, port, err := net.SplitHostPort(listen.String())
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// parseOnOff reads --automations: on or off.
func parseOnOff(v string) (off bool, err error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("%q is neither on nor off", v)
}
