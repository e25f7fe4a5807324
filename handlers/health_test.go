package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// healthJSON asks /health as c, with header, and decodes the answer.
func healthJSON(t *testing.T, c *apptest.Client, header map[string]string, wantStatus int) map[string]any {
	t.Helper()
	return healthJSONAt(t, c, "/health", header, wantStatus)
}

// healthJSONAt is the JSON a health report at path answers, uncached.
func healthJSONAt(t *testing.T, c *apptest.Client, path string, header map[string]string, wantStatus int) map[string]any {
	t.Helper()
	res := c.Do(http.MethodGet, path, nil, header)
	if res.Status != wantStatus {
		t.Fatalf("%s: %d, want %d\n%s", path, res.Status, wantStatus, res.Body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("%s Cache-Control %q, want no-store", path, cc)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", path, err, res.Body)
	}
	return out
}

// TestHealthDetailsAreForSignedInCallers is issue 10 item 8's /health
// bullet: the heartbeat's next wake-up tells when the next release is due,
// so anonymous callers get only the status and a coarse healthy; a person
// with schedules:read, by session or bearer token, gets the details.
func TestHealthDetailsAreForSignedInCallers(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	if _, err := a.Scheduler.RunDue(ctx, "node"); err != nil {
		t.Fatal(err)
	}

	anon := healthJSON(t, a.Client(t, ""), nil, http.StatusOK)
	if len(anon) != 2 || anon["status"] != "ok" || anon["healthy"] != true {
		t.Errorf("anonymous /health = %v, want only status ok and healthy true", anon)
	}
	for _, bad := range []string{"Bearer studio_pat_nonsense", "Basic ZWRpdG9yOnB3"} {
		if out := healthJSON(t, a.Client(t, ""), map[string]string{"Authorization": bad}, http.StatusOK); len(out) != 2 {
			t.Errorf("/health with %q = %v, want the anonymous answer", bad, out)
		}
	}

	secret, _, err := a.Identity.CreateToken(ctx, a.Contributor, "monitor", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]map[string]any{
		"Session": healthJSON(t, a.SignedIn(t, a.Contributor), nil, http.StatusOK),
		"Token":   healthJSON(t, a.Client(t, ""), map[string]string{"Authorization": "Bearer " + secret}, http.StatusOK),
	} {
		s, _ := out["scheduler"].(map[string]any)
		if out["status"] != "ok" || out["healthy"] != true || s == nil || s["nextWakeAt"] != "2026-11-02T05:05:00Z" ||
			s["heartbeatAt"] != "2026-11-02T05:00:00Z" || s["state"] != "running" {
			t.Errorf("%s: /health = %v, want the details with the next wake-up", name, out)
		}
	}

	// Nobody ticks: at 09:01:30 the release is due and not claimed. Everyone
	// learns that something is wrong; the signed-in learn what.
	// A ticker beat at 08:59, promising 09:00, and died; at 09:01:30 its
	// promise is within §8.7's grace, so an API request's backstop (which
	// API requests run too, in the background) leaves the release alone.
	a.Clock.Set(time.Date(2026, 11, 2, 5, 59, 0, 0, time.UTC))
	if _, err := a.Scheduler.RunDue(ctx, "node"); err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(time.Date(2026, 11, 2, 6, 1, 30, 0, time.UTC))
	if anon := healthJSON(t, a.Client(t, ""), nil, http.StatusOK); anon["healthy"] != false || len(anon) != 2 {
		t.Errorf("anonymous /health with a release nobody took = %v, want healthy false and nothing more", anon)
	}
	out := healthJSON(t, a.Client(t, ""), map[string]string{"Authorization": "Bearer " + secret}, http.StatusOK)
	s := out["scheduler"].(map[string]any)
	due, _ := s["dueNotClaimed"].([]any)
	if out["healthy"] != false || len(due) != 1 || !strings.HasPrefix(due[0].(map[string]any)["id"].(string), "rel_") {
		t.Errorf("/health with a release nobody took = %v, want it under dueNotClaimed", out)
	}
	// GET /api/scheduler tells the same from the same use case.
	api := healthJSONAt(t, a.Client(t, ""), "/api/scheduler", map[string]string{"Authorization": "Bearer " + secret}, http.StatusOK)
	apiDue, _ := api["dueNotClaimed"].([]any)
	if api["healthy"] != false || api["state"] == "running" || len(apiDue) != 1 || apiDue[0].(map[string]any)["id"] != due[0].(map[string]any)["id"] {
		t.Errorf("/api/scheduler with a release nobody took = %v, want it unhealthy with the release under dueNotClaimed", api)
	}
}

// TestAPIRequestsRunTheBackstop: a script's API request gives a stalled
// scheduler its tick (§8.6), as a Studio page does, beside the request.
func TestAPIRequestsRunTheBackstop(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	r := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	secret, _, err := a.Identity.CreateToken(ctx, a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Nobody ever ticked, and the release is three minutes overdue.
	a.Clock.Set(time.Date(2026, 11, 2, 6, 3, 0, 0, time.UTC))
	if status, _ := apptest.APICall(t, a, "GET", "/api/sites", secret, ""); status != http.StatusOK {
		t.Fatalf("GET /api/sites = %d", status)
	}
	a.Scheduler.Settle() // waits for the backstop the request started
	hb, err := a.Scheduler.Heartbeat(ctx)
	if err != nil || hb.Trigger != "request" {
		t.Fatalf("heartbeat after an API request: %+v, %v; want a request's tick", hb, err)
	}
	got, err := a.Releases.Release(ctx, a.Editor, a.Site.ID, r.ID)
	if err != nil || got.State != release.StatePublished {
		t.Fatalf("release after the backstop: %s, %v; want published", got.State, err)
	} // The tick recorded how late its oldest due item was (§8.7), and
	// GET /api/scheduler says it.
	api := healthJSONAt(t, a.Client(t, ""), "/api/scheduler", map[string]string{"Authorization": "Bearer " + secret}, http.StatusOK)
	if api["lagSeconds"] != float64(180) {
		t.Errorf("/api/scheduler lagSeconds = %v, want 180", api["lagSeconds"])
	}
}

// TestHealthAnswers503OnAFullDisk: a write that fails for lack of space
// (SQLite's SQLITE_FULL, made honestly by capping the database at its
// size with max_page_count on the store's one write connection) turns
// /health into 503 "disk full" with the time it began, and it stays so
// while the periodic probe finds no room; once there is room again /health
// answers 200 by itself, without a restart.
func TestHealthAnswers503OnAFullDisk(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	anon := a.Client(t, "")
	healthJSON(t, anon, nil, http.StatusOK)
	if _, err := a.Store.DB().Exec(`PRAGMA max_page_count = 1`); err != nil { // clamped to the file's size
		t.Fatal(err)
	}
	big := content.Body{Title: "Long read", Slug: "long-read", Status: content.StatusDraft, Text: strings.Repeat("Words. ", 12000)}
	if _, err := a.Nodes.CreateNode(ctx, a.Editor, a.Site.ID, release.KindContentEntry, big); err == nil {
		t.Fatal("an 84 kB draft was written into a full database")
	}
	out := healthJSON(t, anon, nil, http.StatusServiceUnavailable)
	since, _ := time.Parse(time.RFC3339, fmt.Sprint(out["since"]))
	if out["status"] != "unavailable" || out["reason"] != "disk full" || out["healthy"] != false || since.IsZero() {
		t.Fatalf("/health after SQLITE_FULL = %v, want 503 disk full with since", out)
	}
	// The probe runs every three seconds: past one, still full.
	time.Sleep(3500 * time.Millisecond)
	if again := healthJSON(t, anon, nil, http.StatusServiceUnavailable); again["since"] != out["since"] {
		t.Fatalf("/health while still full = %v, want the same since %v", again, out["since"])
	}

	if _, err := a.Store.DB().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		res := anon.Do(http.MethodGet, "/health", nil, nil)
		if res.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/health did not recover after room came back: %d %s", res.Status, res.Body)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if _, err := a.Nodes.CreateNode(ctx, a.Editor, a.Site.ID, release.KindContentEntry, big); err != nil {
		t.Fatalf("a write after recovery: %v", err)
	}
}
