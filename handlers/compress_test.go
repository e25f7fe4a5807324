package handlers_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/metrics"
	"studio/web/static"
)

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
	a := apptest.New(t)
	editor := a.SignedIn(t, a.Editor)
	script := a.Client(t, "")
	bearer := "Bearer " + a.TokenFor(t, a.Editor)
	visitor := a.Client(t, "")
	sameOrigin := map[string]string{"Sec-Fetch-Site": "same-origin"}
	cases := []struct {
		name   string
		c      *apptest.Client
		path   string
		header map[string]string
		codes  []string
	}{
		{"SchedulesPage", editor, "/studio/schedules", sameOrigin, []string{"gzip", "zstd"}},
		{"APIAnswer", script, "/api/sites/" + a.Site.ID + "/entries", map[string]string{"Authorization": bearer}, []string{"gzip", "zstd"}},
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
			plain := tc.c.Raw(http.MethodGet, tc.path, with(""))
			if plain.Status != http.StatusOK || plain.Header.Get("Content-Encoding") != "" || !varies(plain.Header) {
				t.Fatalf("without Accept-Encoding: %d, Content-Encoding %q, Vary %q", plain.Status,
					plain.Header.Get("Content-Encoding"), plain.Header.Values("Vary"))
			}
			if len(plain.Body) < 1024 {
				t.Fatalf("%d bytes: too few to be compressed", len(plain.Body))
			}
			for _, code := range tc.codes {
				got := tc.c.Raw(http.MethodGet, tc.path, with(code))
				if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != code || !varies(got.Header) {
					t.Errorf("%s: %d, Content-Encoding %q, Vary %q", code, got.Status, got.Header.Get("Content-Encoding"), got.Header.Values("Vary"))
					continue
				}
				// The Schedules page shows what the scheduler has done, and
				// on a loaded machine its backstop tick can fall between two
				// requests (seen once: 12,607 bytes plain, then a page of
				// 12,386). A coding's bytes must then match the page as it is
				// now; a coding that garbles them matches neither.
				if b := got.Plain(t); !bytes.Equal(b, plain.Body) {
					if again := tc.c.Raw(http.MethodGet, tc.path, with("")); !bytes.Equal(b, again.Body) {
						t.Errorf("%s: decodes to %d bytes that differ from the %d sent plain", code, len(b), len(plain.Body))
					}
				}
				if len(got.Body) >= len(plain.Body) {
					t.Errorf("%s: %d bytes for %d", code, len(got.Body), len(plain.Body))
				}
				if tag := got.Header.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
					t.Errorf("%s: a strong ETag %q on a compressed answer", code, tag)
				}
				t.Logf("%s: %d bytes, %d plain", code, len(got.Body), len(plain.Body))
			}
			// A browser's usual header: the most compact coding served.
			if got := tc.c.Raw(http.MethodGet, tc.path, with("gzip, deflate, br, zstd")); got.Header.Get("Content-Encoding") == "" {
				t.Error("a browser's Accept-Encoding got nothing compressed")
			}
			head := tc.c.Raw(http.MethodHead, tc.path, with("gzip"))
			if tc.name != "StaticAsset" && (head.Header.Get("Content-Encoding") != "" || !varies(head.Header)) {
				t.Errorf("HEAD: Content-Encoding %q, Vary %q", head.Header.Get("Content-Encoding"), head.Header.Values("Vary"))
			}
		})
	}
	// The static file's copy is made once: the same bytes every time.
	first := visitor.Raw(http.MethodGet, static.Path("studio.css"), map[string]string{"Accept-Encoding": "br"})
	again := visitor.Raw(http.MethodGet, static.Path("studio.css"), map[string]string{"Accept-Encoding": "br"})
	if !bytes.Equal(first.Body, again.Body) || first.Header.Get("Content-Length") == "" {
		t.Error("studio.css in brotli: two answers differ, or no Content-Length")
	}
	// A revalidation of a compressed public page is answered 304, with Vary.
	page := visitor.Raw(http.MethodGet, "/posts/welcome", map[string]string{"Accept-Encoding": "gzip"})
	again = visitor.Raw(http.MethodGet, "/posts/welcome", map[string]string{"Accept-Encoding": "gzip",
		"If-None-Match": page.Header.Get("ETag")})
	if again.Status != http.StatusNotModified || !varies(again.Header) || again.Header.Get("Content-Encoding") != "" {
		t.Errorf("revalidation: %d, Vary %q, Content-Encoding %q", again.Status, again.Header.Values("Vary"), again.Header.Get("Content-Encoding"))
	}
}

