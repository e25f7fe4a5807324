package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// TestOperatorRoutes (issue 16, §13): a deploy token reaches the operator
// routes and nothing else; the status covers the scheduler with the last 7
// days' lateness, which GET /api/scheduler shows people too; run-due is a
// manual tick that publishes what is due; a revoked deploy token stops at
// once. /api/instance reports features.schedules.
func TestOperatorRoutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	deploy, tok, err := a.Identity.CreateDeployToken(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	editor := a.TokenFor(t, a.Editor)

	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	// A tick just before keeps the heartbeat fresh, so no request's
	// backstop runs the release before the operator's tick does.
	a.Clock.Set(nine.Add(-30 * time.Second))
	if _, err := a.Scheduler.RunDue(ctx, "node"); err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(nine.Add(2 * time.Second))
	status, out := apptest.APICall(t, a, http.MethodPost, "/api/admin/schedules/run-due", deploy, "")
	if status != http.StatusOK || out["published"] != 1.0 || out["failed"] != 0.0 {
		t.Fatalf("run-due: %d %v", status, out)
	}
	if got, err := a.Releases.Release(ctx, a.Editor, a.Site.ID, rel.ID); err != nil || got.State != release.StatePublished {
		t.Fatalf("after run-due the release is %v (%v)", got.State, err)
	}

	week := func(out map[string]any) map[string]any { m, _ := out["lateness7d"].(map[string]any); return m }
	status, out = apptest.APICall(t, a, http.MethodGet, "/api/admin/schedules/status", deploy, "")
	if status != http.StatusOK || out["healthy"] != true || out["trigger"] != "manual" {
		t.Fatalf("status: %d %v", status, out)
	}
	if w := week(out); w["published"] != 1.0 || w["p50Seconds"] != 2.0 || w["p95Seconds"] != 2.0 {
		t.Errorf("status: lateness7d %v, want one release 2 s late", w)
	}
	status, out = apptest.APICall(t, a, http.MethodGet, "/api/scheduler", editor, "")
	if w := week(out); status != http.StatusOK || w["published"] != 1.0 || w["p95Seconds"] != 2.0 {
		t.Errorf("/api/scheduler: %d lateness7d %v", status, w)
	}
	a.Clock.Set(nine.Add(8 * 24 * time.Hour)) // a week on, the window is empty
	if _, out = apptest.APICall(t, a, http.MethodGet, "/api/scheduler", editor, ""); week(out)["published"] != 0.0 {
		t.Errorf("/api/scheduler eight days later: lateness7d %v", week(out))
	}

	// A deploy token reaches no site, no person's route.
	for _, path := range []string{"/api/sites", "/api/scheduler", "/api/instance", "/api/sites/" + a.Site.ID + "/releases"} {
		status, out := apptest.APICall(t, a, http.MethodGet, path, deploy, "")
		apptest.WantError(t, "deploy token on "+path, status, out, http.StatusUnauthorized, "unauthenticated", "")
	}

	status, out = apptest.APICall(t, a, http.MethodGet, "/api/instance", editor, "")
	s, _ := out["features"].(map[string]any)["schedules"].(map[string]any)
	limits, _ := s["limits"].(map[string]any)
	if status != http.StatusOK || s["available"] != true || s["scheduler"] != "node" || s["gates"] != true ||
		limits["maxItems"] != 100.0 || limits["horizonDays"] != 366.0 || limits["requestHorizonDays"] != 30.0 || limits["lateMinutes"] != 60.0 {
		t.Errorf("/api/instance: %d %v", status, out)
	}

	if err := a.Identity.RevokeDeployToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	status, out = apptest.APICall(t, a, http.MethodGet, "/api/admin/schedules/status", deploy, "")
	apptest.WantError(t, "a revoked deploy token", status, out, http.StatusUnauthorized, "unauthenticated", "")
}
