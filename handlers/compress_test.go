package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"studio/engine/content"
	"studio/handlers"
	"studio/handlers/metrics"
	"studio/web/static"
)

// decodeBody undoes a Content-Encoding the router may have applied.
func decodeBody(encoding string, body []byte) ([]byte, error) {
	var r io.Reader
	switch encoding {
	case "":
		return body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	default:
		return nil, fmt.Errorf("unknown Content-Encoding %q", encoding)
	}
	return io.ReadAll(r)
}

// rawAnswer is an answer as it went over the wire, before any decoding.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// raw sends a request with c's cookies but with exactly the headers given:
// no Accept-Encoding unless named, and nothing decoded.
func (c *client) raw(method, path string, header map[string]string) rawAnswer {
	c.t.Helper()
	hc := &http.Client{Jar: c.jar, Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest(method, c.app.URL+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return rawAnswer{res.StatusCode, res.Header, body}
}

// plain is the answer decoded.
func (r rawAnswer) plain(t *testing.T) []byte {
	t.Helper()
	b, err := decodeBody(r.header.Get("Content-Encoding"), r.body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func varies(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}

// noisePNG is a PNG of side×side random pixels: several KB that no
// compressor makes smaller, as a photo.
func noisePNG(t *testing.T, side int) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, side, side))
	rng := rand.New(rand.NewSource(7))
	for i := range side * side {
		m.SetNRGBA(i%side, i/side, color.NRGBA{R: uint8(rng.Intn(256)), G: uint8(rng.Intn(256)), B: uint8(rng.Intn(256)), A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCompressedAnswers: a Studio page, a JSON API answer, a public page
// and a static file go out gzip- or zstd-compressed (the static file in
// brotli too) when the request accepts it, decode to the bytes sent
// uncompressed, and say Vary: Accept-Encoding; without Accept-Encoding
// nothing is compressed, and neither is a HEAD.
func TestCompressedAnswers(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor := a.signedIn(t, a.editor)
	script := a.client(t, "")
	bearer := "Bearer " + a.tokenFor(t, a.editor)
	visitor := a.client(t, "")
	sameOrigin := map[string]string{"Sec-Fetch-Site": "same-origin"}
	cases := []struct {
		name   string
		c      *client
		path   string
		header map[string]string
		codes  []string
	}{
		{"SchedulesPage", editor, "/studio/schedules", sameOrigin, []string{"gzip", "zstd"}},
		{"APIAnswer", script, "/api/sites/" + a.site.ID + "/entries", map[string]string{"Authorization": bearer}, []string{"gzip", "zstd"}},
		{"PublicPage", visitor, "/posts/welcome", nil, []string{"gzip", "zstd"}},
		{"StaticAsset", visitor, static.Path("htmx-2.0.11.min.js"), nil, []string{"gzip", "zstd", "br"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			with := func(accept string) map[string]string {
				h := map[string]string{}
				for k, v := range tc.header {
					h[k] = v
				}
				if accept != "" {
					h["Accept-Encoding"] = accept
				}
				return h
			}
			plain := tc.c.raw(http.MethodGet, tc.path, with(""))
			if plain.status != http.StatusOK || plain.header.Get("Content-Encoding") != "" || !varies(plain.header) {
				t.Fatalf("without Accept-Encoding: %d, Content-Encoding %q, Vary %q", plain.status,
					plain.header.Get("Content-Encoding"), plain.header.Values("Vary"))
			}
			if len(plain.body) < 1024 {
				t.Fatalf("%d bytes: too few to be compressed", len(plain.body))
			}
			for _, code := range tc.codes {
				got := tc.c.raw(http.MethodGet, tc.path, with(code))
				if got.status != http.StatusOK || got.header.Get("Content-Encoding") != code || !varies(got.header) {
					t.Errorf("%s: %d, Content-Encoding %q, Vary %q", code, got.status, got.header.Get("Content-Encoding"), got.header.Values("Vary"))
					continue
				}
				if b := got.plain(t); !bytes.Equal(b, plain.body) {
					t.Errorf("%s: decodes to %d bytes that differ from the %d sent plain", code, len(b), len(plain.body))
				}
				if len(got.body) >= len(plain.body) {
					t.Errorf("%s: %d bytes for %d", code, len(got.body), len(plain.body))
				}
				if tag := got.header.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
					t.Errorf("%s: a strong ETag %q on a compressed answer", code, tag)
				}
				t.Logf("%s: %d bytes, %d plain", code, len(got.body), len(plain.body))
			}
			// A browser's usual header: the most compact coding served.
			if got := tc.c.raw(http.MethodGet, tc.path, with("gzip, deflate, br, zstd")); got.header.Get("Content-Encoding") == "" {
				t.Error("a browser's Accept-Encoding got nothing compressed")
			}
			head := tc.c.raw(http.MethodHead, tc.path, with("gzip"))
			if tc.name != "StaticAsset" && (head.header.Get("Content-Encoding") != "" || !varies(head.header)) {
				t.Errorf("HEAD: Content-Encoding %q, Vary %q", head.header.Get("Content-Encoding"), head.header.Values("Vary"))
			}
		})
	}
	// The static file's copy is made once: the same bytes every time.
	first := visitor.raw(http.MethodGet, static.Path("studio.css"), map[string]string{"Accept-Encoding": "br"})
	again := visitor.raw(http.MethodGet, static.Path("studio.css"), map[string]string{"Accept-Encoding": "br"})
	if !bytes.Equal(first.body, again.body) || first.header.Get("Content-Length") == "" {
		t.Error("studio.css in brotli: two answers differ, or no Content-Length")
	}
	// A revalidation of a compressed public page is answered 304, with Vary.
	page := visitor.raw(http.MethodGet, "/posts/welcome", map[string]string{"Accept-Encoding": "gzip"})
	again = visitor.raw(http.MethodGet, "/posts/welcome", map[string]string{"Accept-Encoding": "gzip",
		"If-None-Match": page.header.Get("ETag")})
	if again.status != http.StatusNotModified || !varies(again.header) || again.header.Get("Content-Encoding") != "" {
		t.Errorf("revalidation: %d, Vary %q, Content-Encoding %q", again.status, again.header.Values("Vary"), again.header.Get("Content-Encoding"))
	}
}

// TestImagesNotRecompressed: images are compressed already; the public
// site's /media and the editor's preview of a working copy send them as
// they are, whatever the request accepts.
func TestImagesNotRecompressed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	img := noisePNG(t, 48)
	n, err := a.nodes.CreateAsset(ctx, a.editor, a.site.ID, content.Body{Title: "Noise", Slug: "noise.png",
		Status: content.StatusPublished, Mime: "image/png", Data: img, Alt: "Noise"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.nodes.Publish(ctx, a.editor, a.site.ID); err != nil {
		t.Fatal(err)
	}
	editor := a.signedIn(t, a.editor)
	for _, c := range []struct {
		c    *client
		path string
	}{{a.client(t, ""), "/media/noise.png"}, {editor, "/studio/content/" + n.ID + "/file"}} {
		got := c.c.raw(http.MethodGet, c.path, map[string]string{"Accept-Encoding": "gzip, zstd", "Sec-Fetch-Site": "same-origin"})
		if got.status != http.StatusOK || got.header.Get("Content-Encoding") != "" || !bytes.Equal(got.body, img) {
			t.Errorf("%s: %d, Content-Encoding %q, %d bytes for the %d of the image", c.path, got.status,
				got.header.Get("Content-Encoding"), len(got.body), len(img))
		}
	}
}

// TestCompressionBREACH: a page holding the session's CSRF token is
// compressed only when the browser says Studio's own pages or the person
// asked for it (Sec-Fetch-Site same-origin or none). Another site's page,
// which could reflect its text beside the token and watch the answer's
// length, gets it plain, as does a browser that says nothing; so does the
// sign-in page for the CSRF cookie of someone not signed in. A request
// without Studio's cookies has no token to steal and is compressed.
func TestCompressionBREACH(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor := a.signedIn(t, a.editor)
	anonymous := a.client(t, "")
	anonymous.get("/studio/login") // its CSRF nonce cookie, on /studio
	if u, _ := url.Parse(a.URL + "/studio/login"); len(anonymous.jar.Cookies(u)) == 0 {
		t.Fatal("no CSRF cookie for the anonymous client")
	}
	for _, c := range []struct {
		who, path, site string
		c               *client
		compressed      bool
	}{
		{"editor", "/studio/schedules", "same-origin", editor, true},
		{"editor", "/studio/schedules", "none", editor, true},
		{"editor", "/studio/schedules", "cross-site", editor, false},
		{"editor", "/studio/schedules", "same-site", editor, false},
		{"editor", "/studio/schedules", "", editor, false},
		{"editor", "/api/sites/" + a.site.ID + "/entries", "cross-site", editor, false},
		{"editor", "/api/sites/" + a.site.ID + "/entries", "same-origin", editor, true},
		{"anonymous", "/studio/login", "cross-site", anonymous, false},
		{"anonymous", "/studio/login", "same-origin", anonymous, true},
		{"nobody", "/posts/welcome", "cross-site", a.client(t, ""), true},
	} {
		h := map[string]string{"Accept-Encoding": "gzip"}
		if c.site != "" {
			h["Sec-Fetch-Site"] = c.site
		}
		got := c.c.raw(http.MethodGet, c.path, h)
		if got.status != http.StatusOK || (got.header.Get("Content-Encoding") == "gzip") != c.compressed || !varies(got.header) {
			t.Errorf("%s, %s, Sec-Fetch-Site %q: %d, Content-Encoding %q (compressed: want %v), Vary %q", c.who, c.path, c.site,
				got.status, got.header.Get("Content-Encoding"), c.compressed, got.header.Values("Vary"))
		}
		if c.who == "editor" && strings.HasPrefix(c.path, "/studio/") && !strings.Contains(string(got.plain(t)), `name="csrf_token"`) {
			t.Errorf("%s: no CSRF token in the page: nothing to protect", c.path)
		}
	}
}

// TestMCPStreamNotCompressed: MCP answers a JSON-RPC call with an event
// stream, which goes out as written, uncompressed, whatever the agent
// accepts (the go-sdk client's tests, TestMCP…, read it through Go's
// transport, which asks for gzip).
func TestMCPStreamNotCompressed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, key := a.credentials(t, a.editor, a.site.ID)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"test","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, a.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip, zstd")
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" ||
		res.Header.Get("Content-Encoding") != "" || !strings.Contains(string(got), `"serverInfo"`) {
		t.Errorf("initialize: %d, %q, Content-Encoding %q\n%s", res.StatusCode, res.Header.Get("Content-Type"),
			res.Header.Get("Content-Encoding"), got)
	}
}

// TestMetricsEncodedOnce: /metrics compresses itself (promhttp) as the
// scraper asks; the router sends that as it is, never compressed twice.
func TestMetricsEncodedOnce(t *testing.T) {
	t.Parallel()
	const token = "metrics-secret"
	a := newApp(t, handlers.WithMetrics(metrics.New(), token))
	c := a.client(t, "")
	for _, code := range []string{"gzip", "zstd"} {
		got := c.raw(http.MethodGet, "/metrics", map[string]string{"Authorization": "Bearer " + token, "Accept-Encoding": code})
		if got.status != http.StatusOK || got.header.Get("Content-Encoding") != code {
			t.Errorf("%s: %d, Content-Encoding %q", code, got.status, got.header.Get("Content-Encoding"))
			continue
		}
		if b := got.plain(t); !bytes.Contains(b, []byte("# HELP ")) {
			t.Errorf("%s: does not decode to the exposition format once:\n%.200q", code, b)
		}
	}
}
