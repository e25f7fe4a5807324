package handlers_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"studio/engine/policy"
	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/studio"
)

// serve starts a second server on a's engine and database, wired as
// newApp wires it but with opts, and returns its URL.
func (a *testApp) serve(t *testing.T, tlsToo bool, opts ...handlers.Option) string {
	t.Helper()
	sessions := scs.New()
	sessions.Store = studio.HashedStore(sqlite3store.NewWithCleanupInterval(a.store.DB(), 0))
	sessions.Lifetime = 14 * 24 * time.Hour
	sessions.IdleTimeout = 48 * time.Hour
	sessions.Cookie.Name = sessionCookie
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Path = "/"
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := services.Of(a.eng, a.store, a.clock, log)
	// One sign-in throttle for both servers, as when it was the engine's.
	svc.Identity = a.identity
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

// on is a client of another server of the same app.
func (a *testApp) on(t *testing.T, base string) *client {
	t.Helper()
	b := *a
	b.URL = base
	return b.client(t, "")
}

// uploadRoute is a route that takes files, in tests only: it answers the
// size of its file field.
func uploadRoute(*studio.Handler) []handlers.Route {
	return []handlers.Route{{Method: "POST", Pattern: "/studio/test-upload", Scope: policy.ContentWrite,
		Handler: func(w http.ResponseWriter, r *http.Request) {
			f, hdr, err := r.FormFile("file")
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			f.Close()
			fmt.Fprintf(w, "got %d bytes", hdr.Size)
		}}}
}

var uploadBodies = map[string]studio.Body{"POST /studio/test-upload": {Files: true, Max: 20 << 20}}

// zeros is an endless reader of zero bytes, so a large body costs no
// memory to send.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// letters is an endless reader of the letter a.
type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// multipartBody streams a form with fields and one file of size bytes.
func multipartBody(fields map[string]string, size int64) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for k, v := range fields {
			mw.WriteField(k, v)
		}
		fw, _ := mw.CreateFormFile("file", "big.bin")
		if _, err := io.Copy(fw, io.LimitReader(zeros{}, size)); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	return pr, mw.FormDataContentType()
}

