package handlers_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"studio/handlers/api/schema"
)

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
				t.Errorf("%s %s: a release not in the §4.2 shape:\n%s\n%v", r.Method, r.URL.Path, excerpt(tw.body.String()), err)
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

// The check sees the releases the API answers, in a list, alone and inside
// another answer.
func TestReleaseSchemaCheckSeesReleases(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	token := a.tokenFor(t, a.editor)
	base := "/api/sites/" + a.site.ID
	for _, path := range []string{base + "/releases", base + "/releases/" + rel.ID, base + "/releases/" + rel.ID + "/diff"} {
		before := a.releasesChecked.Load()
		if status, out := apiCall(t, a, "GET", path, token, ""); status != 200 {
			t.Fatalf("%s: %d %v", path, status, out)
		}
		if a.releasesChecked.Load() != before+1 {
			t.Errorf("%s: %d releases checked, want 1", path, a.releasesChecked.Load()-before)
		}
	}
}
