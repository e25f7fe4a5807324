package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/policy"
	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/api"
)

// apiRouteTable is the API route table, for its methods, patterns and
// scopes only.
func apiRouteTable() []handlers.Route {
	return handlers.APIRoutes(api.New(&services.Services{}, nil, nil))
}

// tokenFor mints a personal access token for u.
func (a *testApp) tokenFor(t *testing.T, u engine.User) string {
	t.Helper()
	secret, _, err := a.identity.CreateToken(context.Background(), u, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// apiURL fills an API route pattern with the test site and placeholder ids.
func apiURL(pattern, siteID string) string {
	u := strings.ReplaceAll(pattern, "{siteId}", siteID)
	return regexp.MustCompile(`\{\w+\}`).ReplaceAllString(u, "x_placeholder")
}

// message is the error message of an API answer.
func message(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// details is the error details of an API answer.
func details(out map[string]any) map[string]any {
	e, _ := out["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// wantError fails unless the answer is status with code (and, when field
// is set, details.field).
func wantError(t *testing.T, name string, status int, out map[string]any, wantStatus int, code, field string) {
	t.Helper()
	if status != wantStatus || errorCode(out) != code || (field != "" && details(out)["field"] != field) {
		t.Errorf("%s: %d %v, want %d %s (field %q)", name, status, out, wantStatus, code, field)
	}
	if message(out) == "" || strings.HasPrefix(message(out), "error.") {
		t.Errorf("%s: message %q is not a sentence", name, message(out))
	}
}

func TestAPIRouteTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, rt := range apiRouteTable() {
		key := rt.Method + " " + rt.Pattern
		if seen[key] {
			t.Errorf("%s is in the table twice", key)
		}
		seen[key] = true
		if !policy.Known(rt.Scope) && rt.Scope != handlers.DeployToken {
			t.Errorf("%s has scope %q, not a known scope", key, rt.Scope)
		}
		if !strings.HasPrefix(rt.Pattern, "/api/") || rt.Handler == nil {
			t.Errorf("%s: not an API route with a handler", key)
		}
	}

	a := newApp(t)
	contributor := a.tokenFor(t, a.contributor)
	owner := a.tokenFor(t, a.addUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en"))
	before := a.fingerprint(t)
	refused := 0
	for _, rt := range apiRouteTable() {
		u := apiURL(rt.Pattern, a.site.ID)
		body := `{"rev": 1}`
		// Nobody: no token, no session.
		status, out := apiCall(t, a, rt.Method, u, "", body)
		wantError(t, "anonymous "+rt.Method+" "+rt.Pattern, status, out, http.StatusUnauthorized, "unauthenticated", "")
		// A person's token never passes for a deploy token (401, as if it
		// were none), whatever the person's role.
		if rt.Scope == handlers.DeployToken {
			status, out := apiCall(t, a, rt.Method, u, owner, "")
			wantError(t, "owner's token "+rt.Method+" "+rt.Pattern, status, out, http.StatusUnauthorized, "unauthenticated", "")
			continue
		}
		// A contributor, on every route their role does not reach.
		if !policy.Has(policy.Contributor, rt.Scope) {
			refused++
			status, out := apiCall(t, a, rt.Method, u, contributor, body)
			wantError(t, "contributor "+rt.Method+" "+rt.Pattern, status, out, http.StatusForbidden, "forbidden", "")
		}
	}
	if refused == 0 {
		t.Error("no API route needs a scope a contributor lacks; site:settings should")
	}
	if after := a.fingerprint(t); after != before {
		t.Errorf("refused API calls changed state:\nbefore %s\nafter  %s", before, after)
	}
}

func TestAPIReschedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	editor, contributor := a.tokenFor(t, a.editor), a.tokenFor(t, a.contributor)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.site.ID
	u := base + "/releases/" + rel.ID + "/reschedule"

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.fingerprint(t)
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NotJSON", `not json`, "bad_request", ""},
			{"NoRev", `{"date": "2026-11-02", "time": "10:30"}`, "bad_request", "rev"},
			{"NoTime", `{"rev": 1}`, "bad_when", "when"},
			{"BothForms", `{"rev": 1, "date": "2026-11-02", "time": "10:30", "at": "2026-11-02T07:30:00Z"}`, "bad_when", "when"},
			{"WhenAndDate", `{"rev": 1, "when": {"at": "2026-11-02T07:30:00Z"}, "date": "2026-11-02", "time": "10:30"}`, "bad_when", "when"},
			{"WhenNotAForm", `{"rev": 1, "when": {"at": "2026-11-02T07:30:00Z", "timeZone": "UTC"}}`, "bad_when", "when"},
			{"OnApproval", `{"rev": 1, "when": "on-approval"}`, "move_needs_time", "when"},
			{"UnknownZone", `{"rev": 1, "when": {"localTime": "2026-11-02T10:30", "timeZone": "Mars/Olympus"}}`, "unknown_zone", "timeZone"},
			{"WhenPast", `{"rev": 1, "when": {"localTime": "2026-11-01T09:00"}}`, "time_in_past", "localTime"},
			{"UnknownField", `{"rev": 1, "date": "2026-11-02", "time": "10:30", "zone": "UTC"}`, "bad_request", "zone"},
			{"WrongType", `{"rev": "1", "date": "2026-11-02", "time": "10:30"}`, "bad_request", "rev"},
			{"BadDate", `{"rev": 1, "date": "2026-13-01", "time": "10:30"}`, "bad_date", "date"},
			{"BadTime", `{"rev": 1, "date": "2026-11-02", "time": "9am"}`, "bad_time", "time"},
			{"Past", `{"rev": 1, "date": "2026-11-01", "time": "09:00"}`, "time_in_past", "time"},
			{"NotAnInstant", `{"rev": 1, "at": "tomorrow"}`, "bad_instant", "at"},
			{"Seconds", `{"rev": 1, "at": "2026-11-02T07:30:30Z"}`, "bad_at", "at"},
		} {
			status, out := apiCall(t, a, "POST", u, editor, c.Body)
			wantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		if after := a.fingerprint(t); after != before {
			t.Errorf("bad input changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("InTheCallersLanguage", func(t *testing.T) {
		tr := a.addUser(t, "turkish@example.com", "Tuna Editor", policy.Editor, "tr")
		status, out := apiCall(t, a, "POST", u, a.tokenFor(t, tr), `{"rev": 1, "date": "2026-11-01", "time": "09:00"}`)
		if status != http.StatusBadRequest || message(out) != "Bu saat geçti. Daha sonraki bir saat seçin." {
			t.Errorf("%d %v", status, out)
		}
	})

	t.Run("NotTheirs", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", u, contributor, `{"rev": 1, "date": "2026-11-02", "time": "10:30"}`)
		wantError(t, "contributor", status, out, http.StatusForbidden, "forbidden", "")
	})

	t.Run("DateAndTime", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", u, editor, `{"rev": 1, "date": "2026-11-02", "time": "10:30"}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || out["id"] != rel.ID || out["state"] != "scheduled" || out["rev"] != 2.0 ||
			when["localTime"] != "2026-11-02T10:30" || when["at"] != "2026-11-02T07:30:00Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("StaleRev", func(t *testing.T) {
		before := a.fingerprint(t)
		status, out := apiCall(t, a, "POST", u, editor, `{"rev": 1, "date": "2026-11-02", "time": "11:00"}`)
		wantError(t, "stale", status, out, http.StatusConflict, "stale", "")
		if !strings.Contains(message(out), "Load the latest") {
			t.Errorf("message %q", message(out))
		}
		if after := a.fingerprint(t); after != before {
			t.Errorf("a stale reschedule changed state")
		}
	})

	t.Run("Instant", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", u, editor, `{"rev": 2, "at": "2026-11-02T08:00:00Z"}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || when["localTime"] != "2026-11-02T11:00" || out["rev"] != 3.0 {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("OtherSiteOrUnknown", func(t *testing.T) {
		other, err := a.eng.CreateSite(ctx, "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{
			"/api/sites/" + other.ID + "/releases/" + rel.ID + "/reschedule",
			base + "/releases/rel_doesnotexist00/reschedule",
			"/api/sites/site_nope/releases/" + rel.ID + "/reschedule",
		} {
			status, out := apiCall(t, a, "POST", path, editor, `{"rev": 3, "date": "2026-11-02", "time": "12:00"}`)
			wantError(t, path, status, out, http.StatusNotFound, "not_found", "")
		}
		if got := a.release(t, rel.ID); got.Rev != 3 {
			t.Errorf("rev %d after refused moves, want 3", got.Rev)
		}
	})

	// §12's when: a wall-clock time in another zone is kept in that zone,
	// and an instant is kept with the site's wall-clock time.
	t.Run("WhenLocalTimeInAZone", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", u, editor, `{"rev": 3, "when": {"localTime": "2026-11-02T12:00", "timeZone": "Europe/Berlin"}}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || when["localTime"] != "2026-11-02T12:00" || when["timeZone"] != "Europe/Berlin" ||
			when["at"] != "2026-11-02T11:00:00Z" || out["state"] != "scheduled" || out["rev"] != 4.0 {
			t.Fatalf("%d %v", status, out)
		}
	})
	t.Run("WhenAt", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", u, editor, `{"rev": 4, "when": {"at": "2026-11-02T10:00:00Z"}}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || when["localTime"] != "2026-11-02T13:00" || when["timeZone"] != "Europe/Istanbul" ||
			when["at"] != "2026-11-02T10:00:00Z" || out["rev"] != 5.0 {
			t.Fatalf("%d %v", status, out)
		}
	})
}