// rawPost sends a POST over its own connection, chunked (so no length
// warns the server) unless length says otherwise, and reads the answer
// while it still writes: a server that answers without reading the body
// may close the connection under the writer, which is fine.
func rawPost(t *testing.T, base, path string, header http.Header, body io.Reader) int {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	var head strings.Builder
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n", path, u.Host)
	header.Write(&head)
	head.WriteString("\r\n")
	go func() {
		if _, err := io.WriteString(conn, head.String()); err != nil {
			return
		}
		cw := httputil.NewChunkedWriter(conn)
		if _, err := io.Copy(cw, body); err != nil {
			return
		}
		cw.Close()
		io.WriteString(conn, "\r\n")
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// tempFiles lists the multipart-* files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "multipart-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A multipart POST to Studio leaves no file in the temp folder, refused or
// not, and costs no memory beyond the route's limit (issue 10, item 1).
// Its file is 40 MB where the temp file is the question, above the 32 MB
// net/http keeps in memory when a handler parses a form its own way.
func TestMultipartLeavesNoTempFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if os.TempDir() != tmp {
		t.Fatalf("os.TempDir() = %q, want %q", os.TempDir(), tmp)
	}
	a := newApp(t)
	base := a.serve(t, false, handlers.WithStudioRoutes(uploadRoute, uploadBodies))
	anon := a.on(t, base)
	anonToken := anon.csrf("/studio/login")
	editor := a.on(t, base)
	editor.signIn(a.editor.Email)
	token := editor.token()
	cookies := func(c *client) http.Header {
		u, _ := url.Parse(base + "/studio/")
		h := http.Header{}
		for _, ck := range c.jar.Cookies(u) {
			h.Add("Cookie", ck.String())
		}
		return h
	}

	for _, tc := range []struct {
		Name   string
		Who    *client
		Path   string
		Token  string
		Size   int64
		Status int
	}{
		{"Anonymous", anon, "/studio/login", anonToken, 40 << 20, http.StatusUnsupportedMediaType},
		{"AnonymousBadToken", anon, "/studio/lang", "forged", 40 << 20, http.StatusUnsupportedMediaType},
		{"AnonymousUploadRoute", anon, "/studio/test-upload", "", 5 << 20, http.StatusForbidden},
		{"SignedInFormRoute", editor, "/studio/content", token, 40 << 20, http.StatusUnsupportedMediaType},
		{"SignedInUploadRouteBadToken", editor, "/studio/test-upload", "forged", 5 << 20, http.StatusForbidden},
		{"SignedInUploadRouteTooLarge", editor, "/studio/test-upload", token, 40 << 20, http.StatusRequestEntityTooLarge},
		{"SignedInUpload", editor, "/studio/test-upload", token, 5 << 20, http.StatusOK},
	} {
		t.Run(tc.Name, func(t *testing.T) {
			body, ct := multipartBody(map[string]string{"csrf_token": tc.Token}, tc.Size)
			h := cookies(tc.Who)
			h.Set("Content-Type", ct)
			if got := rawPost(t, base, tc.Path, h, body); got != tc.Status {
				t.Errorf("status %d, want %d", got, tc.Status)
			}
			if left := tempFiles(t, tmp); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
				for _, f := range left {
					os.Remove(f)
				}
			}
		})
	}

	t.Run("MemoryStaysFlat", func(t *testing.T) {
		const n, size = 20, 5 << 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range n {
			body, ct := multipartBody(map[string]string{"csrf_token": "forged"}, size)
			rawPost(t, base, "/studio/login", http.Header{"Content-Type": {ct}}, body)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		// Loose bounds: parsing even one body in memory would pass them.
		perRequest := (after.TotalAlloc - before.TotalAlloc) / n
		if perRequest > 2<<20 {
			t.Errorf("%d KiB allocated per refused %d MiB request, want well under %d MiB", perRequest>>10, size>>20, size>>20)
		}
		if after.HeapAlloc > before.HeapAlloc+16<<20 {
			t.Errorf("heap grew from %d MiB to %d MiB", before.HeapAlloc>>20, after.HeapAlloc>>20)
		}
		t.Logf("%d KiB allocated per request; heap %d → %d MiB", perRequest>>10, before.HeapAlloc>>20, after.HeapAlloc>>20)
	})

	t.Run("FormTooLarge", func(t *testing.T) {
		form := url.Values{"csrf_token": {token}, "title": {strings.Repeat("a", 3<<20)}}
		res := editor.do("POST", "/studio/content", form, nil)
		if res.Status != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "This form is too large to send.") {
			t.Errorf("status %d\n%s", res.Status, excerpt(res.Body))
		}
		// Someone not signed in sends only the small forms.
		res = anon.do("POST", "/studio/login", url.Values{"csrf_token": {anonToken}, "email": {strings.Repeat("a", 100<<10)}}, nil)
		if res.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("anonymous 100 KiB form: status %d", res.Status)
		}
	})

	t.Run("APIBodyTooLarge", func(t *testing.T) {
		tok := a.tokenFor(t, a.editor)
		req, _ := http.NewRequest("PATCH", base+"/api/sites/"+a.site.ID+"/entries/"+a.live.ID,
			io.MultiReader(strings.NewReader(`{"text":"`), io.LimitReader(letters{}, 5<<20)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), `"body_too_large"`) {
			t.Errorf("status %d %s", res.StatusCode, b)
		}
	})
}

