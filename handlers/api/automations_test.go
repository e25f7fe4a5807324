package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"testing"
)

// The automations API (§13): people create and change automations through
// their session (automations:manage is on no token); scripts read them and
// their runs; bad input is refused with one code per rule and changes
// nothing; PATCH is compare-and-swap on rev.
func TestAPIAutomations(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	base := "/api/sites/" + a.Site.ID
	token := a.TokenFor(t, a.Editor)
	c := a.SignedIn(t, a.Editor)
	csrf := map[string]string{"X-CSRF-Token": c.Token()}
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		return c.JSON(method, base+path, body, csrf)
	}
	automationRows := func() string {
		t.Helper()
		var s string
		if err := a.Store.DB().QueryRow(`SELECT (SELECT count(*) FROM automations) || '/' || (SELECT count(*) FROM audit) || '/' ||
			(SELECT count(*) FROM schedule_runs)`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	weekly := `{"name": "Broken links", "job": {"kind": "builtin", "builtin": "broken-links"},
		"recurrence": {"preset": "weekly", "start": "2026-11-09T07:10"}}`
	t.Run("NotWithAToken", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", base+"/automations", token, weekly)
		apptest.WantError(t, "token", status, out, http.StatusForbidden, "forbidden", "")
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := automationRows()
		for _, tc := range []struct{ Name, Body, Code, Field string }{
			{"NoName", `{"name": "", "job": {"kind": "builtin", "builtin": "broken-links"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "bad_name", "name"},
			{"TwoLines", `{"name": "a\nb", "job": {"kind": "builtin", "builtin": "broken-links"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "bad_name", "name"},
			{"AgentTaskWithoutInstructions", `{"name": "x", "job": {"kind": "agent-task"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "bad_instructions", "job.instructions"},
			{"UnknownKind", `{"name": "x", "job": {"kind": "script"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "unknown_job_kind", "job.kind"},
			{"UnknownBuiltin", `{"name": "x", "job": {"kind": "builtin", "builtin": "spam"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "unknown_builtin", ""},
			{"StaleTooSoon", `{"name": "x", "job": {"kind": "builtin", "builtin": "stale-content", "staleAfterDays": 10}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10"}}`, "stale_after_days_out_of_range", ""},
			{"BadZone", `{"name": "x", "job": {"kind": "builtin", "builtin": "broken-links"}, "recurrence": {"preset": "daily", "start": "2026-11-09T07:10", "timeZone": "Mars/Olympus"}}`, "bad_zone", ""},
			{"CountAndUntil", `{"name": "x", "job": {"kind": "builtin", "builtin": "broken-links"}, "recurrence": {"preset": "custom", "rule": "FREQ=DAILY;COUNT=3;UNTIL=20261201T000000Z", "start": "2026-11-09T07:10"}}`, "bad_rule", ""},
			{"TooOften", `{"name": "x", "job": {"kind": "builtin", "builtin": "broken-links"}, "recurrence": {"preset": "custom", "rule": "FREQ=DAILY;BYHOUR=7;BYMINUTE=0,30", "start": "2026-11-09T07:00"}}`, "bad_rule", ""},
		} {
			status, out := call("POST", "/automations", tc.Body)
			e, _ := out["error"].(map[string]any)
			if status < 400 || status >= 500 || e == nil || e["code"] != tc.Code || e["message"] == "" {
				t.Errorf("%s: %d %v, want a 4xx %s with a sentence", tc.Name, status, out, tc.Code)
			}
			if d, _ := e["details"].(map[string]any); tc.Field != "" && (d == nil || d["field"] != tc.Field) {
				t.Errorf("%s: details %v, want field %s", tc.Name, e["details"], tc.Field)
			}
		}
		if after := automationRows(); after != before {
			t.Errorf("refused automations changed rows: %s → %s", before, after)
		}
	})

	var id string
	t.Run("Create", func(t *testing.T) {
		status, out := call("POST", "/automations", weekly)
		if status != http.StatusCreated || out["state"] != "active" || out["rev"] != 1.0 {
			t.Fatalf("%d %v", status, out)
		}
		id, _ = out["id"].(string)
		job, _ := out["job"].(map[string]any)
		rc, _ := out["recurrence"].(map[string]any)
		may, _ := out["abilities"].(map[string]any)
		if !strings.HasPrefix(id, "aut_") || job["builtin"] != "broken-links" || rc["preset"] != "weekly" ||
			rc["timeZone"] != "Europe/Istanbul" || out["nextRunAt"] != "2026-11-09T04:10:00Z" || may["pause"] != true {
			t.Fatalf("%v", out)
		}
		status, out = apptest.APICall(t, a, "GET", base+"/automations", token, "")
		list, _ := out["automations"].([]any)
		if status != 200 || len(list) != 1 {
			t.Fatalf("list with a token: %d %v", status, out)
		}
		if may, _ := list[0].(map[string]any)["abilities"].(map[string]any); may["edit"] != false {
			t.Errorf("a token's abilities %v, want no changes", may)
		}
	})

	t.Run("PatchIsCompareAndSwap", func(t *testing.T) {
		status, out := call("PATCH", "/automations/"+id, `{"rev": 1, "name": "Links, weekly"}`)
		if status != 200 || out["name"] != "Links, weekly" || out["rev"] != 2.0 {
			t.Fatalf("%d %v", status, out)
		}
		before := automationRows()
		status, out = call("PATCH", "/automations/"+id, `{"rev": 1, "name": "Lost update"}`)
		apptest.WantError(t, "stale", status, out, http.StatusConflict, "stale", "")
		if after := automationRows(); after != before {
			t.Errorf("a stale patch changed rows")
		}
	})

	t.Run("PauseResume", func(t *testing.T) {
		if status, out := call("POST", "/automations/"+id+"/pause", `{"rev": 2}`); status != 200 || out["state"] != "paused" || out["pausedReason"] != "person" {
			t.Fatalf("pause: %d %v", status, out)
		}
		if status, out := call("POST", "/automations/"+id+"/resume", `{"rev": 3}`); status != 200 || out["state"] != "active" {
			t.Fatalf("resume: %d %v", status, out)
		}
	})

	t.Run("PreviewRuleAcrossAClockChange", func(t *testing.T) {
		tr := a.SignedIn(t, a.AddUser(t, "tuna@example.com", "Tuna Editor", policy.Editor, "tr"))
		status, out := tr.JSON("POST", base+"/automations/preview-rule",
			`{"preset": "daily", "start": "2027-03-28T02:30", "timeZone": "Europe/Berlin"}`, map[string]string{"X-CSRF-Token": tr.Token()})
		next, _ := out["next"].([]any)
		if status != 200 || len(next) != 5 {
			t.Fatalf("%d %v", status, out)
		}
		first, _ := next[0].(map[string]any)
		if first["adjusted"] != "dst-gap" || first["at"] != "2027-03-28T01:30:00Z" {
			t.Errorf("first run %v, want 03:30 CEST (the clock skips 02:30), marked dst-gap", first)
		}
		if s, _ := out["sentence"].(string); !strings.Contains(s, "Her gün") {
			t.Errorf("sentence %q, want Turkish", s)
		}
	})

	t.Run("RunNowAndRuns", func(t *testing.T) {
		status, run := call("POST", "/automations/"+id+"/run-now", ``)
		subject, _ := run["subject"].(map[string]any)
		if status != http.StatusAccepted || subject["automationId"] != id || run["trigger"] != "manual" {
			t.Fatalf("%d %v", status, run)
		}
		// Asked again while it runs (a retry, a double click): the same
		// run, 200, nothing new.
		if status, again := call("POST", "/automations/"+id+"/run-now", ``); status != http.StatusOK || again["id"] != run["id"] {
			t.Fatalf("run-now again: %d %v, want 200 with run %v", status, again, run["id"])
		}
		status, out := apptest.APICall(t, a, "GET", base+"/runs?automationId="+id, token, "")
		runs, _ := out["runs"].([]any)
		if status != 200 || len(runs) != 1 || runs[0].(map[string]any)["id"] != run["id"] {
			t.Fatalf("runs: %d %v", status, out)
		}
		if status, one := apptest.APICall(t, a, "GET", base+"/runs/"+run["id"].(string), token, ""); status != 200 || one["state"] != run["state"] {
			t.Fatalf("run: %d %v", status, one)
		}
		status, out = apptest.APICall(t, a, "GET", base+"/runs?state=done", token, "")
		apptest.WantError(t, "bad state", status, out, http.StatusBadRequest, "unknown_run_state", "state")
	})

	t.Run("Delete", func(t *testing.T) {
		_, out := call("GET", "/automations/"+id, "")
		rev := out["rev"].(float64)
		if status, out := call("DELETE", "/automations/"+id+"?rev=1", ""); status != http.StatusConflict {
			t.Fatalf("stale delete: %d %v", status, out)
		}
		if status, out := call("DELETE", "/automations/"+id+"?rev="+fmt.Sprint(int64(rev)), ""); status != 200 || out["deleted"] != true {
			t.Fatalf("delete: %d %v", status, out)
		}
		status, out := call("GET", "/automations/"+id, "")
		apptest.WantError(t, "deleted", status, out, http.StatusNotFound, "not_found", "")
	})
}
