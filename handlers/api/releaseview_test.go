package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

// GET …/releases/{id} answers §12's ReleaseView: every item with the title
// and the path of the version it pins, what the closure added, the nodes
// the release locks and the approval request waiting on it.
func TestAPIReleaseView(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor, contributor := a.TokenFor(t, a.Editor), a.TokenFor(t, a.Contributor)
	base := "/api/sites/" + a.Site.ID

	results := draftUsesResultsPage(t, a, a.Contributor)
	status, out := apptest.APICall(t, a, "POST", base+"/releases", contributor, `{"nodeIds": ["`+a.Draft.ID+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, out)
	}
	id, _ := out["id"].(string)
	named := func(out map[string]any) map[string]string {
		got := map[string]string{}
		items, _ := out["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			got[fmt.Sprint(m["nodeId"])] = fmt.Sprintf("%v %v", m["title"], m["path"])
		}
		return got
	}
	want := map[string]string{a.Draft.ID: "Election night live /posts/election-night", results.ID: "Results table /results"}

	t.Run("Draft", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+id, editor, "")
		closure, _ := out["closureAdded"].([]any)
		locked, _ := out["lockedNodes"].([]any)
		if status != 200 || fmt.Sprint(named(out)) != fmt.Sprint(want) || len(closure) != 1 ||
			fmt.Sprint(closure[0]) != fmt.Sprint(map[string]any{"nodeId": results.ID, "because": a.Draft.ID}) ||
			locked == nil || len(locked) != 0 || out["request"] != nil {
			t.Fatalf("%d %v", status, out)
		}
	})

	// The contributor schedules it: it waits for approval and locks both.
	status, out = apptest.APICall(t, a, "POST", base+"/releases/"+id+"/schedule", contributor,
		`{"rev": 1, "date": "2026-11-02", "time": "10:00"}`)
	if status != 200 || out["status"] != "approval-pending" {
		t.Fatalf("schedule: %d %v", status, out)
	}
	approvalID := out["approvalId"]

	t.Run("AwaitingApproval", func(t *testing.T) {
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+id, editor, "")
		locked, _ := out["lockedNodes"].([]any)
		request, _ := out["request"].(map[string]any)
		by, _ := request["requestedBy"].(map[string]any)
		if status != 200 || out["state"] != "awaiting_approval" || fmt.Sprint(named(out)) != fmt.Sprint(want) ||
			len(locked) != 2 || request["id"] != approvalID || by["id"] != a.Contributor.ID ||
			request["executeAt"] != "2026-11-02T07:00:00Z" {
			t.Fatalf("%d %v", status, out)
		}
	})

	t.Run("Scheduled", func(t *testing.T) {
		if status, out := apptest.APICall(t, a, "POST", base+"/approvals/"+fmt.Sprint(approvalID)+"/approve", editor, ""); status != 200 {
			t.Fatalf("approve: %d %v", status, out)
		}
		status, out := apptest.APICall(t, a, "GET", base+"/releases/"+id, editor, "")
		locked, _ := out["lockedNodes"].([]any)
		if status != 200 || out["state"] != "scheduled" || len(locked) != 2 || out["request"] != nil {
			t.Fatalf("%d %v", status, out)
		}
	})
}
