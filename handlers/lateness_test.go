package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestLatenessReadsAsMinutesAndSeconds is issue 10's newcomer bullets: a
// release published 134 s late read "134 seconds late" on its page, and its
// history said "Scheduler yayımladı" in Turkish. Now the page and the
// notifications say "2 min 14 s" ("2 dk 14 sn gecikmeyle"), and the system's
// scheduler is "Zamanlayıcı" in Turkish.
func TestLatenessReadsAsMinutesAndSeconds(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	r := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	a.clock.Set(time.Date(2026, 11, 2, 6, 2, 14, 0, time.UTC)) // 09:02:14 in Istanbul
	if rep, err := a.sched.RunDue(context.Background(), "node"); err != nil || rep.Published != 1 {
		t.Fatalf("tick: %+v %v", rep, err)
	}

	en := a.signedIn(t, a.editor)
	en.check(t, scenario{Name: "ReleasePage", URL: "/studio/releases/" + r.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"2 min 14 s late", "Scheduler published it"},
		NotExpectedContent: []string{"134 seconds", "134 s"}})
	en.check(t, scenario{Name: "Notifications", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 min 14 s late"}, NotExpectedContent: []string{"134 s", "2 min late"}})

	a.setLang(t, a.editor, "tr")
	tr := a.signedIn(t, a.editor)
	tr.check(t, scenario{Name: "ReleasePageTurkish", URL: "/studio/releases/" + r.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"2 dk 14 sn gecikmeyle", "Zamanlayıcı yayımladı"},
		NotExpectedContent: []string{"134 saniye", "Scheduler yayımladı"}})
	tr.check(t, scenario{Name: "NotificationsTurkish", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 dk 14 sn gecikmeyle"}})
}
