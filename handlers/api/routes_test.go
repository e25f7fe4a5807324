package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/internal/apptest"
)

// apiURL fills an API route pattern with the test site and placeholder ids.
func apiURL(pattern, siteID string) string {
	u := strings.ReplaceAll(pattern, "{siteId}", siteID)
	return regexp.MustCompile(`\{\w+\}`).ReplaceAllString(u, "x_placeholder")
}

func TestAPIRouteTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, rt := range apptest.APIRouteTable() {
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

	a := apptest.New(t)
	contributor := a.TokenFor(t, a.Contributor)
	owner := a.TokenFor(t, a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en"))
	before := a.Fingerprint(t)
	refused := 0
	for _, rt := range apptest.APIRouteTable() {
		u := apiURL(rt.Pattern, a.Site.ID)
		body := `{"rev": 1}`
		// Nobody: no token, no session.
		status, out := apptest.APICall(t, a, rt.Method, u, "", body)
		apptest.WantError(t, "anonymous "+rt.Method+" "+rt.Pattern, status, out, http.StatusUnauthorized, "unauthenticated", "")
		// A person's token never passes for a deploy token (401, as if it
		// were none), whatever the person's role.
		if rt.Scope == handlers.DeployToken {
			status, out := apptest.APICall(t, a, rt.Method, u, owner, "")
			apptest.WantError(t, "owner's token "+rt.Method+" "+rt.Pattern, status, out, http.StatusUnauthorized, "unauthenticated", "")
			continue
		}
		// A contributor, on every route their role does not reach.
		if !policy.Has(policy.Contributor, rt.Scope) {
			refused++
			status, out := apptest.APICall(t, a, rt.Method, u, contributor, body)
			apptest.WantError(t, "contributor "+rt.Method+" "+rt.Pattern, status, out, http.StatusForbidden, "forbidden", "")
		}
	}
	if refused == 0 {
		t.Error("no API route needs a scope a contributor lacks; site:settings should")
	}
	if after := a.Fingerprint(t); after != before {
		t.Errorf("refused API calls changed state:\nbefore %s\nafter  %s", before, after)
	}
}

func TestAPIReschedule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.Site.ID
	u := base + "/releases/" + rel.ID + "/reschedule"

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.Fingerprint(t)
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
			status, out := apptest.APICall(t, a, "POST", u, editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("bad input changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("InTheCallersLanguage", func(t *testing.T) {
		tr := a.AddUser(t, "turkish@example.com", "Tuna Editor", policy.Editor, "tr")
		status, out := apptest.APICall(t, a, "POST", u, a.TokenFor(t, tr), `{"rev": 1, "date": "2026-11-01", "time": "09:00"}`)
		if status != http.StatusBadRequest || apptest.Message(out) != "Bu saat geçti. Daha sonraki bir saat seçin." {
			t.Errorf("%d %v", status, out)
		}
	})

	t.Run("NotTheirs", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", u, contributor, `{"rev": 1, "date": "2026-11-02", "time": "10:30"}`)
		apptest.WantError(t, "contributor", status, out, http.StatusForbidden, "forbidden", "")
	})

	t.Run("DateAndTime", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", u, editor, `{"rev": 1, "date": "2026-11-02", "time": "10:30"}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || out["id"] != rel.ID || out["state"] != "scheduled" || out["rev"] != 2.0 ||
			when["localTime"] != "2026-11-02T10:30" || when["at"] != "2026-11-02T07:30:00Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("StaleRev", func(t *testing.T) {
		before := a.Fingerprint(t)
		status, out := apptest.APICall(t, a, "POST", u, editor, `{"rev": 1, "date": "2026-11-02", "time": "11:00"}`)
		apptest.WantError(t, "stale", status, out, http.StatusConflict, "stale", "")
		if !strings.Contains(apptest.Message(out), "Load the latest") {
			t.Errorf("message %q", apptest.Message(out))
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("a stale reschedule changed state")
		}
	})

	t.Run("Instant", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", u, editor, `{"rev": 2, "at": "2026-11-02T08:00:00Z"}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || when["localTime"] != "2026-11-02T11:00" || out["rev"] != 3.0 {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("OtherSiteOrUnknown", func(t *testing.T) {
		other, err := a.Engine.CreateSite(ctx, "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{
			"/api/sites/" + other.ID + "/releases/" + rel.ID + "/reschedule",
			base + "/releases/rel_doesnotexist00/reschedule",
			"/api/sites/site_nope/releases/" + rel.ID + "/reschedule",
		} {
			status, out := apptest.APICall(t, a, "POST", path, editor, `{"rev": 3, "date": "2026-11-02", "time": "12:00"}`)
			apptest.WantError(t, path, status, out, http.StatusNotFound, "not_found", "")
		}
		if got := a.Release(t, rel.ID); got.Rev != 3 {
			t.Errorf("rev %d after refused moves, want 3", got.Rev)
		}
	})

	// §12's when: a wall-clock time in another zone is kept in that zone,
	// and an instant is kept with the site's wall-clock time.
	t.Run("WhenLocalTimeInAZone", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", u, editor, `{"rev": 3, "when": {"localTime": "2026-11-02T12:00", "timeZone": "Europe/Berlin"}}`)
		when, _ := out["when"].(map[string]any)
		if status != 200 || when["localTime"] != "2026-11-02T12:00" || when["timeZone"] != "Europe/Berlin" ||
			when["at"] != "2026-11-02T11:00:00Z" || out["state"] != "scheduled" || out["rev"] != 4.0 {
			t.Fatalf("%d %v", status, out)
		}
	})
	t.Run("WhenAt", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", u, editor, `{"rev": 4, "when": {"at": "2026-11-02T10:00:00Z"}}`)
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
	a := apptest.New(t)
	contributor := a.TokenFor(t, a.Contributor)
	edited, err := a.Nodes.SaveNode(ctx, a.Editor, a.Site.ID, a.Live.ID, 1,
		apptest.WithTitle(withText(a.Live.Body, "This is the first article.\nNow with a second line."), "Welcome, again"))
	if err != nil {
		t.Fatal(err)
	}
	rel := a.ScheduleAt(t, a.Editor, edited, "2026-11-02", "09:00")
	base := "/api/sites/" + a.Site.ID

	status, out := apptest.APICall(t, a, "GET", base+"/releases/"+rel.ID+"/diff", contributor, "")
	items, _ := out["items"].([]any)
	if status != 200 || len(items) != 1 || out["release"].(map[string]any)["id"] != rel.ID {
		t.Fatalf("%d %v", status, out)
	}
	it := items[0].(map[string]any)
	if it["nodeId"] != a.Live.ID || it["kind"] != "set" || it["title"] != "Welcome, again" ||
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

	other, err := a.Engine.CreateSite(ctx, "Other", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/sites/" + other.ID + "/releases/" + rel.ID + "/diff", base + "/releases/rel_nope/diff"} {
		status, out := apptest.APICall(t, a, "GET", path, contributor, "")
		apptest.WantError(t, path, status, out, http.StatusNotFound, "not_found", "")
	}
}

