package apptest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
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
	Status int
	Header http.Header
	Body   []byte
}

// Raw sends a request with c's cookies but with exactly the headers given:
// no Accept-Encoding unless named, and nothing decoded.
func (c *Client) Raw(method, path string, header map[string]string) rawAnswer {
	c.T.Helper()
	hc := &http.Client{Jar: c.Jar, Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest(method, c.App.URL+path, nil)
	if err != nil {
		c.T.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := hc.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.T.Fatal(err)
	}
	return rawAnswer{res.StatusCode, res.Header, body}
}

// Plain is the answer decoded.
func (r rawAnswer) Plain(t *testing.T) []byte {
	t.Helper()
	b, err := decodeBody(r.Header.Get("Content-Encoding"), r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
