package api_test

import (
	"fmt"
	"strings"
	"testing"

	"studio/handlers/internal/apptest"
)

// After a conflict, GET …/diff is three-way (§6.4, §13): per conflicting
// node the pinned base, the version live now and the pinned target, with
// the body base → live and base → target, as the conflict page shows them.
func TestAPIDiffThreeWayAfterAConflict(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ConflictRelease(t) // base rev 2 "…Corrected.", live rev 1 (undone), target rev 3 "…Updated."
	base := "/api/sites/" + a.Site.ID

	status, out := apptest.APICall(t, a, "GET", base+"/releases/"+rel.ID+"/diff", a.TokenFor(t, a.Contributor), "")
	items, _ := out["items"].([]any)
	if status != 200 || out["threeWay"] != true || len(items) != 1 {
		t.Fatalf("%d %v", status, out)
	}
	it, _ := items[0].(map[string]any)
	c, _ := it["conflict"].(map[string]any)
	live, _ := c["live"].(map[string]any)
	if it["nodeId"] != a.Live.ID || it["base"].(map[string]any)["rev"] != 2.0 || it["target"].(map[string]any)["rev"] != 3.0 ||
		live["rev"] != 1.0 || c["working"].(map[string]any)["rev"] != 3.0 {
		t.Fatalf("item %v", it)
	}
	joined := func(key string) string {
		var out []string
		for _, l := range c[key].([]any) {
			l := l.(map[string]any)
			out = append(out, fmt.Sprint(l["op"], " ", l["text"]))
		}
		return strings.Join(out, "|")
	}
	if got, want := joined("toLive"), "same This is the first article.|removed Corrected."; got != want {
		t.Errorf("base → live %q, want %q", got, want)
	}
	if got, want := joined("toTarget"), "same This is the first article.|same Corrected.|added Updated."; got != want {
		t.Errorf("base → target %q, want %q", got, want)
	}
	titles := ""
	for _, f := range c["fields"].([]any) {
		if f := f.(map[string]any); f["field"] == "title" {
			titles = fmt.Sprint(f["base"], " | ", f["live"], " | ", f["target"])
		}
	}
	if want := "Welcome to the Gazette | Welcome to the Gazette | Welcome to the Gazette"; titles != want {
		t.Errorf("title %q, want %q", titles, want)
	}
	// The live version (rev 1) is in the target's history: Re-base may keep it.
	if rb, _ := out["rebase"].(map[string]any); rb == nil || rb["possible"] != true || c["rebase"].(map[string]any)["possible"] != true {
		t.Errorf("rebase %v", out["rebase"])
	}

	// A release that is no conflict stays two-way.
	other := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "12:00")
	status, out = apptest.APICall(t, a, "GET", base+"/releases/"+other.ID+"/diff", a.TokenFor(t, a.Editor), "")
	items, _ = out["items"].([]any)
	if status != 200 || out["threeWay"] != false || len(items) != 1 || items[0].(map[string]any)["conflict"] != nil || out["rebase"] != nil {
		t.Fatalf("two-way: %d %v", status, out)
	}
}