func TestAPIApprovals(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	id := a.PendingRequest(t)
	base := "/api/sites/" + a.Site.ID
	page := base + "/approvals/" + id

	t.Run("List", func(t *testing.T) {
		for _, c := range []struct {
			Name      string
			Token     string
			CanDecide bool
		}{{"Requester", contributor, false}, {"Editor", editor, true}} {
			status, out := apptest.APICall(t, a, "GET", base+"/approvals", c.Token, "")
			list, _ := out["approvals"].([]any)
			if status != 200 || len(list) != 1 {
				t.Fatalf("%s: %d %v", c.Name, status, out)
			}
			q := list[0].(map[string]any)
			if q["id"] != id || q["status"] != "waiting" || q["canDecide"] != c.CanDecide ||
				q["requestedBy"].(map[string]any)["id"] != a.Contributor.ID ||
				q["release"].(map[string]any)["state"] != "awaiting_approval" {
				t.Errorf("%s: %v", c.Name, q)
			}
		}
	})

	t.Run("OneWithItsDiff", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", page, editor, "")
		items, _ := out["items"].([]any)
		if status != 200 || out["id"] != id || len(items) != 1 || items[0].(map[string]any)["title"] != "Press" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.Fingerprint(t)
		status, out := apptest.APICall(t, a, "POST", page+"/deny", editor, `{"reason": " "}`)
		apptest.WantError(t, "blank reason", status, out, http.StatusBadRequest, "reason_required", "reason")
		status, out = apptest.APICall(t, a, "POST", page+"/deny", editor, `{"why": "no"}`)
		apptest.WantError(t, "unknown field", status, out, http.StatusBadRequest, "bad_request", "why")
		status, out = apptest.APICall(t, a, "POST", page+"/approve", editor, `{"rev": 1}`)
		apptest.WantError(t, "approve with a body", status, out, http.StatusBadRequest, "bad_request", "rev")
		status, out = apptest.APICall(t, a, "POST", page+"/approve", contributor, "")
		apptest.WantError(t, "requester", status, out, http.StatusForbidden, "forbidden", "")
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refusals changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Approve", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", page+"/approve", editor, "")
		approval, _ := out["approval"].(map[string]any)
		if status != 200 || out["state"] != "scheduled" || approval["approvalId"] != id ||
			approval["by"].(map[string]any)["id"] != a.Editor.ID {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "POST", page+"/approve", editor, "{}")
		apptest.WantError(t, "again", status, out, http.StatusUnprocessableEntity, "not_waiting", "")
	})

	t.Run("Deny", func(t *testing.T) {
		id2 := a.PendingRequest2(t)
		status, out := apptest.APICall(t, a, "POST", base+"/approvals/"+id2+"/deny", editor, `{"reason": "Not before the polls close."}`)
		if status != 200 || out["state"] != "draft" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/approvals/apr_nope", editor, "")
		apptest.WantError(t, "unknown", status, out, http.StatusNotFound, "not_found", "")
	})
}