// TestImagesNotRecompressed: images are compressed already; the public
// site's /media and the editor's preview of a working copy send them as
// they are, whatever the request accepts.
func TestImagesNotRecompressed(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	img := noisePNG(t, 48)
	n, err := a.Nodes.CreateAsset(ctx, a.Editor, a.Site.ID, content.Body{Title: "Noise", Slug: "noise.png",
		Status: content.StatusPublished, Mime: "image/png", Data: img, Alt: "Noise"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	editor := a.SignedIn(t, a.Editor)
	for _, c := range []struct {
		c    *apptest.Client
		path string
	}{{a.Client(t, ""), "/media/noise.png"}, {editor, "/studio/content/" + n.ID + "/file"}} {
		got := c.c.Raw(http.MethodGet, c.path, map[string]string{"Accept-Encoding": "gzip, zstd", "Sec-Fetch-Site": "same-origin"})
		if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != "" || !bytes.Equal(got.Body, img) {
			t.Errorf("%s: %d, Content-Encoding %q, %d bytes for the %d of the image", c.path, got.Status,
				got.Header.Get("Content-Encoding"), len(got.Body), len(img))
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
	a := apptest.New(t)
	editor := a.SignedIn(t, a.Editor)
	anonymous := a.Client(t, "")
	anonymous.Get("/studio/login") // its CSRF nonce cookie, on /studio
	if u, _ := url.Parse(a.URL + "/studio/login"); len(anonymous.Jar.Cookies(u)) == 0 {
		t.Fatal("no CSRF cookie for the anonymous client")
	}
	for _, c := range []struct {
		who, path, site string
		c               *apptest.Client
		compressed      bool
	}{
		{"editor", "/studio/schedules", "same-origin", editor, true},
		{"editor", "/studio/schedules", "none", editor, true},
		{"editor", "/studio/schedules", "cross-site", editor, false},
		{"editor", "/studio/schedules", "same-site", editor, false},
		{"editor", "/studio/schedules", "", editor, false},
		{"editor", "/api/sites/" + a.Site.ID + "/entries", "cross-site", editor, false},
		{"editor", "/api/sites/" + a.Site.ID + "/entries", "same-origin", editor, true},
		{"anonymous", "/studio/login", "cross-site", anonymous, false},
		{"anonymous", "/studio/login", "same-origin", anonymous, true},
		{"nobody", "/posts/welcome", "cross-site", a.Client(t, ""), true},
	} {
		h := map[string]string{"Accept-Encoding": "gzip"}
		if c.site != "" {
			h["Sec-Fetch-Site"] = c.site
		}
		got := c.c.Raw(http.MethodGet, c.path, h)
		if got.Status != http.StatusOK || (got.Header.Get("Content-Encoding") == "gzip") != c.compressed || !varies(got.Header) {
			t.Errorf("%s, %s, Sec-Fetch-Site %q: %d, Content-Encoding %q (compressed: want %v), Vary %q", c.who, c.path, c.site,
				got.Status, got.Header.Get("Content-Encoding"), c.compressed, got.Header.Values("Vary"))
		}
		if c.who == "editor" && strings.HasPrefix(c.path, "/studio/") && !strings.Contains(string(got.Plain(t)), `name="csrf_token"`) {
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
	a := apptest.New(t)
	_, key := credentials(a, t, a.Editor, a.Site.ID)
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
	a := apptest.New(t, handlers.WithMetrics(metrics.New(), token))
	c := a.Client(t, "")
	for _, code := range []string{"gzip", "zstd"} {
		got := c.Raw(http.MethodGet, "/metrics", map[string]string{"Authorization": "Bearer " + token, "Accept-Encoding": code})
		if got.Status != http.StatusOK || got.Header.Get("Content-Encoding") != code {
			t.Errorf("%s: %d, Content-Encoding %q", code, got.Status, got.Header.Get("Content-Encoding"))
			continue
		}
		if b := got.Plain(t); !bytes.Contains(b, []byte("# HELP ")) {
			t.Errorf("%s: does not decode to the exposition format once:\n%.200q", code, b)
		}
	}
}
