package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"studio/engine/fakeclock"
	"studio/engine/policy"
	"studio/store"
)

// Session tokens are stored as their SHA-256, as access tokens are; the
// sessions stored in plain before are moved at start, so their people stay
// signed in (issue 10, item 8).
func TestSessionTokensAreStoredHashed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	// A session from before: stored under its plain token.
	pre := newApp(st, fakeclock.New(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)), log, false)
	site, err := pre.engine.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul")
	must(t, err)
	u, err := pre.identity.AddUser(ctx, site.ID, "editor@demo.test", "Elif Editor", policy.Editor, demoPassword, "en")
	must(t, err)
	old := "T0xEc2Vzc2lvbnRva2VuZnJvbWJlZm9yZWhhc2hpbmc" // 43 characters, as scs makes them
	b, err := scs.GobCodec{}.Encode(time.Now().Add(24*time.Hour), map[string]any{"user_id": u.ID, "csrf": "old-csrf"})
	must(t, err)
	must(t, sqlite3store.NewWithCleanupInterval(st.DB(), 0).Commit(old, b, time.Now().Add(24*time.Hour)))

	a := newApp(st, fakeclock.New(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)), log, false)
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)
	tokens := func() []string {
		rows, err := st.DB().Query(`SELECT token FROM sessions`)
		must(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			must(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	hash := func(tok string) string { s := sha256.Sum256([]byte(tok)); return "sha256:" + hex.EncodeToString(s[:]) }
	if got := tokens(); len(got) != 1 || got[0] != hash(old) {
		t.Fatalf("stored tokens after start %q, want only the hash of the old one", got)
	}
	noRedirect := func(jar http.CookieJar) *http.Client {
		return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/studio/schedules", nil)
	req.AddCookie(&http.Cookie{Name: "studio_session", Value: old})
	res, err := noRedirect(nil).Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the session from before: status %d, want 200 (still signed in)", res.StatusCode)
	}

	// A new sign-in: the cookie is nowhere in the database.
	jar, _ := cookiejar.New(nil)
	hc := noRedirect(jar)
	res, err = hc.Get(srv.URL + "/studio/login")
	must(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the sign-in page")
	}
	res, err = hc.PostForm(srv.URL+"/studio/login", url.Values{"csrf_token": {string(m[1])}, "email": {u.Email}, "password": {demoPassword}})
	must(t, err)
	res.Body.Close()
	var cookie string
	for _, c := range res.Cookies() {
		if c.Name == "studio_session" {
			cookie = c.Value
		}
	}
	if res.StatusCode != http.StatusSeeOther || cookie == "" {
		t.Fatalf("sign in: status %d, cookie %q", res.StatusCode, cookie)
	}
	found := false
	for _, tok := range tokens() {
		if strings.Contains(tok, cookie) {
			t.Errorf("the session cookie %q is stored as %q", cookie, tok)
		}
		found = found || tok == hash(cookie)
	}
	if !found {
		t.Errorf("no stored session under the cookie's hash; stored %q", tokens())
	}
	res, err = hc.Get(srv.URL + "/studio/schedules")
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("signed in: status %d", res.StatusCode)
	}
	// The stored key itself is no cookie.
	req, _ = http.NewRequest("GET", srv.URL+"/studio/schedules", nil)
	req.AddCookie(&http.Cookie{Name: "studio_session", Value: hash(cookie)})
	res, err = noRedirect(nil).Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("the stored hash as a cookie: status %d, want 303 to sign in", res.StatusCode)
	}
}

// The server closes connections that trickle or idle, with short timeouts
// here in place of serve's (issue 10, item 8: 150 slow connections were
// held for ever). Each case waits for the server to close the connection,
// at most 30 s: a server without the timeout never does.
func TestServerClosesSlowConnections(t *testing.T) {
	saved := serverTimeouts
	serverTimeouts.readHeader, serverTimeouts.read, serverTimeouts.write, serverTimeouts.idle = time.Second, 2*time.Second, 2*time.Second, 2*time.Second
	t.Cleanup(func() { serverTimeouts = saved })
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	a := newApp(st, fakeclock.New(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)), slog.New(slog.NewTextHandler(io.Discard, nil)), false)
	mux := http.NewServeMux()
	mux.Handle("/", a.handler)
	// A page slower than the write timeout: its end never leaves.
	mux.HandleFunc("/slow-page", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "start\n")
		http.NewResponseController(w).Flush()
		time.Sleep(3 * time.Second)
		io.WriteString(w, "end\n")
	})
	srv := newServer(mux)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()

	// closed reads from conn until the server closes it.
	closed := func(t *testing.T, conn net.Conn) {
		t.Helper()
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := io.Copy(io.Discard, conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server held the connection open")
		}
	}
	dial := func(t *testing.T) net.Conn {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		must(t, err)
		t.Cleanup(func() { conn.Close() })
		return conn
	}

	t.Run("SlowHeaders", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "GET /studio/login HTTP/1.1\r\nHost: %s\r\n", addr)
		closed(t, conn)
	})
	t.Run("SlowBody", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "POST /studio/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n", addr)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					if _, err := io.WriteString(conn, "a"); err != nil {
						return
					}
				}
			}
		}()
		closed(t, conn)
	})
	t.Run("Idle", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "GET /studio/login HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		must(t, err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Close {
			t.Fatalf("status %d, close %v: want a kept-alive 200", res.StatusCode, res.Close)
		}
		closed(t, conn)
	})
	t.Run("SlowResponse", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "GET /slow-page HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		must(t, err)
		b, err := io.ReadAll(res.Body)
		if err == nil || strings.Contains(string(b), "end") {
			t.Fatalf("the whole slow page arrived (%q, %v): no write timeout", b, err)
		}
		closed(t, conn)
	})
}
