package studio_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/handlers/internal/apptest"
	"studio/internal/calendarfixture"
)

// The Schedules pages under the load (issue 5 "Performance"): a site
// with 10,000 releases over a year and 50 automations, on a real SQLite
// file behind a real HTTP server. The Agenda and the Month page render
// server-side with p95 under 30 ms, and a Month page weighs under 150 KB.
// The weight is always asserted; timings only when STUDIO_PERF=1 (make
// bench) and without the race detector (it slows SQLite about 25 times),
// since other packages' tests share the CPU in a plain `go test ./...`.
// They are logged either way.
func TestSchedulesPagesAtScale(t *testing.T) {
	a := apptest.New(t)
	if err := calendarfixture.Seed(context.Background(), a.Store.DB(), a.Engine, automations.New(a.Store, a.Engine), a.Site, a.Editor, a.Clock.Now(), 10000); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	timed := os.Getenv("STUDIO_PERF") == "1" && !apptest.RaceDetector
	runs := 60
	if testing.Short() {
		runs = 5
	}
	if apptest.RaceDetector {
		runs = 8
	}
	for _, page := range []struct {
		name, url string
		maxBytes  int
	}{
		{"agenda", "/studio/schedules?date=2026-11-02", 0},
		{"month", "/studio/schedules?view=month&date=2026-11", 150_000},
		{"month-fragment", "/studio/schedules?view=month&date=2026-12", 150_000},
	} {
		header := map[string]string(nil)
		if page.name == "month-fragment" {
			header = map[string]string{"HX-Request": "true"}
		}
		var took []time.Duration
		size := 0
		for i := range runs + 2 {
			begin := time.Now()
			res := c.Do(http.MethodGet, page.url, nil, header)
			d := time.Since(begin)
			if res.Status != http.StatusOK {
				t.Fatalf("%s: status %d", page.name, res.Status)
			}
			size = len(res.Body)
			if i >= 2 { // the first two warm the caches
				took = append(took, d)
			}
		}
		slices.Sort(took)
		p50, p95 := took[len(took)/2], took[len(took)*95/100]
		t.Logf("%s: %d bytes, p50 %v, p95 %v over %d requests", page.name, size, p50.Round(10*time.Microsecond),
			p95.Round(10*time.Microsecond), len(took))
		// On the wire, as Studio's own pages ask for it (compress).
		wire := map[string]int{}
		for _, code := range []string{"gzip", "zstd"} {
			h := map[string]string{"Accept-Encoding": code, "Sec-Fetch-Site": "same-origin"}
			for k, v := range header {
				h[k] = v
			}
			got := c.Raw(http.MethodGet, page.url, h)
			if got.Header.Get("Content-Encoding") != code || len(got.Body) >= size {
				t.Errorf("%s in %s: Content-Encoding %q, %d bytes for %d", page.name, code, got.Header.Get("Content-Encoding"), len(got.Body), size)
			}
			wire[code] = len(got.Body)
		}
		t.Logf("%s: %d bytes compressed: gzip %d, zstd %d", page.name, size, wire["gzip"], wire["zstd"])
		if page.maxBytes > 0 && size > page.maxBytes {
			t.Errorf("%s weighs %d bytes, want under %d", page.name, size, page.maxBytes)
		}
		if timed && p95 > 30*time.Millisecond {
			t.Errorf("%s: p95 %v, want under 30 ms", page.name, p95)
		}
	}
}
