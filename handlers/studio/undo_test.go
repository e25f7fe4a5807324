package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"studio/handlers/internal/apptest"
)

func TestUndoPages(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(rel.When.At)
	if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	site, err := a.Engine.Site(context.Background(), a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	page := "/studio/releases/" + rel.ID
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "LiveBefore", URL: "/posts/election-night", ExpectedStatus: http.StatusOK},
		{Name: "Button", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{`data-testid="undo"`}},
		{Name: "Confirm", URL: page + "/undo", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Undo “Election night live”?", "The site goes back to how it was"}},
		{Name: "StaleSite", Method: "POST", URL: page + "/undo",
			Form:           url.Values{"csrf_token": {token}, "site_rev": {fmt.Sprint(site.Rev - 1)}},
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile."}},
		{Name: "StillLive", URL: "/posts/election-night", ExpectedStatus: http.StatusOK},
		{Name: "Undo", Method: "POST", URL: page + "/undo",
			Form: url.Values{"csrf_token": {token}, "site_rev": {fmt.Sprint(site.Rev)}}, ExpectedStatus: http.StatusSeeOther},
		{Name: "Gone", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound},
		{Name: "History", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Undone. The site is back", "Elif Editor undid it"}},
	})
	contributor := a.SignedIn(t, a.Contributor)
	contributor.Check(t, apptest.Scenario{Name: "ContributorHasNoButton", URL: page, ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`data-testid="undo"`}})
}
