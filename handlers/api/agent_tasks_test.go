package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// apiMinter stands in for engine/agents in the handlers' tests.
type apiMinter struct{ n int }

func (m *apiMinter) MintForAutomation(_ context.Context, _ engine.User, _, automationID, _ string, _ policy.Mode, _ []policy.Scope) (string, string, error) {
	m.n++
	return "key_api", "sk_live_" + automationID, nil
}

// TestAPIAgentTaskKeyOnce: POST …/automations with job.kind agent-task
// answers the automation's own key with its secret, once; GET never shows
// the secret; a refused agent task changes nothing and mints no key.
func TestAPIAgentTaskKeyOnce(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	m := &apiMinter{}
	a.Automations.SetKeyMinter(m)
	base := "/api/sites/" + a.Site.ID
	c := a.SignedIn(t, a.Editor)
	csrf := map[string]string{"X-CSRF-Token": c.Token()}
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		return c.JSON(method, base+path, body, csrf)
	}

	before := a.Fingerprint(t)
	status, out := call("POST", "/automations", `{"name": "Triage", "job": {"kind": "agent-task", "instructions": "Read the 404s.",
		"readsUntrustedText": true, "scopes": ["schedules:read", "content:write"]}, "recurrence": {"preset": "daily", "start": "2026-11-09T09:00"}}`)
	apptest.WantError(t, "untrusted", status, out, http.StatusBadRequest, "untrusted_write_scope", "content:write")
	if after := a.Fingerprint(t); after != before || m.n != 0 {
		t.Fatalf("a refused agent task changed the database or minted a key (%d)", m.n)
	}

	status, out = call("POST", "/automations", `{"name": "Morning agent", "job": {"kind": "agent-task",
		"instructions": "Propose the day's article.", "modeCap": "manual", "readsUntrustedText": false, "windowMinutes": 45,
		"budget": {"maxToolCalls": 40, "maxWrites": 5, "maxApprovalRequests": 2, "maxMinutes": 20}},
		"recurrence": {"preset": "daily", "start": "2026-11-09T09:00"}}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, out)
	}
	id, _ := out["id"].(string)
	key, _ := out["key"].(map[string]any)
	secret := "sk_live_" + id
	if key == nil || key["id"] != "key_api" || key["secret"] != secret {
		t.Fatalf("create's key = %v", out["key"])
	}
	job, _ := out["job"].(map[string]any)
	if job["kind"] != "agent-task" || job["modeCap"] != "manual" || job["windowMinutes"] != 45.0 || job["keyId"] != "key_api" ||
		job["readsUntrustedText"] != false {
		t.Fatalf("job = %v", job)
	}
	for _, path := range []string{"/automations/" + id, "/automations"} {
		status, got := call("GET", path, "")
		raw, _ := json.Marshal(got)
		if status != http.StatusOK || strings.Contains(string(raw), secret) || strings.Contains(string(raw), `"key":`) {
			t.Fatalf("GET %s: %d %s", path, status, raw)
		}
	}
}
