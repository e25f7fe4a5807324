package studio_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/handlers/internal/apptest"
)

// TestLatenessReadsAsMinutesAndSeconds is issue 10's newcomer bullets: a
// release published 134 s late read "134 seconds late" on its page, and its
// history said "Scheduler yayımladı" in Turkish. Now the page and the
// notifications say "2 min 14 s" ("2 dk 14 sn gecikmeyle"), and the system's
// scheduler is "Zamanlayıcı" in Turkish.
func TestLatenessReadsAsMinutesAndSeconds(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	r := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(time.Date(2026, 11, 2, 6, 2, 14, 0, time.UTC)) // 09:02:14 in Istanbul
	if rep, err := a.Scheduler.RunDue(context.Background(), "node"); err != nil || rep.Published != 1 {
		t.Fatalf("tick: %+v %v", rep, err)
	}

	en := a.SignedIn(t, a.Editor)
	en.Check(t, apptest.Scenario{Name: "ReleasePage", URL: "/studio/releases/" + r.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"2 min 14 s late", "Scheduler published it"},
		NotExpectedContent: []string{"134 seconds", "134 s"}})
	en.Check(t, apptest.Scenario{Name: "Notifications", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 min 14 s late"}, NotExpectedContent: []string{"134 s", "2 min late"}})

	a.SetLang(t, a.Editor, "tr")
	tr := a.SignedIn(t, a.Editor)
	tr.Check(t, apptest.Scenario{Name: "ReleasePageTurkish", URL: "/studio/releases/" + r.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"2 dk 14 sn gecikmeyle", "Zamanlayıcı yayımladı"},
		NotExpectedContent: []string{"134 saniye", "Scheduler yayımladı"}})
	tr.Check(t, apptest.Scenario{Name: "NotificationsTurkish", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 dk 14 sn gecikmeyle"}})
}