func TestAPIDiff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	contributor := a.tokenFor(t, a.contributor)
	edited, err := a.nodes.SaveNode(ctx, a.editor, a.site.ID, a.live.ID, 1,
		withTitle(withText(a.live.Body, "This is the first article.\nNow with a second line."), "Welcome, again"))
	if err != nil {
		t.Fatal(err)
	}
	rel := a.scheduleAt(t, a.editor, edited, "2026-11-02", "09:00")
	base := "/api/sites/" + a.site.ID

	status, out := apiCall(t, a, "GET", base+"/releases/"+rel.ID+"/diff", contributor, "")
	items, _ := out["items"].([]any)
	if status != 200 || len(items) != 1 || out["release"].(map[string]any)["id"] != rel.ID {
		t.Fatalf("%d %v", status, out)
	}
	it := items[0].(map[string]any)
	if it["nodeId"] != a.live.ID || it["kind"] != "set" || it["title"] != "Welcome, again" ||
		it["base"].(map[string]any)["rev"] != 1.0 || it["target"].(map[string]any)["rev"] != 2.0 {
		t.Errorf("item %v", it)
	}
	changed := map[string][2]any{}
	for _, f := range it["fields"].([]any) {
		f := f.(map[string]any)
		if f["changed"] == true {
			changed[f["field"].(string)] = [2]any{f["base"], f["target"]}
		}
	}
	if len(changed) != 1 || changed["title"] != [2]any{"Welcome to the Gazette", "Welcome, again"} {
		t.Errorf("changed fields %v, want the title", changed)
	}
	var lines []string
	for _, l := range it["body"].([]any) {
		l := l.(map[string]any)
		lines = append(lines, l["op"].(string)+" "+l["text"].(string))
	}
	if got := strings.Join(lines, "|"); got != "same This is the first article.|added Now with a second line." {
		t.Errorf("body diff %q", got)
	}

	other, err := a.eng.CreateSite(ctx, "Other", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/sites/" + other.ID + "/releases/" + rel.ID + "/diff", base + "/releases/rel_nope/diff"} {
		status, out := apiCall(t, a, "GET", path, contributor, "")
		wantError(t, path, status, out, http.StatusNotFound, "not_found", "")
	}
}

