package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

func TestUndoPages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	a.clock.Set(rel.When.At)
	if _, err := a.sched.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	site, err := a.eng.Site(context.Background(), a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	page := "/studio/releases/" + rel.ID
	c := a.signedIn(t, a.editor)
	token := c.token()
	runScenarios(t, c, []scenario{
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
	contributor := a.signedIn(t, a.contributor)
	contributor.check(t, scenario{Name: "ContributorHasNoButton", URL: page, ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`data-testid="undo"`}})
}
