package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"studio/handlers/internal/apptest"
)

func TestAPI(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	editorToken, _, err := a.Identity.CreateToken(ctx, a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	contributorToken, _, err := a.Identity.CreateToken(ctx, a.Contributor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.Site.ID

	t.Run("NoTokenNoEntry", func(t *testing.T) {
		for _, tok := range []string{"", "studio_pat_wrong", "not-a-token"} {
			status, out := apptest.APICall(t, a, "GET", "/api/sites", tok, "")
			if status != http.StatusUnauthorized || apptest.ErrorCode(out) != "unauthenticated" {
				t.Errorf("token %q: %d %v", tok, status, out)
			}
		}
	})

	t.Run("Sites", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", "/api/sites", editorToken, "")
		sites, _ := out["sites"].([]any)
		if status != 200 || len(sites) != 1 || sites[0].(map[string]any)["timeZone"] != "Europe/Istanbul" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("ReleaseInTheContractShape", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+rel.ID, editorToken, "")
		when, _ := out["when"].(map[string]any)
		items, _ := out["items"].([]any)
		if status != 200 || out["id"] != rel.ID || out["state"] != "scheduled" || out["hash"] != rel.Hash ||
			when["localTime"] != "2026-11-02T09:00" || when["timeZone"] != "Europe/Istanbul" || len(items) != 1 {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "GET", base+"/releases", editorToken, "")
		if list, _ := out["releases"].([]any); status != 200 || len(list) != 1 {
			t.Fatalf("list: %d %v", status, out)
		}
	})

	t.Run("RefusalsInThePersonsLanguage", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/releases/rel_nope", editorToken, "")
		if status != 404 || apptest.ErrorCode(out) != "not_found" {
			t.Fatalf("%d %v", status, out)
		}
		a.SetLang(t, a.Contributor, "tr")
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", contributorToken, `{"rev": 1}`)
		msg, _ := out["error"].(map[string]any)["message"].(string)
		if status != 403 || apptest.ErrorCode(out) != "forbidden" || !strings.Contains(msg, "Rolünüz") {
			t.Fatalf("contributor cancels the editor's release: %d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `{"rev": 9}`)
		if status != 409 || apptest.ErrorCode(out) != "stale" {
			t.Fatalf("stale rev: %d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `not json`)
		if status != 400 || apptest.ErrorCode(out) != "bad_request" {
			t.Fatalf("bad body: %d %v", status, out)
		}
		if got := a.Release(t, rel.ID); got.State != "scheduled" {
			t.Fatalf("refusals changed the release: %s", got.State)
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `{"rev": 1}`)
		outcome, _ := out["outcome"].(map[string]any)
		if status != 200 || out["state"] != "canceled" || outcome["kind"] != "canceled" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("UnknownSite", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", "/api/sites/site_nope/releases", editorToken, "")
		if status != 404 || apptest.ErrorCode(out) != "not_found" {
			t.Fatalf("%d %v", status, out)
		}
	})
}

func TestAPIPublishNowAndNotifications(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	token, _, err := a.Identity.CreateToken(ctx, a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	contributorToken, _, err := a.Identity.CreateToken(ctx, a.Contributor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(rel.When.At.Add(2 * time.Hour)) // the scheduler was down: missed
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	missed := a.Release(t, rel.ID)
	if missed.State != "missed" {
		t.Fatalf("state = %s", missed.State)
	}
	base := "/api/sites/" + a.Site.ID

	status, out := apptest.APICall(t, a, "GET", base+"/notifications", token, "")
	list, _ := out["notifications"].([]any)
	if status != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != "schedule-missed:"+rel.ID {
		t.Fatalf("notifications: %d %v", status, out)
	}

	body := fmt.Sprintf(`{"rev": %d}`, missed.Rev)
	if status, out := apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", contributorToken, body); status != 403 || apptest.ErrorCode(out) != "forbidden" {
		t.Fatalf("contributor: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", token, body)
	if status != 200 || out["state"] != "published" {
		t.Fatalf("publish now: %d %v", status, out)
	}
	if status, out := apptest.APICall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", token, body); status != 409 || apptest.ErrorCode(out) != "stale" {
		t.Fatalf("again: %d %v", status, out)
	}
}

// TestAPIReleasesPaged: GET …/releases answers a page at a time (issue 14):
// ?limit= and the nextCursor of the page before walk the whole list once,
// in order; a limit out of 1..200 is refused.
func TestAPIReleasesPaged(t *testing.T) {
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "09:00")
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-04", "09:00")
	a.PendingRequest(t)
	token := a.TokenFor(t, a.Editor)
	base := "/api/sites/" + a.Site.ID + "/releases"
	_, all := apptest.APICall(t, a, "GET", base, token, "")
	want, _ := all["releases"].([]any)
	if len(want) != 3 || all["nextCursor"] != nil {
		t.Fatalf("one page of three: %v", all)
	}
	var got []any
	cursor := ""
	for range 4 {
		status, page := apptest.APICall(t, a, "GET", base+"?limit=1&cursor="+cursor, token, "")
		rows, _ := page["releases"].([]any)
		if status != http.StatusOK || len(rows) != 1 {
			t.Fatalf("a page of one: %d %v", status, page)
		}
		got = append(got, rows...)
		next, _ := page["nextCursor"].(string)
		if cursor = next; cursor == "" {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("paged %d of %d", len(got), len(want))
	}
	for i := range got {
		if got[i].(map[string]any)["id"] != want[i].(map[string]any)["id"] {
			t.Fatalf("page order differs at %d", i)
		}
	}
	for _, limit := range []string{"0", "201", "many"} {
		status, out := apptest.APICall(t, a, "GET", base+"?limit="+limit, token, "")
		if e, _ := out["error"].(map[string]any); status != http.StatusBadRequest || e["code"] != "bad_release_limit" {
			t.Errorf("limit %s: %d %v", limit, status, out)
		}
	}
}
