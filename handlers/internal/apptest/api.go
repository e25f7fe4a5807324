package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"studio/engine"
	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/api"
	"studio/handlers/api/schema"
)

// APIRouteTable is the API route table, for its methods, patterns and
// scopes only.
func APIRouteTable() []handlers.Route {
	return handlers.APIRoutes(api.New(&services.Services{}, nil, nil))
}

// TokenFor mints a personal access token for u.
func (a *App) TokenFor(t *testing.T, u engine.User) string {
	t.Helper()
	secret, _, err := a.Identity.CreateToken(context.Background(), u, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// Message is the error message of an API answer.
func Message(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// Details is the error details of an API answer.
func Details(out map[string]any) map[string]any {
	e, _ := out["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// WantError fails unless the answer is status with code (and, when field
// is set, details.field).
func WantError(t *testing.T, name string, status int, out map[string]any, wantStatus int, code, field string) {
	t.Helper()
	if status != wantStatus || ErrorCode(out) != code || (field != "" && Details(out)["field"] != field) {
		t.Errorf("%s: %d %v, want %d %s (field %q)", name, status, out, wantStatus, code, field)
	}
	if Message(out) == "" || strings.HasPrefix(Message(out), "error.") {
		t.Errorf("%s: message %q is not a sentence", name, Message(out))
	}
}

// APICall sends a JSON API request with a bearer token and decodes the answer.
func APICall(t *testing.T, a *App, method, path, token, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, a.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, data)
	}
	return resp.StatusCode, out
}

func ErrorCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Every release the JSON API answers in these tests is checked against RFC
// §4.2's schema (handlers/api/schema): checkReleases sits in front of the
// test server's router, reads each /api answer and validates every release
// in it, so no test can produce a release of the wrong shape unnoticed.

// viewAnswer matches the answers that are §12's ReleaseView: one release
// read, and a draft just created.
var viewAnswer = regexp.MustCompile(`^/api/sites/[^/]+/releases(/[^/]+)?$`)

// teeWriter keeps a copy of what the handler writes.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// checkReleases validates every release in every JSON answer under /api
// and counts them in seen.
func checkReleases(t *testing.T, seen *atomic.Int64, next http.Handler) http.Handler {
	schemas, err := schema.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		tw := &teeWriter{ResponseWriter: w}
		next.ServeHTTP(tw, r)
		if !strings.HasPrefix(tw.Header().Get("Content-Type"), "application/json") || tw.body.Len() == 0 {
			return
		}
		// The router compresses what the client accepts (compress).
		plain, err := decodeBody(tw.Header().Get("Content-Encoding"), tw.body.Bytes())
		if err != nil {
			t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
			return
		}
		tw.body.Reset()
		tw.body.Write(plain)
		doc, err := schema.Decode(tw.body.Bytes())
		if err != nil {
			t.Errorf("%s %s: answer is not JSON: %v", r.Method, r.URL.Path, err)
			return
		}
		check := func(sch *jsonschema.Schema, v any) {
			seen.Add(1)
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s %s: a release not in the §4.2 shape:\n%s\n%v", r.Method, r.URL.Path, Excerpt(tw.body.String()), err)
			}
		}
		top, _ := doc.(map[string]any)
		isView := tw.status < 300 && viewAnswer.MatchString(r.URL.Path) &&
			((r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.Count(r.URL.Path, "/") == 5 || r.Method == http.MethodPost && tw.status == http.StatusCreated)
		if isView && top != nil {
			check(schemas.View, top)
			return
		}
		walkReleases(doc, false, func(v any) { check(schemas.Answer, v) })
	})
}

// walkReleases calls fn on every release in v: an object with
// schemaVersion and a rel_ id, and whatever sits under "release" or in
// "releases" (so a release that lost its schemaVersion is still checked).
func walkReleases(v any, isRelease bool, fn func(any)) {
	switch x := v.(type) {
	case map[string]any:
		id, _ := x["id"].(string)
		_, versioned := x["schemaVersion"]
		if isRelease || versioned && strings.HasPrefix(id, "rel_") {
			fn(x)
			return
		}
		for k, child := range x {
			switch k {
			case "release":
				walkReleases(child, true, fn)
			case "releases":
				if list, ok := child.([]any); ok {
					for _, r := range list {
						walkReleases(r, true, fn)
					}
				}
			default:
				walkReleases(child, false, fn)
			}
		}
	case []any:
		for _, child := range x {
			walkReleases(child, false, fn)
		}
	}
}

// DoBody sends body as it is, with c's cookies and the headers given.
func (c *Client) DoBody(method, path, body string, header map[string]string) Response {
	c.T.Helper()
	req, err := http.NewRequest(method, c.App.URL+path, strings.NewReader(body))
	if err != nil {
		c.T.Fatal(err)
	}
	if c.Lang != "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.T.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.T.Fatal(err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(b), Raw: res}
}

// JSON sends a JSON API request from a browser: c's cookies, no token,
// the headers given (a CSRF token as X-CSRF-Token for a change), and
// decodes the JSON answer.
func (c *Client) JSON(method, path, body string, header map[string]string) (int, map[string]any) {
	c.T.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	res := c.DoBody(method, path, body, h)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		c.T.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
		c.T.Fatalf("%s %s: not JSON: %v", method, path, err)
	}
	return res.Status, out
}
