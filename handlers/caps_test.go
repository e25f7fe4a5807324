package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
	"testing"
)

// TestOpenReleaseCapHTTP: a Contributor with 20 open releases is refused a
// 21st in Studio's form and in the API, and nothing changes (issue 10 item 5).
func TestOpenReleaseCapHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	for i := range 20 {
		if _, err := a.Releases.CreateDraft(ctx, a.Contributor, releases.DraftInput{SiteID: a.Site.ID, Title: fmt.Sprintf("R%d", i),
			NodeIDs: []string{a.Draft.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	before := a.Fingerprint(t)
	c := a.SignedIn(t, a.Contributor)
	c.Check(t, apptest.Scenario{Name: "StudioForm", Method: "POST", URL: "/studio/releases",
		Form:            url.Values{"csrf_token": {c.Token()}, "title": {"One too many"}, "node": {a.Draft.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"You already have 20 releases that are not finished."}})
	status, out := apptest.APICall(t, a, "POST", "/api/sites/"+a.Site.ID+"/releases", a.TokenFor(t, a.Contributor),
		`{"title": "One too many", "nodeIds": ["`+a.Draft.ID+`"]}`)
	apptest.WantError(t, "API", status, out, http.StatusUnprocessableEntity, releases.CodeTooManyOpenReleases, "")
	if apptest.Details(out)["max"] != float64(20) {
		t.Errorf("details %v, want max 20", apptest.Details(out))
	}
	if after := a.Fingerprint(t); after != before {
		t.Errorf("a refused creation changed the database:\n%s\n%s", before, after)
	}
	// An Editor is not held back by the Contributor's count.
	if _, err := a.Releases.CreateDraft(ctx, a.Editor, releases.DraftInput{SiteID: a.Site.ID, NodeIDs: []string{a.Draft.ID}}); err != nil {
		t.Fatal(err)
	}
}

// TestTooFarForRequestHTTP: a Contributor's request more than 30 days
// ahead is refused when scheduling in Studio's form and when moving through
// the API, and nothing changes (issue 10 item 5).
func TestTooFarForRequestHTTP(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	page := a.OtherDraft(t)
	r := a.ScheduleAt(t, a.Contributor, a.Draft, "2026-11-10", "09:00")
	a.SetLang(t, a.Contributor, "tr")
	before := a.Fingerprint(t)

	c := a.SignedIn(t, a.Contributor)
	c.Check(t, apptest.Scenario{Name: "StudioForm", Method: "POST", URL: "/studio/content/" + page.ID + "/schedule",
		Form:            url.Values{"csrf_token": {c.Token()}, "rev": {fmt.Sprint(page.Rev)}, "date": {"2026-12-24"}, "time": {"09:00"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Onay isteği en fazla 30 gün sonrası için gönderilebilir."}})
	status, out := apptest.APICall(t, a, "POST", "/api/sites/"+a.Site.ID+"/releases/"+r.ID+"/reschedule", a.TokenFor(t, a.Contributor),
		fmt.Sprintf(`{"rev": %d, "date": "2027-01-10", "time": "09:00"}`, r.Rev))
	apptest.WantError(t, "API", status, out, http.StatusBadRequest, releases.CodeTooFarForRequest, "time")
	if after := a.Fingerprint(t); after != before {
		t.Errorf("a refused request changed the database:\n%s\n%s", before, after)
	}
}
