package studio_test

import (
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

// TestNavCounts: beside Approvals, the requests the signed-in person may
// decide (not their own); beside Schedules, what needs attention; every
// page asks for them when it loads.
func TestNavCounts(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	editor := a.SignedIn(t, a.Editor)
	contributor := a.SignedIn(t, a.Contributor)
	none := []string{`<span id="approvals-count" class="nav-count" hx-swap-oob="true" data-testid="approvals-count"></span>`,
		`<span id="attention-count" class="nav-count" hx-swap-oob="true" data-testid="attention-count"></span>`}
	editor.Check(t, apptest.Scenario{Name: "Nothing", URL: "/studio/nav/counts", ExpectedStatus: http.StatusOK, ExpectedContent: none,
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	editor.Check(t, apptest.Scenario{Name: "EveryPageAsks", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`hx-get="/studio/nav/counts" hx-trigger="load, every 30s, studio:counts from:body"`,
			`Waiting for approval <span id="approvals-count" class="nav-count"></span>`}})

	a.ScheduleAt(t, a.Contributor, a.Draft, "2026-11-02", "09:00") // a contributor asks
	editor.Check(t, apptest.Scenario{Name: "OneToDecide", URL: "/studio/nav/counts", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="approvals-count"><span aria-hidden="true">1</span> <span class="sr-only">1 request waits for your decision</span>`}})
	contributor.Check(t, apptest.Scenario{Name: "NotTheirOwn", URL: "/studio/nav/counts", ExpectedStatus: http.StatusOK,
		ExpectedContent: none[:1]})

	a.SetLang(t, a.Editor, "tr")
	editor.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/nav/counts", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<span class="sr-only">1 istek kararınızı bekliyor</span>`}})
	a.ConflictRelease(t) // a release held as a conflict needs attention
	editor.Check(t, apptest.Scenario{Name: "Attention", URL: "/studio/nav/counts", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="attention-count"><span aria-hidden="true">1</span> <span class="sr-only">1 zamanlama dikkat gerektiriyor</span>`}})
}