// sessionRows counts the stored sessions.
func (a *testApp) sessionRows(t *testing.T) int {
	t.Helper()
	var n int
	if err := a.store.DB().QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Looking at Studio without signing in stores no session; the CSRF token
// still guards sign-in and the language switch, and Go's cross-origin
// check stands in front of it (issue 10, item 8).
func TestAnonymousStudioStoresNoSession(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.client(t, "")
	for _, path := range []string{"/studio/login", "/studio/schedules", "/studio/content", "/studio/nope", "/studio/login?next=%2Fstudio%2Fcontent"} {
		c.get(path)
		a.client(t, "tr").get(path)
	}
	if n := a.sessionRows(t); n != 0 {
		t.Fatalf("%d session rows after anonymous GETs, want 0", n)
	}
	token := c.csrf("/studio/login")
	if u, _ := url.Parse(a.URL + "/studio/"); len(c.jar.Cookies(u)) != 1 || c.jar.Cookies(u)[0].Name != "studio_csrf" {
		t.Fatalf("cookies %v, want the CSRF cookie alone", c.jar.Cookies(u))
	}

	t.Run("TokenIsBoundToItsCookie", func(t *testing.T) {
		other := a.client(t, "")
		other.get("/studio/login")
		other.check(t, scenario{Method: "POST", URL: "/studio/login",
			Form:           url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}},
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"This form has expired."}})
		other.check(t, scenario{Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"tr"}}, ExpectedStatus: http.StatusForbidden})
		if n := a.sessionRows(t); n != 0 {
			t.Fatalf("%d session rows after refused posts, want 0", n)
		}
	})

	t.Run("CrossSiteRefusedFirst", func(t *testing.T) {
		for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
			{"Origin": "https://evil.example"}} {
			c.check(t, scenario{Method: "POST", URL: "/studio/login", Header: h,
				Form:           url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}},
				ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"another site sent it"}})
		}
	})

	t.Run("SignInWithTheCookieToken", func(t *testing.T) {
		c.check(t, scenario{Method: "POST", URL: "/studio/login", Header: map[string]string{"Sec-Fetch-Site": "same-origin"},
			Form:           url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}})
		if n := a.sessionRows(t); n != 1 {
			t.Fatalf("%d session rows after signing in, want 1", n)
		}
		signedIn := c.token()
		if signedIn == token {
			t.Error("the token is not new at sign-in")
		}
		c.check(t, scenario{Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusForbidden})
	})

	t.Run("APISessionCallsCheckTheOrigin", func(t *testing.T) {
		base := "/api/sites/" + a.site.ID + "/releases"
		body := `{"title":"From elsewhere"}`
		for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
			h["X-CSRF-Token"] = c.token()
			h["Content-Type"] = "application/json"
			res := c.doBody("POST", base, body, h)
			if res.Status != http.StatusForbidden || !strings.Contains(res.Body, `"csrf"`) {
				t.Errorf("%v: status %d %s", h, res.Status, res.Body)
			}
		}
		// A script's bearer token is no browser's: the headers do not matter.
		res := c.app.client(t, "").doBody("POST", base, body, map[string]string{"Authorization": "Bearer " + a.tokenFor(t, a.editor),
			"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"})
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"no_items"`) {
			t.Errorf("bearer: status %d %s, want the request's own refusal", res.Status, res.Body)
		}
	})
}

// doBody sends a raw body.
func (c *client) doBody(method, path, body string, header map[string]string) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.app.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: string(b), raw: res}
}

// Cookies are Secure, and HSTS is sent, when the request came over HTTPS:
// TLS of its own or a trusted proxy's X-Forwarded-Proto (issue 10, item 8).
func TestSecureCookiesOverHTTPS(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	behindProxy := a.serve(t, false, handlers.WithTrustedProxies(local))
	untrusted := a.serve(t, false, handlers.WithTrustedProxies([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}))
	forced := a.serve(t, false, handlers.WithSecureCookies())
	overTLS := a.serve(t, true)

	get := func(t *testing.T, hc *http.Client, u string, h map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	csrfCookie := func(res *http.Response) *http.Cookie {
		for _, c := range res.Cookies() {
			if c.Name == "studio_csrf" {
				return c
			}
		}
		return nil
	}
	https := map[string]string{"X-Forwarded-Proto": "https"}
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		Name         string
		HC           *http.Client
		URL          string
		Header       map[string]string
		Secure, HSTS bool
	}{
		{"PlainHTTP", http.DefaultClient, behindProxy, nil, false, false},
		{"TrustedProxySaysHTTPS", http.DefaultClient, behindProxy, https, true, true},
		{"TrustedProxySaysHTTP", http.DefaultClient, behindProxy, map[string]string{"X-Forwarded-Proto": "http"}, false, false},
		{"ClientClaimsHTTPSBeforeTheProxy", http.DefaultClient, behindProxy, map[string]string{"X-Forwarded-Proto": "https, http"}, false, false},
		{"UntrustedProxySaysHTTPS", http.DefaultClient, untrusted, https, false, false},
		{"NoProxyTrustedByDefault", http.DefaultClient, a.URL, https, false, false},
		{"ForcedOverHTTP", http.DefaultClient, forced, nil, true, false},
		{"OwnTLS", tlsClient, overTLS, nil, true, true},
	} {
		t.Run(tc.Name, func(t *testing.T) {
			res := get(t, tc.HC, tc.URL+"/studio/login", tc.Header)
			c := csrfCookie(res)
			if c == nil {
				t.Fatal("no CSRF cookie")
			}
			if c.Secure != tc.Secure {
				t.Errorf("CSRF cookie Secure = %v, want %v", c.Secure, tc.Secure)
			}
			if got := res.Header.Get("Strict-Transport-Security") != ""; got != tc.HSTS {
				t.Errorf("HSTS sent = %v, want %v", got, tc.HSTS)
			}
			if tc.HSTS && res.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
				t.Errorf("HSTS = %q", res.Header.Get("Strict-Transport-Security"))
			}
		})
	}

	t.Run("SessionCookieBehindTheProxy", func(t *testing.T) {
		c := a.on(t, behindProxy)
		token := c.csrf("/studio/login")
		res := c.do("POST", "/studio/login", url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}}, https)
		var ck *http.Cookie
		for _, k := range res.raw.Cookies() {
			if k.Name == sessionCookie {
				ck = k
			}
		}
		if res.Status != http.StatusSeeOther || ck == nil || !ck.Secure || !ck.HttpOnly {
			t.Fatalf("status %d, session cookie %+v", res.Status, ck)
		}
	})
}

// Studio and the public site send a strict Content-Security-Policy: only
// this origin's scripts and styles, none inline (issue 10, item 8; the
// browser test checks that the pages keep to it).
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	for _, path := range []string{"/studio/login", "/studio/schedules", "/studio/content/" + a.live.ID, "/", "/posts/welcome", "/about", "/nope"} {
		res := c.get(path)
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "style-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: CSP %q allows something unsafe", path, csp)
		}
		if strings.Contains(res.Body, "<style") || strings.Contains(res.Body, " style=") || strings.Contains(res.Body, " onclick=") {
			t.Errorf("%s: inline style or handler in the page", path)
		}
	}
}

// Every GET route answers HEAD as it answers GET, without a body (issue 10,
// item 8).
func TestHeadOnEveryGetRoute(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	params := strings.NewReplacer("{siteId}", a.site.ID, "{releaseId}", rel.ID, "{nodeId}", a.live.ID,
		"{approvalId}", "apr_nope", "{id}", a.live.ID, "{slug}", "welcome", "{token}", "nope", "*", "site.css")
	var rows []handlers.Route
	rows = append(rows, routeTable()...)
	rows = append(rows, handlers.APIRoutes(nil)...)
	rows = append(rows, handlers.PublicRoutes(nil, nil, nil)...)
	for _, rt := range rows {
		if rt.Method != http.MethodGet {
			continue
		}
		path := params.Replace(rt.Pattern)
		if strings.HasPrefix(rt.Pattern, "/static/") {
			path = "/static/studio.js"
		}
		if strings.HasPrefix(rt.Pattern, "/studio/releases/{id}") {
			path = strings.Replace(path, a.live.ID, rel.ID, 1)
		}
		t.Run(rt.Pattern, func(t *testing.T) {
			get := c.do("GET", path, nil, nil)
			head := c.do("HEAD", path, nil, nil)
			if head.Status == http.StatusMethodNotAllowed || head.Status != get.Status {
				t.Errorf("HEAD %s: status %d, GET %d", path, head.Status, get.Status)
			}
			if head.Body != "" {
				t.Errorf("HEAD %s: a body of %d bytes", path, len(head.Body))
			}
			if ct := get.Header.Get("Content-Type"); head.Header.Get("Content-Type") != ct {
				t.Errorf("HEAD %s: Content-Type %q, GET %q", path, head.Header.Get("Content-Type"), ct)
			}
		})
	}
}

// An address under /studio/ that no route has is Studio's own page in the
// person's language; the rest of the site keeps its own 404s (issue 10).
func TestStudioNotFoundPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for _, sc := range []struct {
		client *client
		scenario
	}{
		{a.client(t, ""), scenario{Name: "Anonymous", URL: "/studio/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent:    []string{`<html lang="en">`, "<h1>Page not found</h1>", "This page does not exist, or it was deleted.", "studio.css"},
			NotExpectedContent: []string{"404 page not found"}, ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}}},
		{a.client(t, "tr-TR,tr;q=0.9"), scenario{Name: "Turkish", URL: "/studio/releases/x/y/z", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{`<html lang="tr">`, "<h1>Sayfa bulunamadı</h1>", "Bu sayfa yok ya da silinmiş."}}},
		{a.signedIn(t, a.editor), scenario{Name: "SignedIn", URL: "/studio/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{"This page does not exist, or it was deleted.", `data-testid="user-name">Elif Editor`}}},
		{a.client(t, ""), scenario{Name: "PublicStaysPublic", URL: "/posts/welcome/extra", ExpectedStatus: http.StatusNotFound,
			NotExpectedContent: []string{"studio.css"}, ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}}},
		{a.client(t, ""), scenario{Name: "PublicPage", URL: "/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{"site.css"}, NotExpectedContent: []string{"studio.css"}}},
		{a.client(t, ""), scenario{Name: "StudioishPublicPath", URL: "/studiox/nope", ExpectedStatus: http.StatusNotFound,
			NotExpectedContent: []string{"studio.css"}}},
	} {
		t.Run(sc.Name, func(t *testing.T) { sc.client.check(t, sc.scenario) })
	}
}

// An origin named as trusted (the public URL behind a proxy that rewrites
// Host) may send Studio's forms; any other still may not.
func TestTrustedOrigin(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	base := a.serve(t, false, handlers.WithTrustedOrigins("https://studio.example"))
	c := a.on(t, base)
	token := c.csrf("/studio/login")
	form := url.Values{"csrf_token": {token}, "email": {a.editor.Email}, "password": {password}}
	c.check(t, scenario{Name: "Other", Method: "POST", URL: "/studio/login", Form: form,
		Header: map[string]string{"Origin": "https://evil.example"}, ExpectedStatus: http.StatusForbidden})
	c.check(t, scenario{Name: "Trusted", Method: "POST", URL: "/studio/login", Form: form,
		Header: map[string]string{"Origin": "https://studio.example"}, ExpectedStatus: http.StatusSeeOther})
	res := c.doBody("POST", "/api/sites/"+a.site.ID+"/releases", `{"title":"Behind the proxy"}`, map[string]string{
		"Origin": "https://studio.example", "X-CSRF-Token": c.token(), "Content-Type": "application/json"})
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"no_items"`) {
		t.Errorf("API from the trusted origin: status %d %s, want the request's own refusal", res.Status, res.Body)
	}
}
