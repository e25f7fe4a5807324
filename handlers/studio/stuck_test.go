package studio_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"studio/engine/ids"
	"studio/engine/policy"
	"studio/engine/scheduler"
	"studio/handlers/internal/apptest"
)

// deadClaim claims release id at 09:00 as a ticker that dies right after
// (its lease is the 45 s a real claim takes), then lets the app's engine
// tick once at 09:00, which holds the site's next release behind it.
func deadClaim(t *testing.T, a *apptest.App, id string) {
	t.Helper()
	ctx := context.Background()
	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	a.Clock.Set(nine)
	r, err := a.Releases.Release(ctx, a.Editor, a.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := a.Store.ClaimRelease(ctx, scheduler.Claim{RunID: ids.RunID(id, nine), SiteID: a.Site.ID, ReleaseID: id,
		Rev: r.Rev, State: r.State, ExecuteAt: nine, Token: "lease_dead", LeaseUntil: nine.Add(45 * time.Second),
		Trigger: "node", Now: nine})
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if rep, err := a.Scheduler.RunDue(ctx, "node"); err != nil || rep.Published != 0 {
		t.Fatalf("tick beside the dead claim: %+v %v", rep, err)
	}
}

// TestSchedulerCardAndNotificationsNameStuckReleases is issue 10 item 2's
// report on Studio's pages: a release due and not claimed, and one running
// past its lease, appear on the Scheduler card (which no longer says
// Running) and in the notifications, in English and Turkish.
func TestSchedulerCardAndNotificationsNameStuckReleases(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	admin := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	r1 := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "09:00")
	deadClaim(t, a, r1.ID)
	a.Clock.Set(time.Date(2026, 11, 2, 6, 1, 10, 0, time.UTC)) // the lease ended 25 s ago; both are 70 s late

	en := a.SignedIn(t, admin)
	en.Check(t, apptest.Scenario{Name: "Card", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="stuck"`, "2 releases are past their time", "Election night live", "Budget night",
			"due at", "stuck since", `data-state="late"`},
		NotExpectedContent: []string{`data-state="running"`}})
	en.Check(t, apptest.Scenario{Name: "Notifications", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"“Budget night” was due at", "the scheduler has not taken it yet",
			"“Election night live” is stuck", "/studio/releases/" + r1.ID}})
	a.Editor.Lang = "tr"
	a.SetLang(t, a.Editor, "tr")
	tr := a.SignedIn(t, a.Editor)
	tr.Check(t, apptest.Scenario{Name: "NotificationsTurkish", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"“Budget night” için yayım zamanı geçti", "“Election night live” yayımlanırken takıldı"}})
	a.SetLang(t, admin, "tr")
	trAdmin := a.SignedIn(t, admin)
	trAdmin.Check(t, apptest.Scenario{Name: "CardTurkish", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 yayın paketinin zamanı geçti", "takıldı:", `data-state="late"`}})

	// A contributor with no part in them is not told.
	a.SignedIn(t, a.Contributor).Check(t, apptest.Scenario{Name: "Contributor", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"Budget night", "Election night live"}})
}
