package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// itemIDs are the node ids of a release answer's items, "-" before a
// removal's, in the answer's order.
func itemIDs(rel map[string]any) []string {
	var out []string
	items, _ := rel["items"].([]any)
	for _, it := range items {
		it := it.(map[string]any)
		id, _ := it["nodeId"].(string)
		if it["kind"] == "remove" {
			id = "-" + id
		}
		out = append(out, id)
	}
	return out
}

// The way of a multi-item draft through the JSON API (§13): create with the
// closure, add items, rename, remove, refusals that change nothing, Re-pin
// after an edit, and Schedule as an Editor (scheduled) and as a Contributor
// (approval-pending, with the request's id).
func TestAPIDrafts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	base := "/api/sites/" + a.Site.ID

	// The article uses a results page that is not live yet: the closure adds it.
	results := draftUsesResultsPage(t, a, a.Editor)
	charts := a.CreateNode(t, release.KindPage, content.Body{Title: "Charts", Slug: "charts", Status: content.StatusDraft})

	t.Run("CreateBadInputChangesNothing", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NotJSON", `nodeIds`, "bad_request", ""},
			{"UnknownField", `{"nodeIds": ["` + a.Draft.ID + `"], "whenever": "on-approval"}`, "bad_request", "whenever"},
			{"WhenWithAKind", `{"nodeIds": ["` + a.Draft.ID + `"], "when": {"kind": "on-approval"}}`, "bad_when", "when"},
			{"WrongType", `{"nodeIds": "` + a.Draft.ID + `"}`, "bad_request", "nodeIds"},
			{"NoItems", `{"title": "Empty"}`, "no_items", "nodeIds"},
			{"EmptyLists", `{"nodeIds": [], "removeIds": []}`, "no_items", "nodeIds"},
			{"TitleOnTwoLines", `{"title": "Autumn\nlaunch", "nodeIds": ["` + a.Draft.ID + `"]}`, "bad_title", "title"},
		} {
			status, out := apptest.APICall(t, a, "POST", base+"/releases", editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		// Well formed, but the engine refuses the node: said as a draft's
		// page says it, naming the node.
		status, out := apptest.APICall(t, a, "POST", base+"/releases", editor, `{"nodeIds": ["ent_nope"]}`)
		apptest.WantError(t, "unknown node", status, out, http.StatusUnprocessableEntity, "not_found", "")
		if want := "This article or page does not exist, or it was deleted."; apptest.Message(out) != want || apptest.Details(out)["node"] != "ent_nope" {
			t.Errorf("unknown node: %q %v, want %q", apptest.Message(out), apptest.Details(out), want)
		}
		status, out = apptest.APICall(t, a, "POST", base+"/releases", editor, `{"nodeIds": ["`+a.Page.ID+`"]}`)
		apptest.WantError(t, "nothing new", status, out, http.StatusUnprocessableEntity, "nothing_to_publish", "")
		if want := "“About” has nothing new to publish: its live version is already its current one."; apptest.Message(out) != want {
			t.Errorf("nothing new: %q, want %q", apptest.Message(out), want)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused creates changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	var relID string
	t.Run("Create", func(t *testing.T) {
		req, err := http.NewRequest("POST", a.URL+base+"/releases",
			strings.NewReader(`{"title": "Autumn launch", "nodeIds": ["`+a.Draft.ID+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+editor)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated || !strings.HasPrefix(res.Header.Get("Location"), base+"/releases/rel_") {
			t.Fatalf("%d, Location %q", res.StatusCode, res.Header.Get("Location"))
		}
		relID = strings.TrimPrefix(res.Header.Get("Location"), base+"/releases/")
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+relID, editor, "")
		closure, _ := out["closureAdded"].([]any)
		if status != 200 || out["state"] != "draft" || out["title"] != "Autumn launch" || out["rev"] != 1.0 ||
			out["schemaVersion"] != 1.0 || !strings.HasPrefix(out["hash"].(string), "rl1:") ||
			out["createdBy"].(map[string]any)["id"] != a.Editor.ID ||
			len(closure) != 1 || fmt.Sprint(closure[0]) != fmt.Sprint(map[string]any{"nodeId": results.ID, "because": a.Draft.ID}) {
			t.Fatalf("%d %v", status, out)
		}
		if got := strings.Join(itemIDs(out), " "); !strings.Contains(got, a.Draft.ID) || !strings.Contains(got, results.ID) || len(itemIDs(out)) != 2 {
			t.Errorf("items %s", got)
		}
	})
	rel := base + "/releases/" + relID

	t.Run("AddItems", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NoRev", `{"nodeIds": ["` + charts.ID + `"]}`, "bad_request", "rev"},
			{"NoItems", `{"rev": 1}`, "no_items", "nodeIds"},
			{"Misspelt", `{"rev": 1, "nodeId": ["` + charts.ID + `"]}`, "bad_request", "nodeId"},
		} {
			status, out := apptest.APICall(t, a, "POST", rel+"/items", editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		status, out := apptest.APICall(t, a, "POST", rel+"/items", editor, `{"rev": 1, "nodeIds": ["`+a.Draft.ID+`"]}`)
		apptest.WantError(t, "already in", status, out, http.StatusUnprocessableEntity, "duplicate_node", "")
		if want := "“Election night live” is already in this release."; apptest.Message(out) != want {
			t.Errorf("duplicate: %q, want %q", apptest.Message(out), want)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused additions changed state:\nbefore %s\nafter  %s", before, after)
		}

		status, out = apptest.APICall(t, a, "POST", rel+"/items", editor,
			`{"rev": 1, "nodeIds": ["`+charts.ID+`"], "removeIds": ["`+a.Live.ID+`"]}`)
		if got := strings.Join(itemIDs(out), " "); status != 200 || out["rev"] != 2.0 || len(itemIDs(out)) != 4 ||
			!strings.Contains(got, charts.ID) || !strings.Contains(got, "-"+a.Live.ID) {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("StaleRev", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct{ Method, Path, Body string }{
			{"POST", rel + "/items", `{"rev": 1, "nodeIds": ["` + a.Page.ID + `"]}`},
			{"PATCH", rel, `{"rev": 1, "title": "Winter launch"}`},
			{"PATCH", rel, `{"rev": 1, "removeItem": "` + charts.ID + `"}`},
			{"POST", rel + "/schedule", `{"rev": 1, "date": "2026-11-02", "time": "09:00"}`},
			{"POST", rel + "/repin", `{"rev": 1}`},
		} {
			status, out := apptest.APICall(t, a, c.Method, c.Path, editor, c.Body)
			apptest.WantError(t, c.Method+" "+c.Path, status, out, http.StatusConflict, "stale", "")
			if apptest.Message(out) != "This changed somewhere else meanwhile. Load the latest version and try again." {
				t.Errorf("%s %s: message %q", c.Method, c.Path, apptest.Message(out))
			}
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("stale changes changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("PatchBadInputChangesNothing", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NoRev", `{"title": "Winter launch"}`, "bad_request", "rev"},
			{"NothingToChange", `{"rev": 2}`, "nothing_to_change", ""},
			{"Both", `{"rev": 2, "title": "Winter launch", "removeItem": "` + charts.ID + `"}`, "one_release_change", "removeItem"},
			{"Unknown", `{"rev": 2, "items": []}`, "bad_request", "items"},
			{"BlankTitle", `{"rev": 2, "title": "  "}`, "bad_title", "title"},
			{"TitleWithBidi", `{"rev": 2, "title": "Winter \u202elaunch"}`, "bad_title", "title"},
			{"RemoveNotAString", `{"rev": 2, "removeItem": 7}`, "bad_request", "removeItem"},
		} {
			status, out := apptest.APICall(t, a, "PATCH", rel, editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
			if c.Name == "Both" && apptest.Message(out) != "Rename the release and remove an item in two requests: each is its own change, with its own rev." {
				t.Errorf("both: %q", apptest.Message(out))
			}
		}
		// An item another uses stays; one not in the release is not found.
		status, out := apptest.APICall(t, a, "PATCH", rel, editor, `{"rev": 2, "removeItem": "`+results.ID+`"}`)
		apptest.WantError(t, "needed", status, out, http.StatusUnprocessableEntity, "item_needed", "")
		if want := "“Results table” cannot leave the release: “Election night live” uses it. Remove “Election night live” first."; apptest.Message(out) != want {
			t.Errorf("needed: %q, want %q", apptest.Message(out), want)
		}
		status, out = apptest.APICall(t, a, "PATCH", rel, editor, `{"rev": 2, "removeItem": "`+a.Page.ID+`"}`)
		apptest.WantError(t, "not an item", status, out, http.StatusUnprocessableEntity, "not_found", "")
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused patches changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("RenameAndRemove", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "PATCH", rel, editor, `{"rev": 2, "title": "Winter launch"}`)
		if status != 200 || out["title"] != "Winter launch" || out["rev"] != 3.0 || len(itemIDs(out)) != 4 {
			t.Fatalf("rename: %d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "PATCH", rel, editor, `{"rev": 3, "removeItem": "`+charts.ID+`"}`)
		if got := strings.Join(itemIDs(out), " "); status != 200 || out["rev"] != 4.0 || len(itemIDs(out)) != 3 ||
			strings.Contains(got, charts.ID) || out["title"] != "Winter launch" {
			t.Fatalf("remove: %d %v", status, out)
		}
	})

	t.Run("AnotherSitesReleaseIsNotFound", func(t *testing.T) {
		other, err := a.Engine.CreateSite(ctx, "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		before := a.Fingerprint(t)
		for _, c := range []struct{ Method, Path, Body string }{
			{"PATCH", "/api/sites/" + other.ID + "/releases/" + relID, `{"rev": 4, "title": "Elsewhere"}`},
			{"POST", "/api/sites/" + other.ID + "/releases/" + relID + "/items", `{"rev": 4, "nodeIds": ["` + charts.ID + `"]}`},
			{"POST", "/api/sites/" + other.ID + "/releases/" + relID + "/schedule", `{"rev": 4, "date": "2026-11-02", "time": "09:00"}`},
			{"POST", "/api/sites/" + other.ID + "/releases/" + relID + "/repin", `{"rev": 4}`},
			{"POST", "/api/sites/" + other.ID + "/releases/" + relID + "/rebase", `{"rev": 4, "date": "2026-11-02", "time": "09:00"}`},
			{"POST", base + "/releases/rel_doesnotexist00/schedule", `{"rev": 4, "date": "2026-11-02", "time": "09:00"}`},
			{"POST", "/api/sites/site_nope/releases", `{"nodeIds": ["` + charts.ID + `"]}`},
		} {
			status, out := apptest.APICall(t, a, c.Method, c.Path, editor, c.Body)
			apptest.WantError(t, c.Method+" "+c.Path, status, out, http.StatusNotFound, "not_found", "")
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("requests for another site's release changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("NotTheContributorsDraft", func(t *testing.T) {
		before := a.Fingerprint(t)
		for _, c := range []struct{ Method, Path, Body string }{
			{"POST", rel + "/schedule", `{"rev": 4, "date": "2026-11-02", "time": "09:00"}`},
			{"PATCH", rel, `{"rev": 4, "title": "Mine now"}`},
			{"POST", rel + "/items", `{"rev": 4, "nodeIds": ["` + charts.ID + `"]}`},
			{"POST", rel + "/repin", `{"rev": 4}`},
		} {
			status, out := apptest.APICall(t, a, c.Method, c.Path, contributor, c.Body)
			apptest.WantError(t, "contributor "+c.Method+" "+c.Path, status, out, http.StatusForbidden, "forbidden", "")
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("forbidden changes changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("RepinAfterAnEditThenSchedule", func(t *testing.T) {
		cur, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		edited := cur.Body
		edited.Text = "Follow the results here, live."
		if _, err := a.Nodes.SaveNode(ctx, a.Editor, a.Site.ID, cur.ID, cur.Rev, edited); err != nil {
			t.Fatal(err)
		}
		before := a.Fingerprint(t)
		status, out := apptest.APICall(t, a, "POST", rel+"/schedule", editor, `{"rev": 4, "date": "2026-11-02", "time": "09:00"}`)
		apptest.WantError(t, "pins moved", status, out, http.StatusConflict, "pinned_changed", "")
		if want := "“Election night live” changed after it was pinned. Re-pin to take the current versions, check them, then schedule."; apptest.Message(out) != want ||
			apptest.Details(out)["node"] != a.Draft.ID {
			t.Errorf("pins moved: %q %v, want %q", apptest.Message(out), apptest.Details(out), want)
		}
		for _, c := range []struct{ Body, Field string }{
			{`{"rev": 4, "date": "2026-11-02"}`, "date"},
			{`{"rev": 4, "time": "09:00"}`, "time"},
		} {
			status, out = apptest.APICall(t, a, "POST", rel+"/repin", editor, c.Body)
			apptest.WantError(t, "a draft's re-pin with a time", status, out, http.StatusBadRequest, "bad_request", c.Field)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refusals changed state:\nbefore %s\nafter  %s", before, after)
		}

		status, out = apptest.APICall(t, a, "POST", rel+"/repin", editor, `{"rev": 4}`)
		if status != 200 || out["state"] != "draft" || out["rev"] != 5.0 || len(itemIDs(out)) != 3 {
			t.Fatalf("repin: %d %v", status, out)
		}
		for _, it := range out["items"].([]any) {
			it := it.(map[string]any)
			if it["nodeId"] == a.Draft.ID && it["target"].(map[string]any)["rev"] != float64(cur.Rev+1) {
				t.Errorf("re-pinned item %v, want target rev %d", it, cur.Rev+1)
			}
		}

		before = a.Fingerprint(t)
		for _, c := range []struct{ Name, Body, Code, Field string }{
			{"NoRev", `{"date": "2026-11-02", "time": "09:00"}`, "bad_request", "rev"},
			{"BadDate", `{"rev": 5, "date": "2026-13-01", "time": "09:00"}`, "bad_date", "date"},
			{"BadTime", `{"rev": 5, "date": "2026-11-02", "time": "9am"}`, "bad_time", "time"},
			{"Past", `{"rev": 5, "date": "2026-11-01", "time": "09:00"}`, "time_in_past", "time"},
			{"AnInstant", `{"rev": 5, "at": "2026-11-02T06:00:00Z"}`, "bad_request", "at"},
		} {
			status, out := apptest.APICall(t, a, "POST", rel+"/schedule", editor, c.Body)
			apptest.WantError(t, c.Name, status, out, http.StatusBadRequest, c.Code, c.Field)
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("bad schedules changed state:\nbefore %s\nafter  %s", before, after)
		}

		status, out = apptest.APICall(t, a, "POST", rel+"/schedule", editor, `{"rev": 5, "date": "2026-11-02", "time": "09:00"}`)
		got, _ := out["release"].(map[string]any)
		when, _ := got["when"].(map[string]any)
		if _, asked := out["approvalId"]; status != 200 || out["status"] != "scheduled" || asked || got["state"] != "scheduled" ||
			got["approval"].(map[string]any)["by"].(map[string]any)["id"] != a.Editor.ID ||
			when["localTime"] != "2026-11-02T09:00" || when["at"] != "2026-11-02T06:00:00Z" {
			t.Fatalf("schedule: %d %v", status, out)
		}
		status, out = apptest.APICall(t, a, "POST", rel+"/schedule", editor, fmt.Sprintf(`{"rev": %v, "date": "2026-11-02", "time": "10:00"}`, got["rev"]))
		apptest.WantError(t, "schedule twice", status, out, http.StatusUnprocessableEntity, "bad_state", "")
	})

	t.Run("ContributorAsksForApproval", func(t *testing.T) {
		budget := a.OtherDraft(t)
		status, out := apptest.APICall(t, a, "POST", base+"/releases", contributor, `{"nodeIds": ["`+budget.ID+`"]}`)
		if status != http.StatusCreated || out["title"] != "Budget night" || out["createdBy"].(map[string]any)["id"] != a.Contributor.ID {
			t.Fatalf("create: %d %v", status, out)
		}
		id := out["id"].(string)
		status, out = apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", contributor, `{"rev": 1, "date": "2026-11-02", "time": "10:00"}`)
		got, _ := out["release"].(map[string]any)
		if status != 200 || out["status"] != "approval-pending" || got["state"] != "awaiting_approval" || got["id"] != id {
			t.Fatalf("schedule: %d %v", status, out)
		}
		list, err := a.Releases.Approvals(ctx, a.Editor, a.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, v := range list {
			if v.Release.ID == id {
				want = v.Request.ID
			}
		}
		if want == "" || out["approvalId"] != want {
			t.Errorf("approvalId %v, want %q", out["approvalId"], want)
		}
		status, out = apptest.APICall(t, a, "GET", base+"/approvals/"+want, editor, "")
		if status != 200 || out["releaseId"] != id || out["status"] != "waiting" {
			t.Errorf("the request: %d %v", status, out)
		}
	})
}

// Resolving a conflict over the API (§6.4): refusals change nothing, empty
// date and time keep the release's time (now, here: too soon), someone
// else's release is forbidden, and Re-pin by an Editor re-approves it.
func TestAPIConflictRepin(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	r := a.ConflictRelease(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	rel := "/api/sites/" + a.Site.ID + "/releases/" + r.ID
	rev := r.Rev

	before := a.Fingerprint(t)
	for _, c := range []struct {
		Name, Path, Token, Body string
		Status                  int
		Code, Field             string
	}{
		{"KeepsItsTimeNow", rel + "/repin", editor, fmt.Sprintf(`{"rev": %d}`, rev), 400, "too_soon", "time"},
		{"Past", rel + "/rebase", editor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "08:00"}`, rev), 400, "time_in_past", "time"},
		{"Stale", rel + "/repin", editor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "10:00"}`, rev-1), 409, "stale", ""},
		{"StaleRebase", rel + "/rebase", editor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "10:00"}`, rev-1), 409, "stale", ""},
		{"Unknown", rel + "/rebase", editor, fmt.Sprintf(`{"rev": %d, "at": "2026-11-02T07:00:00Z"}`, rev), 400, "bad_request", "at"},
		{"NotTheirs", rel + "/repin", contributor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "10:00"}`, rev), 403, "forbidden", ""},
	} {
		status, out := apptest.APICall(t, a, "POST", c.Path, c.Token, c.Body)
		apptest.WantError(t, c.Name, status, out, c.Status, c.Code, c.Field)
	}
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused resolutions changed state:\nbefore %s\nafter  %s", before, after)
	}

	status, out := apptest.APICall(t, a, "POST", rel+"/repin", editor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "10:00"}`, rev))
	when, _ := out["when"].(map[string]any)
	if status != 200 || out["state"] != "scheduled" || out["rev"] != float64(rev+1) || when["localTime"] != "2026-11-02T10:00" ||
		out["approval"].(map[string]any)["by"].(map[string]any)["id"] != a.Editor.ID {
		t.Fatalf("repin: %d %v", status, out)
	}
	// A scheduled release is neither a draft nor a conflict: the engine refuses.
	status, out = apptest.APICall(t, a, "POST", rel+"/rebase", editor, fmt.Sprintf(`{"rev": %d, "date": "2026-11-02", "time": "11:00"}`, rev+1))
	apptest.WantError(t, "rebase when scheduled", status, out, http.StatusUnprocessableEntity, "bad_state", "")
	status, out = apptest.APICall(t, a, "POST", rel+"/repin", editor, fmt.Sprintf(`{"rev": %d}`, rev+1))
	apptest.WantError(t, "repin when scheduled", status, out, http.StatusUnprocessableEntity, "bad_state", "")
}

// draftUsesResultsPage creates a results page that is not live yet and has
// by save the demo draft referring to it: a release of the draft pulls the
// page in through its closure.
func draftUsesResultsPage(t *testing.T, a *apptest.App, by engine.User) content.Node {
	t.Helper()
	ctx := context.Background()
	results := a.CreateNode(t, release.KindPage, content.Body{Title: "Results table", Slug: "results",
		Status: content.StatusDraft, Text: "Turnout 84%."})
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := d.Body
	body.Refs = []string{results.ID}
	if a.Draft, err = a.Nodes.SaveNode(ctx, by, a.Site.ID, a.Draft.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	return results
}
