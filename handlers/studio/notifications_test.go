package studio_test

import (
	"context"
	"net/http"
	"testing"

	"studio/handlers/internal/apptest"
)

func TestNotificationsPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	if _, err := a.Scheduler.RunDue(context.Background(), "node"); err != nil { // a live scheduler
		t.Fatal(err)
	}
	a.ScheduleAt(t, a.Contributor, a.Draft, "2026-11-02", "09:00") // due in an hour
	editor := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "Bell", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`class="bell has-notices"`, "1 notification"}},
		{Name: "Page", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="notice-schedule-approval-due"`,
				"“Election night live” publishes on 2 November 2026, 09:00 but is waiting for approval.",
				`href="/studio/approvals"`, "Review"}},
	})
	a.SetLang(t, a.Contributor, "tr")
	contributor := a.SignedIn(t, a.Contributor)
	apptest.RunScenarios(t, contributor, []apptest.Scenario{
		{Name: "RequesterHasNone", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"İlgilenmeniz gereken bir şey yok.", "0 bildirim"},
			NotExpectedContent: []string{"has-notices"}},
	})
}