func TestAPIScheduleSettings(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	admin := a.Admin(t)
	adminToken, editor, contributor := a.TokenFor(t, admin), a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	u := "/api/sites/" + a.Site.ID + "/schedule-settings"

	status, out := apptest.APICall(t, a, "GET", u, contributor, "")
	if status != 200 || out["siteId"] != a.Site.ID || out["paused"] != false || out["dailyWriteCap"] != 200.0 ||
		out["rev"] != 0.0 || out["dailyWritesToday"] != 0.0 {
		t.Fatalf("GET: %d %v", status, out)
	}

	before := a.SettingsPrint(t)
	for _, tok := range []string{contributor, editor} {
		status, out := apptest.APICall(t, a, "PUT", u, tok, `{"rev": 0, "dailyWriteCap": 150}`)
		apptest.WantError(t, "without site:settings", status, out, http.StatusForbidden, "forbidden", "")
	}
	for _, c := range []struct{ Name, Body, Code, Field string }{
		{"NoRev", `{"dailyWriteCap": 150}`, "bad_request", "rev"},
		{"NothingToChange", `{"rev": 0}`, "nothing_to_change", ""},
		{"NegativeCap", `{"rev": 0, "dailyWriteCap": -1}`, "daily_write_cap_out_of_range", "dailyWriteCap"},
		{"CapNotANumber", `{"rev": 0, "dailyWriteCap": "many"}`, "bad_request", "dailyWriteCap"},
		{"PauseWithoutReason", `{"rev": 0, "paused": true}`, "reason_required", "reason"},
		{"ReasonOnTwoLines", `{"rev": 0, "paused": true, "reason": "one\ntwo"}`, "reason_invalid", "reason"},
	} {
		status, out := apptest.APICall(t, a, "PUT", u, adminToken, c.Body)
		apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
	}
	if after := a.SettingsPrint(t); after != before {
		t.Fatalf("refused PUTs changed the settings:\nbefore %s\nafter  %s", before, after)
	}

	status, out = apptest.APICall(t, a, "PUT", u, adminToken, `{"rev": 0, "dailyWriteCap": 150}`)
	if status != 200 || out["dailyWriteCap"] != 150.0 || out["rev"] != 1.0 || out["updatedBy"].(map[string]any)["id"] != admin.ID {
		t.Fatalf("cap: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "PUT", u, adminToken, `{"rev": 0, "dailyWriteCap": 120}`)
	apptest.WantError(t, "stale", status, out, http.StatusConflict, "stale", "")
	status, out = apptest.APICall(t, a, "PUT", u, adminToken, `{"rev": 1, "paused": true, "reason": "Checking the feed", "dailyWriteCap": 120}`)
	apptest.WantError(t, "two changes", status, out, http.StatusUnprocessableEntity, "one_settings_change", "")
	status, out = apptest.APICall(t, a, "PUT", u, adminToken, `{"rev": 1, "paused": true, "reason": "Checking the feed"}`)
	if status != 200 || out["paused"] != true || out["pausedReason"] != "Checking the feed" || out["rev"] != 2.0 ||
		out["pausedBy"].(map[string]any)["id"] != admin.ID || out["dailyWriteCap"] != 150.0 {
		t.Fatalf("pause: %d %v", status, out)
	}
	var audited int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE action IN ('site.daily_write_cap', 'site.schedules_pause')`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if got := a.SettingsPrint(t); !strings.Contains(got, "| 2:1:150:Checking the feed |") || audited != 2 {
		t.Errorf("settings %s with %d audit rows, want rev 2 paused with cap 150, audited twice", got, audited)
	}
}

func TestAPIContent(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	base := "/api/sites/" + a.Site.ID

	t.Run("Lists", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/entries", contributor, "")
		entries, _ := out["entries"].([]any)
		got := map[string]map[string]any{}
		for _, e := range entries {
			e := e.(map[string]any)
			got[e["id"].(string)] = e
		}
		if status != 200 || len(got) != 2 || got[a.Live.ID] == nil || got[a.Draft.ID] == nil {
			t.Fatalf("entries: %d %v", status, out)
		}
		if live := got[a.Live.ID]; live["title"] != "Welcome to the Gazette" || live["body"] != "This is the first article." ||
			live["live"].(map[string]any)["rev"] != 1.0 || live["kind"] != "contentEntry" {
			t.Errorf("live entry %v", live)
		}
		if _, ok := got[a.Draft.ID]["live"]; ok {
			t.Errorf("the draft has a live version: %v", got[a.Draft.ID])
		}
		status, out = apptest.APICall(t, a, "GET", base+"/pages", contributor, "")
		if pages, _ := out["pages"].([]any); status != 200 || len(pages) != 1 || pages[0].(map[string]any)["id"] != a.Page.ID {
			t.Fatalf("pages: %d %v", status, out)
		}
	})

	t.Run("OneAndTheWrongKind", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/entries/"+a.Draft.ID, contributor, "")
		if status != 200 || out["slug"] != "election-night" || out["rev"] != 1.0 {
			t.Fatalf("%d %v", status, out)
		}
		for _, path := range []string{base + "/entries/" + a.Page.ID, base + "/pages/" + a.Draft.ID, base + "/entries/ent_nope"} {
			status, out := apptest.APICall(t, a, "GET", path, contributor, "")
			apptest.WantError(t, path, status, out, http.StatusNotFound, "not_found", "")
		}
		before := a.Fingerprint(t)
		status, out = apptest.APICall(t, a, "PATCH", base+"/pages/"+a.Draft.ID, editor, `{"expectedRev": 1, "title": "x"}`)
		apptest.WantError(t, "patch across kinds", status, out, http.StatusNotFound, "not_found", "")
		if after := a.Fingerprint(t); after != before {
			t.Errorf("a PATCH of the wrong kind changed state")
		}
	})

	t.Run("BadInputChangesNothing", func(t *testing.T) {
		before := a.Fingerprint(t)
		u := base + "/entries/" + a.Draft.ID
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NoRev", `{"title": "x"}`, "bad_request", "expectedRev"},
			{"NothingToChange", `{"expectedRev": 1}`, "nothing_to_change", ""},
			{"Misspelt", `{"expectedRev": 1, "tittle": "x"}`, "bad_request", "tittle"},
			{"TwoObjects", `{"expectedRev": 1, "title": "x"} {}`, "bad_request", ""},
			{"EmptyTitle", `{"expectedRev": 1, "title": " "}`, "title_required", "title"},
			{"BadSlug", `{"expectedRev": 1, "slug": "Not A Slug"}`, "slug_invalid", "slug"},
			{"BadStatus", `{"expectedRev": 1, "status": "live"}`, "status_invalid", "status"},
		} {
			status, out := apptest.APICall(t, a, "PATCH", u, editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("bad input changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Patch", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "PATCH", base+"/entries/"+a.Draft.ID, contributor, `{"expectedRev": 1, "title": "Election night, live"}`)
		if status != 200 || out["rev"] != 2.0 || out["title"] != "Election night, live" ||
			out["summary"] != "Results as they come in." || out["body"] != "Follow the results here." || out["status"] != "draft" {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "PATCH", base+"/pages/"+a.Page.ID, editor, `{"expectedRev": 1, "summary": "Who we are."}`)
		if status != 200 || out["summary"] != "Who we are." || out["title"] != "About" {
			t.Fatalf("page: %d %v", status, out)
		}
	})

	t.Run("Stale", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "PATCH", base+"/entries/"+a.Draft.ID, editor, `{"expectedRev": 1, "title": "Again"}`)
		apptest.WantError(t, "stale", status, out, http.StatusConflict, "stale", "")
		if apptest.Message(out) != "This changed somewhere else meanwhile. Load the latest version and try again." {
			t.Errorf("message %q", apptest.Message(out))
		}
	})

	t.Run("HeldNamesTheReleaseAndItsTime", func(t *testing.T) {
		draft, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, a.Draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		rel := a.ScheduleAt(t, a.Editor, draft.Node, "2026-11-02", "09:00")
		cur, _ := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, a.Draft.ID)
		body := fmt.Sprintf(`{"expectedRev": %d, "title": "Late change"}`, cur.Rev)
		a.SetLang(t, a.Contributor, "tr")
		before := a.Fingerprint(t)
		status, out := apptest.APICall(t, a, "PATCH", base+"/entries/"+a.Draft.ID, editor, body)
		apptest.WantError(t, "held", status, out, http.StatusConflict, "scheduled_locked", "")
		if d := apptest.Details(out); d["release"] != rel.ID || d["when"] != "2026-11-02T06:00:00Z" {
			t.Errorf("details %v", d)
		}
		if want := "This is scheduled to be published on 2 November 2026, 09:00 and cannot be changed. Unschedule it first."; apptest.Message(out) != want {
			t.Errorf("message %q, want %q", apptest.Message(out), want)
		}
		status, out = apptest.APICall(t, a, "PATCH", base+"/entries/"+a.Draft.ID, contributor, body)
		if want := "Bu içerik 2 Kasım 2026 09:00 için yayıma zamanlandığından değiştirilemez. Önce zamanlamayı kaldırın."; status != 409 || apptest.Message(out) != want {
			t.Errorf("Turkish: %d %q, want %q", status, apptest.Message(out), want)
		}
		status, out = apptest.APICall(t, a, "GET", base+"/entries/"+a.Draft.ID, contributor, "")
		if held, _ := out["heldBy"].(map[string]any); status != 200 || held["releaseId"] != rel.ID || held["state"] != "scheduled" {
			t.Errorf("GET of a held entry: %d %v", status, out)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("a refused PATCH changed state")
		}
	})
}

func TestAPISession(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.Site.ID
	c := a.SignedIn(t, a.Editor)
	token := c.Token()

	t.Run("ReadsAsThePerson", func(t *testing.T) {
		status, out := c.JSON("GET", base+"/notifications", "", nil)
		if status != 200 || out["notifications"] == nil {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("ChangesNeedTheCSRFToken", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, h := range []map[string]string{nil, {"X-CSRF-Token": apptest.WrongToken(token)}, {"X-CSRF-Token": a.Client(t, "").CSRF("/studio/login")}} {
			status, out := c.JSON("POST", base+"/releases/"+rel.ID+"/cancel", `{"rev": 1}`, h)
			apptest.WantError(t, fmt.Sprint("cancel with ", h), status, out, http.StatusForbidden, "csrf", "")
			status, out = c.JSON("PATCH", base+"/entries/"+a.Live.ID, `{"expectedRev": 1, "title": "x"}`, h)
			apptest.WantError(t, fmt.Sprint("patch with ", h), status, out, http.StatusForbidden, "csrf", "")
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("requests without the CSRF token changed state:\nbefore %s\nafter  %s", before, after)
		}
		status, out := c.JSON("POST", base+"/releases/"+rel.ID+"/cancel", `{"rev": 1}`, map[string]string{"X-CSRF-Token": token})
		if status != 200 || out["state"] != "canceled" {
			t.Fatalf("with the token: %d %v", status, out)
		}
	})

	t.Run("TheTokenWinsOverTheCookie", func(t *testing.T) {
		for _, auth := range []string{"Bearer studio_pat_wrong", "Basic ZWRpdG9yOnBhc3M="} {
			status, out := c.JSON("GET", "/api/sites", "", map[string]string{"Authorization": auth})
			apptest.WantError(t, auth, status, out, http.StatusUnauthorized, "unauthenticated", "")
		}
	})

	t.Run("SignedOutIsNobody", func(t *testing.T) {
		anon := a.Client(t, "")
		anon.CSRF("/studio/login") // a session without a person
		status, out := anon.JSON("GET", "/api/sites", "", nil)
		apptest.WantError(t, "anonymous session", status, out, http.StatusUnauthorized, "unauthenticated", "")
		c.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther})
		status, out = c.JSON("GET", "/api/sites", "", nil)
		apptest.WantError(t, "after sign-out", status, out, http.StatusUnauthorized, "unauthenticated", "")
	})
}

func TestAPIRevokedToken(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	secret, tok, err := a.Identity.CreateToken(context.Background(), a.Editor, "deploy script", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, out := apptest.APICall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("before: %d %v", status, out)
	}
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Revoke", Method: "POST", URL: "/studio/tokens/" + tok.ID + "/revoke",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/tokens"}})
	for _, path := range []string{"/api/sites", "/api/sites/" + a.Site.ID + "/releases"} {
		status, out := apptest.APICall(t, a, "GET", path, secret, "")
		apptest.WantError(t, "revoked "+path, status, out, http.StatusUnauthorized, "unauthenticated", "")
	}
}

var secretRe = regexp.MustCompile(`value="(studio_pat_[A-Za-z0-9]+)"`)

func TestTokensPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()

	apptest.RunScenarios(t, c, []apptest.Scenario{
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

	res := c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {token}, "name": {"deploy script"}}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-secret"`, "Your new token “deploy script”",
			"Copy it now: it is shown only this once.", "<td>deploy script</td>", "Never"},
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	m := secretRe.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no secret in the page:\n%s", apptest.Excerpt(res.Body))
	}
	secret := m[1]
	if status, out := apptest.APICall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("the new token does not work: %d %v", status, out)
	}
	list, err := a.Identity.Tokens(context.Background(), a.Editor)
	if err != nil || len(list) != 1 {
		t.Fatalf("tokens %v, %v", list, err)
	}
	id := list[0].ID

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "ShownOnce", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<td>deploy script</td>", `<time datetime="2026-11-02T05:00:00Z">2 November 2026, 08:00</time>`,
				`data-testid="revoke-open"`, `href="/studio/tokens?revoke=` + id + `#revoke-` + id + `"`},
			NotExpectedContent: []string{secret, `data-testid="new-secret"`, "Never"}},
		{Name: "ConfirmWithoutJavaScript", URL: "/studio/tokens?revoke=" + id, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="revoke-` + id + `" class="confirm" aria-labelledby="revoke-` + id + `-title" open>`,
				"Revoke “deploy script”?", "Scripts that use this token stop working at once."}},
	})

	// Someone else cannot revoke it, or see it.
	other := a.SignedIn(t, a.Contributor)
	other.Check(t, apptest.Scenario{Name: "NotTheirs", Method: "POST", URL: "/studio/tokens/" + id + "/revoke",
		Form: url.Values{"csrf_token": {other.Token()}}, ExpectedStatus: http.StatusNotFound})
	other.Check(t, apptest.Scenario{Name: "NotListed", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"<td>deploy script</td>"}})
	if status, _ := apptest.APICall(t, a, "GET", "/api/sites", secret, ""); status != 200 {
		t.Fatalf("someone else's refused revoke stopped the token: %d", status)
	}

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Revoke", Method: "POST", URL: "/studio/tokens/" + id + "/revoke", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/tokens"}},
		{Name: "Revoked", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<p class="notice">Token revoked. It no longer works.</p>`, "You have no access tokens."},
			NotExpectedContent: []string{"<td>deploy script</td>"}},
	})
	if status, _ := apptest.APICall(t, a, "GET", "/api/sites", secret, ""); status != http.StatusUnauthorized {
		t.Errorf("a revoked token answers %d, want 401", status)
	}

	a.SetLang(t, a.Contributor, "tr")
	other.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "<h1>Erişim anahtarları</h1>", "Hiç erişim anahtarınız yok.",
			"Anahtar oluştur"},
		NotExpectedContent: []string{"Access tokens", "Create token"}})
}

func withText(b content.Body, text string) content.Body {
	b.Text = text
	return b
}
