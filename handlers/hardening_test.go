package handlers_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
)

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
	a := apptest.New(t)
	base := a.Serve(t, false, handlers.WithStudioRoutes(uploadRoute, uploadBodies))
	anon := a.On(t, base)
	anonToken := anon.CSRF("/studio/login")
	editor := a.On(t, base)
	editor.SignIn(a.Editor.Email)
	token := editor.Token()
	cookies := func(c *apptest.Client) http.Header {
		u, _ := url.Parse(base + "/studio/")
		h := http.Header{}
		for _, ck := range c.Jar.Cookies(u) {
			h.Add("Cookie", ck.String())
		}
		return h
	}

	for _, tc := range []struct {
		Name   string
		Who    *apptest.Client
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
		res := editor.Do("POST", "/studio/content", form, nil)
		if res.Status != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "This form is too large to send.") {
			t.Errorf("status %d\n%s", res.Status, apptest.Excerpt(res.Body))
		}
		// Someone not signed in sends only the small forms.
		res = anon.Do("POST", "/studio/login", url.Values{"csrf_token": {anonToken}, "email": {strings.Repeat("a", 100<<10)}}, nil)
		if res.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("anonymous 100 KiB form: status %d", res.Status)
		}
	})

	t.Run("APIBodyTooLarge", func(t *testing.T) {
		tok := a.TokenFor(t, a.Editor)
		req, _ := http.NewRequest("PATCH", base+"/api/sites/"+a.Site.ID+"/entries/"+a.Live.ID,
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
func sessionRows(a *apptest.App, t *testing.T) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Looking at Studio without signing in stores no session; the CSRF token
// still guards sign-in and the language switch, and Go's cross-origin
// check stands in front of it (issue 10, item 8).
func TestAnonymousStudioStoresNoSession(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	for _, path := range []string{"/studio/login", "/studio/schedules", "/studio/content", "/studio/nope", "/studio/login?next=%2Fstudio%2Fcontent"} {
		c.Get(path)
		a.Client(t, "tr").Get(path)
	}
	if n := sessionRows(a, t); n != 0 {
		t.Fatalf("%d session rows after anonymous GETs, want 0", n)
	}
	token := c.CSRF("/studio/login")
	if u, _ := url.Parse(a.URL + "/studio/"); len(c.Jar.Cookies(u)) != 1 || c.Jar.Cookies(u)[0].Name != "studio_csrf" {
		t.Fatalf("cookies %v, want the CSRF cookie alone", c.Jar.Cookies(u))
	}

	t.Run("TokenIsBoundToItsCookie", func(t *testing.T) {
		other := a.Client(t, "")
		other.Get("/studio/login")
		other.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/login",
			Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}},
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"This form has expired."}})
		other.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"tr"}}, ExpectedStatus: http.StatusForbidden})
		if n := sessionRows(a, t); n != 0 {
			t.Fatalf("%d session rows after refused posts, want 0", n)
		}
	})

	t.Run("CrossSiteRefusedFirst", func(t *testing.T) {
		for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
			{"Origin": "https://evil.example"}} {
			c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/login", Header: h,
				Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}},
				ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"another site sent it"}})
		}
	})

	t.Run("SignInWithTheCookieToken", func(t *testing.T) {
		c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/login", Header: map[string]string{"Sec-Fetch-Site": "same-origin"},
			Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}})
		if n := sessionRows(a, t); n != 1 {
			t.Fatalf("%d session rows after signing in, want 1", n)
		}
		signedIn := c.Token()
		if signedIn == token {
			t.Error("the token is not new at sign-in")
		}
		c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusForbidden})
	})

	t.Run("APISessionCallsCheckTheOrigin", func(t *testing.T) {
		base := "/api/sites/" + a.Site.ID + "/releases"
		body := `{"title":"From elsewhere"}`
		for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
			h["X-CSRF-Token"] = c.Token()
			h["Content-Type"] = "application/json"
			res := c.DoBody("POST", base, body, h)
			if res.Status != http.StatusForbidden || !strings.Contains(res.Body, `"csrf"`) {
				t.Errorf("%v: status %d %s", h, res.Status, res.Body)
			}
		}
		// A script's bearer token is no browser's: the headers do not matter.
		res := c.App.Client(t, "").DoBody("POST", base, body, map[string]string{"Authorization": "Bearer " + a.TokenFor(t, a.Editor),
			"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"})
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"no_items"`) {
			t.Errorf("bearer: status %d %s, want the request's own refusal", res.Status, res.Body)
		}
	})
}

// Cookies are Secure, and HSTS is sent, when the request came over HTTPS:
// TLS of its own or a trusted proxy's X-Forwarded-Proto (issue 10, item 8).
func TestSecureCookiesOverHTTPS(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	behindProxy := a.Serve(t, false, handlers.WithTrustedProxies(local))
	untrusted := a.Serve(t, false, handlers.WithTrustedProxies([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}))
	forced := a.Serve(t, false, handlers.WithSecureCookies())
	overTLS := a.Serve(t, true)

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
		c := a.On(t, behindProxy)
		token := c.CSRF("/studio/login")
		res := c.Do("POST", "/studio/login", url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}}, https)
		var ck *http.Cookie
		for _, k := range res.Raw.Cookies() {
			if k.Name == apptest.SessionCookie {
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
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	for _, path := range []string{"/studio/login", "/studio/schedules", "/studio/content/" + a.Live.ID, "/", "/posts/welcome", "/about", "/nope"} {
		res := c.Get(path)
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
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	params := strings.NewReplacer("{siteId}", a.Site.ID, "{releaseId}", rel.ID, "{nodeId}", a.Live.ID,
		"{approvalId}", "apr_nope", "{id}", a.Live.ID, "{slug}", "welcome", "{token}", "nope", "*", "site.css")
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
			path = strings.Replace(path, a.Live.ID, rel.ID, 1)
		}
		t.Run(rt.Pattern, func(t *testing.T) {
			get := c.Do("GET", path, nil, nil)
			head := c.Do("HEAD", path, nil, nil)
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
	a := apptest.New(t)
	for _, sc := range []struct {
		client *apptest.Client
		apptest.Scenario
	}{
		{a.Client(t, ""), apptest.Scenario{Name: "Anonymous", URL: "/studio/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent:    []string{`<html lang="en">`, "<h1>Page not found</h1>", "This page does not exist, or it was deleted.", "studio.css"},
			NotExpectedContent: []string{"404 page not found"}, ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}}},
		{a.Client(t, "tr-TR,tr;q=0.9"), apptest.Scenario{Name: "Turkish", URL: "/studio/releases/x/y/z", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{`<html lang="tr">`, "<h1>Sayfa bulunamadı</h1>", "Bu sayfa yok ya da silinmiş."}}},
		{a.SignedIn(t, a.Editor), apptest.Scenario{Name: "SignedIn", URL: "/studio/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{"This page does not exist, or it was deleted.", `data-testid="user-name">Elif Editor`}}},
		{a.Client(t, ""), apptest.Scenario{Name: "PublicStaysPublic", URL: "/posts/welcome/extra", ExpectedStatus: http.StatusNotFound,
			NotExpectedContent: []string{"studio.css"}, ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}}},
		{a.Client(t, ""), apptest.Scenario{Name: "PublicPage", URL: "/nope", ExpectedStatus: http.StatusNotFound,
			ExpectedContent: []string{"site.css"}, NotExpectedContent: []string{"studio.css"}}},
		{a.Client(t, ""), apptest.Scenario{Name: "StudioishPublicPath", URL: "/studiox/nope", ExpectedStatus: http.StatusNotFound,
			NotExpectedContent: []string{"studio.css"}}},
	} {
		t.Run(sc.Name, func(t *testing.T) { sc.client.Check(t, sc.Scenario) })
	}
}

// An origin named as trusted (the public URL behind a proxy that rewrites
// Host) may send Studio's forms; any other still may not.
func TestTrustedOrigin(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	base := a.Serve(t, false, handlers.WithTrustedOrigins("https://studio.example"))
	c := a.On(t, base)
	token := c.CSRF("/studio/login")
	form := url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}}
	c.Check(t, apptest.Scenario{Name: "Other", Method: "POST", URL: "/studio/login", Form: form,
		Header: map[string]string{"Origin": "https://evil.example"}, ExpectedStatus: http.StatusForbidden})
	c.Check(t, apptest.Scenario{Name: "Trusted", Method: "POST", URL: "/studio/login", Form: form,
		Header: map[string]string{"Origin": "https://studio.example"}, ExpectedStatus: http.StatusSeeOther})
	res := c.DoBody("POST", "/api/sites/"+a.Site.ID+"/releases", `{"title":"Behind the proxy"}`, map[string]string{
		"Origin": "https://studio.example", "X-CSRF-Token": c.Token(), "Content-Type": "application/json"})
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, `"no_items"`) {
		t.Errorf("API from the trusted origin: status %d %s, want the request's own refusal", res.Status, res.Body)
	}
}
