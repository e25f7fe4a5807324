package static

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// decode undoes a response's Content-Encoding.
func decode(t *testing.T, encoding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch encoding {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unknown Content-Encoding %q", encoding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompressedOnce serves every file in every coding a browser may ask
// for: each answer decodes to the embedded bytes, says Vary:
// Accept-Encoding, and the copy is made once and sent again as it is.
func TestCompressedOnce(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(t *testing.T, method, name, accept string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+Path(name), nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d, %v", method, name, res.StatusCode, err)
		}
		if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s: Vary %q", name, got)
		}
		return res, body
	}
	for name, f := range byName {
		for _, c := range []struct{ accept, want string }{
			{"", ""},
			{"gzip, deflate, br, zstd", "br"}, // a browser's
			{"gzip", "gzip"},
			{"zstd", "zstd"},
			{"br;q=0.5, gzip", "gzip"},
			{"br;q=0, *", "gzip"},
			{"deflate", ""},
			{"identity", ""},
		} {
			res, body := get(t, http.MethodGet, name, c.accept)
			if got := res.Header.Get("Content-Encoding"); got != c.want {
				t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q, want %q", name, c.accept, got, c.want)
				continue
			}
			if !bytes.Equal(decode(t, c.want, body), f.data) {
				t.Errorf("%s, Accept-Encoding %q: does not decode to the file", name, c.accept)
			}
			if c.want != "" && len(body) >= len(f.data) {
				t.Errorf("%s in %s: %d bytes, the file %d", name, c.want, len(body), len(f.data))
			}
			if !strings.HasPrefix(res.Header.Get("Content-Type"), strings.SplitN(f.ctype, ";", 2)[0]) || f.ctype == "" {
				t.Errorf("%s: Content-Type %q", name, res.Header.Get("Content-Type"))
			}
		}
	}
	// Once: a second request sends the copy the first made, not a new one.
	f := byName["studio.css"]
	first := f.coded[1].data // gzip, made above
	_, body := get(t, http.MethodGet, "studio.css", "gzip")
	if len(first) == 0 || &f.coded[1].data[0] != &first[0] || !bytes.Equal(body, first) {
		t.Error("the gzip copy of studio.css was made again")
	}
	// A range is of the plain file; a compressed copy is sent whole.
	for _, c := range []struct {
		accept string
		status int
		length int
	}{{"", http.StatusPartialContent, 10}, {"gzip", http.StatusOK, len(first)}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+Path("studio.css"), nil)
		req.Header.Set("Range", "bytes=0-9")
		if c.accept != "" {
			req.Header.Set("Accept-Encoding", c.accept)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || len(body) != c.length {
			t.Errorf("Range, Accept-Encoding %q: %d with %d bytes, want %d with %d", c.accept, res.StatusCode, len(body), c.status, c.length)
		}
	}
	// HEAD tells the compressed copy's length, and sends nothing.
	res, body := get(t, http.MethodHead, "studio.css", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Length") != strconv.Itoa(len(first)) || len(body) != 0 {
		t.Errorf("HEAD: %q, length %q, %d bytes", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"), len(body))
	}
}