func TestAPIApprovals(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor, contributor := a.tokenFor(t, a.editor), a.tokenFor(t, a.contributor)
	id := a.pendingRequest(t)
	base := "/api/sites/" + a.site.ID
	page := base + "/approvals/" + id

	t.Run("List", func(t *testing.T) {
		for _, c := range []struct {
			Name      string
			Token     string
			CanDecide bool
		}{{"Requester", contributor, false}, {"Editor", editor, true}} {
			status, out := apiCall(t, a, "GET", base+"/approvals", c.Token, "")
			list, _ := out["approvals"].([]any)
			if status != 200 || len(list) != 1 {
				t.Fatalf("%s: %d %v", c.Name, status, out)
			}
			q := list[0].(map[string]any)
			if q["id"] != id || q["status"] != "waiting" || q["canDecide"] != c.CanDecide ||
				q["requestedBy"].(map[string]any)["id"] != a.contributor.ID ||
				q["release"].(map[string]any)["state"] != "awaiting_approval" {
				t.Errorf("%s: %v", c.Name, q)
			}
		}
	})

	t.Run("OneWithItsDiff", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", page, editor, "")
		items, _ := out["items"].([]any)
		if status != 200 || out["id"] != id || len(items) != 1 || items[0].(map[string]any)["title"] != "Press" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.fingerprint(t)
		status, out := apiCall(t, a, "POST", page+"/deny", editor, `{"reason": " "}`)
		wantError(t, "blank reason", status, out, http.StatusBadRequest, "reason_required", "reason")
		status, out = apiCall(t, a, "POST", page+"/deny", editor, `{"why": "no"}`)
		wantError(t, "unknown field", status, out, http.StatusBadRequest, "bad_request", "why")
		status, out = apiCall(t, a, "POST", page+"/approve", editor, `{"rev": 1}`)
		wantError(t, "approve with a body", status, out, http.StatusBadRequest, "bad_request", "rev")
		status, out = apiCall(t, a, "POST", page+"/approve", contributor, "")
		wantError(t, "requester", status, out, http.StatusForbidden, "forbidden", "")
		if after := a.fingerprint(t); after != before {
			t.Errorf("refusals changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Approve", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", page+"/approve", editor, "")
		approval, _ := out["approval"].(map[string]any)
		if status != 200 || out["state"] != "scheduled" || approval["approvalId"] != id ||
			approval["by"].(map[string]any)["id"] != a.editor.ID {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apiCall(t, a, "POST", page+"/approve", editor, "{}")
		wantError(t, "again", status, out, http.StatusUnprocessableEntity, "not_waiting", "")
	})

	t.Run("Deny", func(t *testing.T) {
		id2 := a.pendingRequest2(t)
		status, out := apiCall(t, a, "POST", base+"/approvals/"+id2+"/deny", editor, `{"reason": "Not before the polls close."}`)
		if status != 200 || out["state"] != "draft" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", base+"/approvals/apr_nope", editor, "")
		wantError(t, "unknown", status, out, http.StatusNotFound, "not_found", "")
	})
}

func TestAPIScheduleSettings(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	admin := a.admin(t)
	adminToken, editor, contributor := a.tokenFor(t, admin), a.tokenFor(t, a.editor), a.tokenFor(t, a.contributor)
	u := "/api/sites/" + a.site.ID + "/schedule-settings"

	status, out := apiCall(t, a, "GET", u, contributor, "")
	if status != 200 || out["siteId"] != a.site.ID || out["paused"] != false || out["dailyWriteCap"] != 200.0 ||
		out["rev"] != 0.0 || out["dailyWritesToday"] != 0.0 {
		t.Fatalf("GET: %d %v", status, out)
	}

	before := a.settingsPrint(t)
	for _, tok := range []string{contributor, editor} {
		status, out := apiCall(t, a, "PUT", u, tok, `{"rev": 0, "dailyWriteCap": 150}`)
		wantError(t, "without site:settings", status, out, http.StatusForbidden, "forbidden", "")
	}
	for _, c := range []struct{ Name, Body, Code, Field string }{
		{"NoRev", `{"dailyWriteCap": 150}`, "bad_request", "rev"},
		{"NothingToChange", `{"rev": 0}`, "nothing_to_change", ""},
		{"NegativeCap", `{"rev": 0, "dailyWriteCap": -1}`, "daily_write_cap_out_of_range", "dailyWriteCap"},
		{"CapNotANumber", `{"rev": 0, "dailyWriteCap": "many"}`, "bad_request", "dailyWriteCap"},
		{"PauseWithoutReason", `{"rev": 0, "paused": true}`, "reason_required", "reason"},
		{"ReasonOnTwoLines", `{"rev": 0, "paused": true, "reason": "one\ntwo"}`, "reason_invalid", "reason"},
	} {
		status, out := apiCall(t, a, "PUT", u, adminToken, c.Body)
		wantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
	}
	if after := a.settingsPrint(t); after != before {
		t.Fatalf("refused PUTs changed the settings:\nbefore %s\nafter  %s", before, after)
	}

	status, out = apiCall(t, a, "PUT", u, adminToken, `{"rev": 0, "dailyWriteCap": 150}`)
	if status != 200 || out["dailyWriteCap"] != 150.0 || out["rev"] != 1.0 || out["updatedBy"].(map[string]any)["id"] != admin.ID {
		t.Fatalf("cap: %d %v", status, out)
	}
	status, out = apiCall(t, a, "PUT", u, adminToken, `{"rev": 0, "dailyWriteCap": 120}`)
	wantError(t, "stale", status, out, http.StatusConflict, "stale", "")
	status, out = apiCall(t, a, "PUT", u, adminToken, `{"rev": 1, "paused": true, "reason": "Checking the feed", "dailyWriteCap": 120}`)
	wantError(t, "two changes", status, out, http.StatusUnprocessableEntity, "one_settings_change", "")
	status, out = apiCall(t, a, "PUT", u, adminToken, `{"rev": 1, "paused": true, "reason": "Checking the feed"}`)
	if status != 200 || out["paused"] != true || out["pausedReason"] != "Checking the feed" || out["rev"] != 2.0 ||
		out["pausedBy"].(map[string]any)["id"] != admin.ID || out["dailyWriteCap"] != 150.0 {
		t.Fatalf("pause: %d %v", status, out)
	}
	var audited int
	if err := a.store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action IN ('site.daily_write_cap', 'site.schedules_pause')`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if got := a.settingsPrint(t); !strings.Contains(got, "| 2:1:150:Checking the feed |") || audited != 2 {
		t.Errorf("settings %s with %d audit rows, want rev 2 paused with cap 150, audited twice", got, audited)
	}
}

func TestAPIContent(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	editor, contributor := a.tokenFor(t, a.editor), a.tokenFor(t, a.contributor)
	base := "/api/sites/" + a.site.ID

	t.Run("Lists", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", base+"/entries", contributor, "")
		entries, _ := out["entries"].([]any)
		got := map[string]map[string]any{}
		for _, e := range entries {
			e := e.(map[string]any)
			got[e["id"].(string)] = e
		}
		if status != 200 || len(got) != 2 || got[a.live.ID] == nil || got[a.draft.ID] == nil {
			t.Fatalf("entries: %d %v", status, out)
		}
		if live := got[a.live.ID]; live["title"] != "Welcome to the Gazette" || live["body"] != "This is the first article." ||
			live["live"].(map[string]any)["rev"] != 1.0 || live["kind"] != "contentEntry" {
			t.Errorf("live entry %v", live)
		}
		if _, ok := got[a.draft.ID]["live"]; ok {
			t.Errorf("the draft has a live version: %v", got[a.draft.ID])
		}
		status, out = apiCall(t, a, "GET", base+"/pages", contributor, "")
		if pages, _ := out["pages"].([]any); status != 200 || len(pages) != 1 || pages[0].(map[string]any)["id"] != a.page.ID {
			t.Fatalf("pages: %d %v", status, out)
		}
	})

	t.Run("OneAndTheWrongKind", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", base+"/entries/"+a.draft.ID, contributor, "")
		if status != 200 || out["slug"] != "election-night" || out["rev"] != 1.0 {
			t.Fatalf("%d %v", status, out)
		}
		for _, path := range []string{base + "/entries/" + a.page.ID, base + "/pages/" + a.draft.ID, base + "/entries/ent_nope"} {
			status, out := apiCall(t, a, "GET", path, contributor, "")
			wantError(t, path, status, out, http.StatusNotFound, "not_found", "")
		}
		before := a.fingerprint(t)
		status, out = apiCall(t, a, "PATCH", base+"/pages/"+a.draft.ID, editor, `{"expectedRev": 1, "title": "x"}`)
		wantError(t, "patch across kinds", status, out, http.StatusNotFound, "not_found", "")
		if after := a.fingerprint(t); after != before {
			t.Errorf("a PATCH of the wrong kind changed state")
		}
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.fingerprint(t)
		u := base + "/entries/" + a.draft.ID
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NoRev", `{"title": "x"}`, "bad_request", "expectedRev"},
			{"NothingToChange", `{"expectedRev": 1}`, "nothing_to_change", ""},
			{"Misspelt", `{"expectedRev": 1, "tittle": "x"}`, "bad_request", "tittle"},
			{"TwoObjects", `{"expectedRev": 1, "title": "x"} {}`, "bad_request", ""},
			{"EmptyTitle", `{"expectedRev": 1, "title": " "}`, "title_required", "title"},
			{"BadSlug", `{"expectedRev": 1, "slug": "Not A Slug"}`, "slug_invalid", "slug"},
			{"BadStatus", `{"expectedRev": 1, "status": "live"}`, "status_invalid", "status"},
		} {
			status, out := apiCall(t, a, "PATCH", u, editor, c.Body)
			wantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		if after := a.fingerprint(t); after != before {
			t.Errorf("bad input changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Patch", func(t *testing.T) {
		status, out := apiCall(t, a, "PATCH", base+"/entries/"+a.draft.ID, contributor, `{"expectedRev": 1, "title": "Election night, live"}`)
		if status != 200 || out["rev"] != 2.0 || out["title"] != "Election night, live" ||
			out["summary"] != "Results as they come in." || out["body"] != "Follow the results here." || out["status"] != "draft" {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apiCall(t, a, "PATCH", base+"/pages/"+a.page.ID, editor, `{"expectedRev": 1, "summary": "Who we are."}`)
		if status != 200 || out["summary"] != "Who we are." || out["title"] != "About" {
			t.Fatalf("page: %d %v", status, out)
		}
	})

	t.Run("Stale", func(t *testing.T) {
		status, out := apiCall(t, a, "PATCH", base+"/entries/"+a.draft.ID, editor, `{"expectedRev": 1, "title": "Again"}`)
		wantError(t, "stale", status, out, http.StatusConflict, "stale", "")
		if message(out) != "This changed somewhere else meanwhile. Load the latest version and try again." {
			t.Errorf("message %q", message(out))
		}
	})

	t.Run("HeldNamesTheReleaseAndItsTime", func(t *testing.T) {
		draft, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, a.draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		rel := a.scheduleAt(t, a.editor, draft.Node, "2026-11-02", "09:00")
		cur, _ := a.nodes.Node(context.Background(), a.editor, a.site.ID, a.draft.ID)
		body := fmt.Sprintf(`{"expectedRev": %d, "title": "Late change"}`, cur.Rev)
		a.setLang(t, a.contributor, "tr")
		before := a.fingerprint(t)
		status, out := apiCall(t, a, "PATCH", base+"/entries/"+a.draft.ID, editor, body)
		wantError(t, "held", status, out, http.StatusConflict, "scheduled_locked", "")
		if d := details(out); d["release"] != rel.ID || d["when"] != "2026-11-02T06:00:00Z" {
			t.Errorf("details %v", d)
		}
		if want := "This is scheduled to be published on 2 November 2026, 09:00 and cannot be changed. Unschedule it first."; message(out) != want {
			t.Errorf("message %q, want %q", message(out), want)
		}
		status, out = apiCall(t, a, "PATCH", base+"/entries/"+a.draft.ID, contributor, body)
		if want := "Bu içerik 2 Kasım 2026 09:00 için yayıma zamanlandığından değiştirilemez. Önce zamanlamayı kaldırın."; status != 409 || message(out) != want {
			t.Errorf("Turkish: %d %q, want %q", status, message(out), want)
		}
		status, out = apiCall(t, a, "GET", base+"/entries/"+a.draft.ID, contributor, "")
		if held, _ := out["heldBy"].(map[string]any); status != 200 || held["releaseId"] != rel.ID || held["state"] != "scheduled" {
			t.Errorf("GET of a held entry: %d %v", status, out)
		}
		if after := a.fingerprint(t); after != before {
			t.Errorf("a refused PATCH changed state")
		}
	})
}

// sessionCall sends a JSON API request from a browser: c's cookies, no
// token.
func sessionCall(t *testing.T, c *client, method, path, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, c.app.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.lang != "" {
		req.Header.Set("Accept-Language", c.lang)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: not JSON: %v", method, path, err)
	}
	return res.StatusCode, out
}

func TestAPISession(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.site.ID
	c := a.signedIn(t, a.editor)
	token := c.token()

	t.Run("ReadsAsThePerson", func(t *testing.T) {
		status, out := sessionCall(t, c, "GET", base+"/notifications", "", nil)
		if status != 200 || out["notifications"] == nil {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("ChangesNeedTheCSRFToken", func(t *testing.T) {
		before := a.fingerprint(t)
		for _, h := range []map[string]string{nil, {"X-CSRF-Token": wrongToken(token)}, {"X-CSRF-Token": a.client(t, "").csrf("/studio/login")}} {
			status, out := sessionCall(t, c, "POST", base+"/releases/"+rel.ID+"/cancel", `{"rev": 1}`, h)
			wantError(t, fmt.Sprint("cancel with ", h), status, out, http.StatusForbidden, "csrf", "")
			status, out = sessionCall(t, c, "PATCH", base+"/entries/"+a.live.ID, `{"expectedRev": 1, "title": "x"}`, h)
			wantError(t, fmt.Sprint("patch with ", h), status, out, http.StatusForbidden, "csrf", "")
		}
		if after := a.fingerprint(t); after != before {
			t.Errorf("requests without the CSRF token changed state:\nbefore %s\nafter  %s", before, after)
		}
		status, out := sessionCall(t, c, "POST", base+"/releases/"+rel.ID+"/cancel", `{"rev": 1}`, map[string]string{"X-CSRF-Token": token})
		if status != 200 || out["state"] != "canceled" {
			t.Fatalf("with the token: %d %v", status, out)
		}
	})

	t.Run("TheTokenWinsOverTheCookie", func(t *testing.T) {
		for _, auth := range []string{"Bearer studio_pat_wrong", "Basic ZWRpdG9yOnBhc3M="} {
			status, out := sessionCall(t, c, "GET", "/api/sites", "", map[string]string{"Authorization": auth})
			wantError(t, auth, status, out, http.StatusUnauthorized, "unauthenticated", "")
		}
	})

	t.Run("SignedOutIsNobody", func(t *testing.T) {
		anon := a.client(t, "")
		anon.csrf("/studio/login") // a session without a person
		status, out := sessionCall(t, anon, "GET", "/api/sites", "", nil)
		wantError(t, "anonymous session", status, out, http.StatusUnauthorized, "unauthenticated", "")
		c.check(t, scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther})
		status, out = sessionCall(t, c, "GET", "/api/sites", "", nil)
		wantError(t, "after sign-out", status, out, http.StatusUnauthorized, "unauthenticated", "")
	})
}

func TestAPIRevokedToken(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	secret, tok, err := a.identity.CreateToken(context.Background(), a.editor, "deploy script", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, out := apiCall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("before: %d %v", status, out)
	}
	c := a.signedIn(t, a.editor)
	c.check(t, scenario{Name: "Revoke", Method: "POST", URL: "/studio/tokens/" + tok.ID + "/revoke",
		Form: url.Values{"csrf_token": {c.token()}}, ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/tokens"}})
	for _, path := range []string{"/api/sites", "/api/sites/" + a.site.ID + "/releases"} {
		status, out := apiCall(t, a, "GET", path, secret, "")
		wantError(t, "revoked "+path, status, out, http.StatusUnauthorized, "unauthenticated", "")
	}
}

var secretRe = regexp.MustCompile(`value="(studio_pat_[A-Za-z0-9]+)"`)

func TestTokensPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	token := c.token()

	runScenarios(t, c, []scenario{
		{Name: "Empty", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Access tokens</h1>", `data-testid="tokens-empty">You have no access tokens.</p>`,
				`href="/studio/account" class="who-link" data-testid="account-link" aria-current="page">Your account</a>`,
				`action="/studio/tokens"`},
			NotExpectedContent: []string{`data-testid="new-secret"`}},
		{Name: "LinkOnEveryPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="account-link">Your account</a>`}},
		{Name: "FromYourAccount", URL: "/studio/account", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`href="/studio/tokens" data-testid="tokens-link">Open your access tokens</a>`}},
		{Name: "NoName", Method: "POST", URL: "/studio/tokens", Form: url.Values{"csrf_token": {token}, "name": {"  "}},
			ExpectedStatus:     http.StatusUnprocessableEntity,
			ExpectedContent:    []string{`data-testid="error-name">Name the token in one line (at most 120 characters).</p>`},
			NotExpectedContent: []string{`data-testid="new-secret"`}},
	})

	res := c.check(t, scenario{Name: "Create", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {token}, "name": {"deploy script"}}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-secret"`, "Your new token “deploy script”",
			"Copy it now: it is shown only this once.", "<td>deploy script</td>", "Never"},
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	m := secretRe.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no secret in the page:\n%s", excerpt(res.Body))
	}
	secret := m[1]
	if status, out := apiCall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("the new token does not work: %d %v", status, out)
	}
	list, err := a.identity.Tokens(context.Background(), a.editor)
	if err != nil || len(list) != 1 {
		t.Fatalf("tokens %v, %v", list, err)
	}
	id := list[0].ID

	runScenarios(t, c, []scenario{
		{Name: "ShownOnce", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<td>deploy script</td>", `<time datetime="2026-11-02T05:00:00Z">2 November 2026, 08:00</time>`,
				`data-testid="revoke-open"`, `href="/studio/tokens?revoke=` + id + `#revoke-` + id + `"`},
			NotExpectedContent: []string{secret, `data-testid="new-secret"`, "Never"}},
		{Name: "ConfirmWithoutJavaScript", URL: "/studio/tokens?revoke=" + id, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="revoke-` + id + `" class="confirm" aria-labelledby="revoke-` + id + `-title" open>`,
				"Revoke “deploy script”?", "Scripts that use this token stop working at once."}},
	})

	// Someone else cannot revoke it, or see it.
	other := a.signedIn(t, a.contributor)
	other.check(t, scenario{Name: "NotTheirs", Method: "POST", URL: "/studio/tokens/" + id + "/revoke",
		Form: url.Values{"csrf_token": {other.token()}}, ExpectedStatus: http.StatusNotFound})
	other.check(t, scenario{Name: "NotListed", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"<td>deploy script</td>"}})
	if status, _ := apiCall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("someone else's refused revoke stopped the token: %d", status)
	}

	runScenarios(t, c, []scenario{
		{Name: "Revoke", Method: "POST", URL: "/studio/tokens/" + id + "/revoke", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/tokens"}},
		{Name: "Revoked", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<p class="notice">Token revoked. It no longer works.</p>`, "You have no access tokens."},
			NotExpectedContent: []string{"<td>deploy script</td>"}},
	})
	if status, _ := apiCall(t, a, "GET", "/api/sites", secret, ""); status != http.StatusUnauthorized {
		t.Errorf("a revoked token answers %d, want 401", status)
	}

	a.setLang(t, a.contributor, "tr")
	other.check(t, scenario{Name: "Turkish", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "<h1>Erişim anahtarları</h1>", "Hiç erişim anahtarınız yok.",
			"Anahtar oluştur"},
		NotExpectedContent: []string{"Access tokens", "Create token"}})
}

func withText(b content.Body, text string) content.Body {
	b.Text = text
	return b
}
