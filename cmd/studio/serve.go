package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"studio/engine"
	"studio/handlers"
	"studio/store"
)

// app is Studio wired together: store → engine → ticker → handlers.
type app struct {
	store   *store.Store
	engine  *engine.Engine
	ticker  *engine.Ticker
	handler http.Handler
}

// newApp wires the parts. Tests call it with a fake clock.
func newApp(st *store.Store, clock engine.Clock, log *slog.Logger, secureCookies bool) *app {
	eng := engine.New(st, clock, log)
	sessions := scs.New()
	sessions.Store = sqlite3store.NewWithCleanupInterval(st.DB(), 30*time.Minute)
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	sessions.Cookie.Name = "studio_session"
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	sessions.Cookie.Secure = secureCookies
	return &app{store: st, engine: eng, ticker: engine.NewTicker(eng), handler: handlers.New(eng, sessions, log)}
}

func serveCmd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	demo := fs.Bool("demo", false, "seed the demo site on first start")
	secure := fs.Bool("secure-cookies", false, "mark the session cookie Secure (serve behind HTTPS)")
	st, folder, err := openData(ctx, fs, args, demo)
	if err != nil {
		return err
	}
	defer st.Close()
	a := newApp(st, systemClock{}, log, *secure)
	if err := st.Liveness(ctx); err != nil { // the write probe at open failed: serve reads, say so loudly
		log.Error("DATABASE PROBLEM: every write will fail and /health answers 503", "err", err)
	}
	if *demo {
		seed, err := folder.demoSeed()
		if err != nil {
			return err
		}
		if seed {
			if seeded, err := seedDemo(ctx, a.engine); err != nil {
				return err
			} else if seeded {
				fmt.Fprintln(stdout, "Seeded the demo site “Demo Gazette”.")
			}
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second}
	a.ticker.Start(ctx)
	defer a.ticker.Stop()

	fmt.Fprintf(stdout, "Studio is running on http://%s/studio\n", ln.Addr())
	if *demo {
		fmt.Fprintln(stdout, demoSignIn(ln.Addr().String()))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
