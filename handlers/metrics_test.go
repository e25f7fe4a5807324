package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/metrics"
)

// TestMetrics (issue 16): /metrics answers only with --metrics-token's
// token (anyone else gets a 404, as if there were none), in the Prometheus
// text format, linted; the release lateness histogram holds a published
// release's lateness to the millisecond; ticks, runs, releases by state,
// the due backlog and the heartbeat's age are there; requests are timed
// by their route pattern, never their raw path.
func TestMetrics(t *testing.T) {
	t.Parallel()
	const token = "metrics-token-for-the-test"
	m := metrics.New()
	a := apptest.New(t, handlers.WithMetrics(m, token))
	m.WatchPools(a.Store.Pools())
	ctx := context.Background()

	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC) // 09:00 in Istanbul
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(nine.Add(300 * time.Millisecond)) // 0.3 s late
	if rep, err := a.Scheduler.RunDue(ctx, "node"); err != nil || rep.Published != 1 {
		t.Fatalf("the tick published %d: %v", rep.Published, err)
	}
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
	a.Clock.Set(nine.Add(time.Hour + 5*time.Second)) // due, and no tick has run it

	visitor := a.Client(t, "")
	for path, want := range map[string]int{"/posts/welcome": 200, "/posts/no-such-post": 404, "/no/such/path/x7": 404} {
		if res := visitor.Get(path); res.Status != want {
			t.Fatalf("GET %s: %d, want %d", path, res.Status, want)
		}
	}
	visitor.Do("BREWX7", "/posts/welcome", nil, nil) // a method of the client's own making

	scrape := func(auth string) apptest.Response {
		t.Helper()
		h := map[string]string{}
		if auth != "" {
			h["Authorization"] = auth
		}
		return visitor.Do(http.MethodGet, "/metrics", nil, h)
	}
	// A stranger learns nothing, not even that the route exists: the
	// answer is the public site's own 404 page, for any method.
	nothing := visitor.Get("/metrics-is-not-here")
	if nothing.Status != http.StatusNotFound || !strings.Contains(nothing.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("a path nothing serves: %d %s", nothing.Status, nothing.Header.Get("Content-Type"))
	}
	same := func(what string, res apptest.Response) {
		t.Helper()
		if res.Status != nothing.Status || res.Header.Get("Content-Type") != nothing.Header.Get("Content-Type") ||
			res.Body != nothing.Body || strings.Contains(res.Body, "studio_") {
			t.Errorf("%s: %d %s, want the answer of a path nothing serves", what, res.Status, res.Header.Get("Content-Type"))
		}
	}
	for _, auth := range []string{"", "Bearer wrong-token-of-the-same-size", "Basic " + token, token} {
		same("/metrics with "+auth, scrape(auth))
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		same(method+" /metrics", visitor.Do(method, "/metrics", nil, map[string]string{"Authorization": "Bearer " + token}))
	}
	res := scrape("Bearer " + token)
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics with the token: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`studio_release_lateness_seconds_bucket{le="0.25"} 0`,
		`studio_release_lateness_seconds_bucket{le="0.5"} 1`,
		`studio_release_lateness_seconds_bucket{le="512"} 1`,
		`studio_release_lateness_seconds_sum 0.3`,
		`studio_scheduler_ticks_total{result="ok",trigger="node"} 1`,
		`studio_scheduler_tick_duration_seconds_count 1`,
		`studio_release_runs_total{result="published"} 1`,
		`studio_release_runs_total{result="late"} 0`,
		`studio_releases{state="published"} 1`,
		`studio_releases{state="scheduled"} 1`,
		`studio_due_backlog 1`,
		"studio_scheduler_heartbeat_age_seconds 3604.7\n", // the tick at 09:00:00.3 wrote it; now is 10:00:05
		`studio_scheduler_state_up 1`,
		`studio_http_request_duration_seconds_count{code="2xx",method="GET",route="/posts/{slug}"} 1`,
		`studio_http_request_duration_seconds_count{code="4xx",method="GET",route="/posts/{slug}"} 1`,
		`studio_http_request_duration_seconds_count{code="4xx",method="GET",route="unmatched"}`,
		`method="other",route="unmatched"} 1`,
		`go_sql_max_open_connections{db_name="write"} 1`,
		`process_start_time_seconds`,
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, raw := range []string{"welcome", "no-such-post", "x7", "BREW"} {
		if strings.Contains(res.Body, raw) {
			t.Errorf("/metrics names the raw path %q", raw)
		}
	}
	problems, err := testutil.GatherAndLint(m.Gatherer())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}
