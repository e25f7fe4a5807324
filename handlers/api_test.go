package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// apiCall sends a JSON API request with a bearer token and decodes the answer.
func apiCall(t *testing.T, a *testApp, method, path, token, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, a.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s: not JSON: %s", method, path, data)
	}
	return resp.StatusCode, out
}

func errorCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestAPI(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	editorToken, _, err := a.identity.CreateToken(ctx, a.editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	contributorToken, _, err := a.identity.CreateToken(ctx, a.contributor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	base := "/api/sites/" + a.site.ID

	t.Run("NoTokenNoEntry", func(t *testing.T) {
		for _, tok := range []string{"", "studio_pat_wrong", "not-a-token"} {
			status, out := apiCall(t, a, "GET", "/api/sites", tok, "")
			if status != http.StatusUnauthorized || errorCode(out) != "unauthenticated" {
				t.Errorf("token %q: %d %v", tok, status, out)
			}
		}
	})

	t.Run("Sites", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", "/api/sites", editorToken, "")
		sites, _ := out["sites"].([]any)
		if status != 200 || len(sites) != 1 || sites[0].(map[string]any)["timeZone"] != "Europe/Istanbul" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("ReleaseInTheContractShape", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", base+"/releases/"+rel.ID, editorToken, "")
		when, _ := out["when"].(map[string]any)
		items, _ := out["items"].([]any)
		if status != 200 || out["id"] != rel.ID || out["state"] != "scheduled" || out["hash"] != rel.Hash ||
			when["localTime"] != "2026-11-02T09:00" || when["timeZone"] != "Europe/Istanbul" || len(items) != 1 {
			t.Fatalf("%d %v", status, out)
		}
		status, out = apiCall(t, a, "GET", base+"/releases", editorToken, "")
		if list, _ := out["releases"].([]any); status != 200 || len(list) != 1 {
			t.Fatalf("list: %d %v", status, out)
		}
	})

	t.Run("RefusalsInThePersonsLanguage", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", base+"/releases/rel_nope", editorToken, "")
		if status != 404 || errorCode(out) != "not_found" {
			t.Fatalf("%d %v", status, out)
		}
		a.setLang(t, a.contributor, "tr")
		status, out = apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", contributorToken, `{"rev": 1}`)
		msg, _ := out["error"].(map[string]any)["message"].(string)
		if status != 403 || errorCode(out) != "forbidden" || !strings.Contains(msg, "Rolünüz") {
			t.Fatalf("contributor cancels the editor's release: %d %v", status, out)
		}
		status, out = apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `{"rev": 9}`)
		if status != 409 || errorCode(out) != "stale" {
			t.Fatalf("stale rev: %d %v", status, out)
		}
		status, out = apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `not json`)
		if status != 400 || errorCode(out) != "bad_request" {
			t.Fatalf("bad body: %d %v", status, out)
		}
		if got := a.release(t, rel.ID); got.State != "scheduled" {
			t.Fatalf("refusals changed the release: %s", got.State)
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		status, out := apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/cancel", editorToken, `{"rev": 1}`)
		outcome, _ := out["outcome"].(map[string]any)
		if status != 200 || out["state"] != "canceled" || outcome["kind"] != "canceled" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("UnknownSite", func(t *testing.T) {
		status, out := apiCall(t, a, "GET", "/api/sites/site_nope/releases", editorToken, "")
		if status != 404 || errorCode(out) != "not_found" {
			t.Fatalf("%d %v", status, out)
		}
	})
}

func TestAPIPublishNowAndNotifications(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	token, _, err := a.identity.CreateToken(ctx, a.editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	contributorToken, _, err := a.identity.CreateToken(ctx, a.contributor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	a.clock.Set(rel.When.At.Add(2 * time.Hour)) // the scheduler was down: missed
	if _, err := a.sched.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	missed := a.release(t, rel.ID)
	if missed.State != "missed" {
		t.Fatalf("state = %s", missed.State)
	}
	base := "/api/sites/" + a.site.ID

	status, out := apiCall(t, a, "GET", base+"/notifications", token, "")
	list, _ := out["notifications"].([]any)
	if status != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != "schedule-missed:"+rel.ID {
		t.Fatalf("notifications: %d %v", status, out)
	}

	body := fmt.Sprintf(`{"rev": %d}`, missed.Rev)
	if status, out := apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", contributorToken, body); status != 403 || errorCode(out) != "forbidden" {
		t.Fatalf("contributor: %d %v", status, out)
	}
	status, out = apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", token, body)
	if status != 200 || out["state"] != "published" {
		t.Fatalf("publish now: %d %v", status, out)
	}
	if status, out := apiCall(t, a, "POST", base+"/releases/"+rel.ID+"/publish-now", token, body); status != 409 || errorCode(out) != "stale" {
		t.Fatalf("again: %d %v", status, out)
	}
}

// TestAPIReleasesPaged: GET …/releases answers a page at a time (issue 14):
// ?limit= and the nextCursor of the page before walk the whole list once,
// in order; a limit out of 1..200 is refused.
func TestAPIReleasesPaged(t *testing.T) {
	a := newApp(t)
	a.scheduleAt(t, a.editor, a.draft, "2026-11-03", "09:00")
	a.scheduleAt(t, a.editor, a.otherDraft(t), "2026-11-04", "09:00")
	a.pendingRequest(t)
	token := a.tokenFor(t, a.editor)
	base := "/api/sites/" + a.site.ID + "/releases"
	_, all := apiCall(t, a, "GET", base, token, "")
	want, _ := all["releases"].([]any)
	if len(want) != 3 || all["nextCursor"] != nil {
		t.Fatalf("one page of three: %v", all)
	}
	var got []any
	cursor := ""
	for range 4 {
		status, page := apiCall(t, a, "GET", base+"?limit=1&cursor="+cursor, token, "")
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
		status, out := apiCall(t, a, "GET", base+"?limit="+limit, token, "")
		if e, _ := out["error"].(map[string]any); status != http.StatusBadRequest || e["code"] != "bad_release_limit" {
			t.Errorf("limit %s: %d %v", limit, status, out)
		}
	}
}
