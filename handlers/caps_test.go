package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"studio/engine/releases"
	"testing"
)

// TestOpenReleaseCapHTTP: a Contributor with 20 open releases is refused a
// 21st in Studio's form and in the API, and nothing changes (issue 10 item 5).
func TestOpenReleaseCapHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	for i := range 20 {
		if _, err := a.releases.CreateDraft(ctx, a.contributor, releases.DraftInput{SiteID: a.site.ID, Title: fmt.Sprintf("R%d", i),
			NodeIDs: []string{a.draft.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	before := a.fingerprint(t)
	c := a.signedIn(t, a.contributor)
	c.check(t, scenario{Name: "StudioForm", Method: "POST", URL: "/studio/releases",
		Form:            url.Values{"csrf_token": {c.token()}, "title": {"One too many"}, "node": {a.draft.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"You already have 20 releases that are not finished."}})
	status, out := apiCall(t, a, "POST", "/api/sites/"+a.site.ID+"/releases", a.tokenFor(t, a.contributor),
		`{"title": "One too many", "nodeIds": ["`+a.draft.ID+`"]}`)
	wantError(t, "API", status, out, http.StatusUnprocessableEntity, releases.CodeTooManyOpenReleases, "")
	if details(out)["max"] != float64(20) {
		t.Errorf("details %v, want max 20", details(out))
	}
	if after := a.fingerprint(t); after != before {
		t.Errorf("a refused creation changed the database:\n%s\n%s", before, after)
	}
	// An Editor is not held back by the Contributor's count.
	if _, err := a.releases.CreateDraft(ctx, a.editor, releases.DraftInput{SiteID: a.site.ID, NodeIDs: []string{a.draft.ID}}); err != nil {
		t.Fatal(err)
	}
}

// TestTooFarForRequestHTTP: a Contributor's request more than 30 days
// ahead is refused when scheduling in Studio's form and when moving through
// the API, and nothing changes (issue 10 item 5).
func TestTooFarForRequestHTTP(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	page := a.otherDraft(t)
	r := a.scheduleAt(t, a.contributor, a.draft, "2026-11-10", "09:00")
	a.setLang(t, a.contributor, "tr")
	before := a.fingerprint(t)

	c := a.signedIn(t, a.contributor)
	c.check(t, scenario{Name: "StudioForm", Method: "POST", URL: "/studio/content/" + page.ID + "/schedule",
		Form:            url.Values{"csrf_token": {c.token()}, "rev": {fmt.Sprint(page.Rev)}, "date": {"2026-12-24"}, "time": {"09:00"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Onay isteği en fazla 30 gün sonrası için gönderilebilir."}})
	status, out := apiCall(t, a, "POST", "/api/sites/"+a.site.ID+"/releases/"+r.ID+"/reschedule", a.tokenFor(t, a.contributor),
		fmt.Sprintf(`{"rev": %d, "date": "2027-01-10", "time": "09:00"}`, r.Rev))
	wantError(t, "API", status, out, http.StatusBadRequest, releases.CodeTooFarForRequest, "time")
	if after := a.fingerprint(t); after != before {
		t.Errorf("a refused request changed the database:\n%s\n%s", before, after)
	}
}
