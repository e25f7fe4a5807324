package handlers_test

import (
	"context"
	"net/http"
	"testing"
)

func TestNotificationsPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	if _, err := a.sched.RunDue(context.Background(), "node"); err != nil { // a live scheduler
		t.Fatal(err)
	}
	a.scheduleAt(t, a.contributor, a.draft, "2026-11-02", "09:00") // due in an hour
	editor := a.signedIn(t, a.editor)
	runScenarios(t, editor, []scenario{
		{Name: "Bell", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`class="bell has-notices"`, "1 notification"}},
		{Name: "Page", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="notice-schedule-approval-due"`,
				"“Election night live” publishes on 2 November 2026, 09:00 but is waiting for approval.",
				`href="/studio/approvals"`, "Review"}},
	})
	a.setLang(t, a.contributor, "tr")
	contributor := a.signedIn(t, a.contributor)
	runScenarios(t, contributor, []scenario{
		{Name: "RequesterHasNone", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"İlgilenmeniz gereken bir şey yok.", "0 bildirim"},
			NotExpectedContent: []string{"has-notices"}},
	})
}
