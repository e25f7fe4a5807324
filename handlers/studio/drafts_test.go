package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

var draftLocation = regexp.MustCompile(`^/studio/releases/(rel_[A-Za-z0-9]+)$`)

// The whole way of a multi-item release through Studio's forms: New
// release… from the content list, the draft's page with the closure's
// reason, refusals in the person's language that change nothing, items
// added and removed, a rename, Re-pin after an edit, Schedule…, and the
// tick publishing every item.
func TestDraftReleaseFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	// The article uses a results page that is not live yet.
	results := a.CreateNode(t, release.KindPage, content.Body{Title: "Results table", Slug: "results", Status: content.StatusDraft, Text: "Turnout 84%."})
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := d.Body
	body.Refs = []string{results.ID, a.Page.ID}
	if a.Draft, err = a.Nodes.SaveNode(ctx, a.Editor, a.Site.ID, a.Draft.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	token := c.Token()

	c.Check(t, apptest.Scenario{Name: "ContentList", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`action="/studio/releases/new"`, `form="new-release"`, `value="` + a.Draft.ID + `"`, "New release…"}})
	c.Check(t, apptest.Scenario{Name: "SchedulesPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/releases/new"`}})
	c.Check(t, apptest.Scenario{Name: "NewForm", URL: "/studio/releases/new?node=" + a.Draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-release-form"`, `value="` + a.Draft.ID + `" checked`, "Unpublish at this time"}})

	// A live page with nothing new is refused, named, and nothing changes.
	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "NothingToPublish", Method: "POST", URL: "/studio/releases",
		Form:           url.Values{"csrf_token": {token}, "title": {"Autumn launch"}, "node": {a.Draft.ID, a.Page.ID}},
		ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"“About” has nothing new to publish", `value="Autumn launch"`,
			`value="` + a.Draft.ID + `" checked`}})
	c.Check(t, apptest.Scenario{Name: "BadTitle", Method: "POST", URL: "/studio/releases",
		Form:            url.Values{"csrf_token": {token}, "title": {strings.Repeat("x", 201)}, "node": {a.Draft.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-title"`, "at most 200 characters"}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused creations changed state:\nbefore %s\nafter  %s", before, after)
	}

	res := c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: "/studio/releases",
		Form: url.Values{"csrf_token": {token}, "title": {"Autumn launch"}, "node": {a.Draft.ID}}, ExpectedStatus: http.StatusSeeOther})
	m := draftLocation.FindStringSubmatch(res.Header.Get("Location"))
	if m == nil {
		t.Fatalf("created release at %q", res.Header.Get("Location"))
	}
	id := m[1]
	page := "/studio/releases/" + id
	c.Check(t, apptest.Scenario{Name: "DraftPage", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Release created.", "Autumn launch", `data-state="draft"`, "2 items",
		`data-testid="item-` + a.Draft.ID + `"`, `data-testid="item-` + results.ID + `"`,
		"Added because “Election night live” uses it", "pinned version 2 · Not live",
		`data-testid="draft-schedule-form"`, `hx-get="/studio/releases/` + id + `/schedule/preview"`, `data-testid="add-items-form"`},
		NotExpectedContent: []string{`data-testid="repin"`}})
	c.Check(t, apptest.Scenario{Name: "Preview", URL: page + "/schedule/preview?date=2026-11-02&time=09:30", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Publishes on Monday 2 November at", "09:30"}})
	c.Check(t, apptest.Scenario{Name: "OnTheSchedulesPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="draft-` + id + `"`, "Draft releases"}})

	// The results page is needed by the article: refused, named, unchanged.
	rev := func() string { return fmt.Sprint(a.Release(t, id).Rev) }
	before = a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "RemoveNeeded", Method: "POST", URL: page + "/items/remove",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {results.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"“Results table” cannot leave the release: “Election night live” uses it."}})
	c.Check(t, apptest.Scenario{Name: "StaleRename", Method: "POST", URL: page + "/rename",
		Form:            url.Values{"csrf_token": {token}, "rev": {"7"}, "title": {"Winter"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"This changed somewhere else meanwhile."}})
	c.Check(t, apptest.Scenario{Name: "SchedulePast", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-01"}, "time": {"09:00"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-time"`, "This time has already passed.", `value="2026-11-01"`}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused changes changed state:\nbefore %s\nafter  %s", before, after)
	}

	// Rename, add a live page to take down and another to publish, remove one.
	contact := a.CreateNode(t, release.KindPage, content.Body{Title: "Contact", Slug: "contact", Status: content.StatusDraft})
	c.Check(t, apptest.Scenario{Name: "Rename", Method: "POST", URL: page + "/rename",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}, "title": {"Seçim gecesi"}}, ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "Add", Method: "POST", URL: page + "/items",
		Form:           url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {contact.ID}, "remove": {a.Live.ID}},
		ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "AfterAdd", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Seçim gecesi", "4 items", "Unpublish · takes live version 1 down", `data-testid="item-` + contact.ID + `"`}})
	c.Check(t, apptest.Scenario{Name: "Remove", Method: "POST", URL: page + "/items/remove",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {contact.ID}}, ExpectedStatus: http.StatusSeeOther})

	// An edit after pinning: the page offers Re-pin; scheduling is refused.
	d, err = a.Nodes.Node(ctx, a.Editor, a.Site.ID, results.ID)
	if err != nil {
		t.Fatal(err)
	}
	body = d.Body
	body.Text = "Turnout 85%."
	if _, err := a.Nodes.SaveNode(ctx, a.Editor, a.Site.ID, results.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	c.Check(t, apptest.Scenario{Name: "Moved", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Changed since it was pinned", `data-testid="repin"`, "Re-pin"}})
	before = a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "SchedulePinnedChanged", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-02"}, "time": {"09:30"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"“Results table” changed after it was pinned. Re-pin"}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("a refused schedule changed state:\nbefore %s\nafter  %s", before, after)
	}
	c.Check(t, apptest.Scenario{Name: "Repin", Method: "POST", URL: page + "/repin-draft",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}}, ExpectedStatus: http.StatusSeeOther})

	// In Turkish, the draft speaks Turkish.
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		`<html lang="tr">`, "“Election night live” kullandığı için eklendi", "sabitlenmiş sürüm", "Yayından kaldır · yayındaki sürüm 1 kaldırılır"},
		NotExpectedContent: []string{"Re-pin"}})
	a.SetLang(t, a.Editor, "en")

	c.Check(t, apptest.Scenario{Name: "Schedule", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-02"}, "time": {"09:30"}},
		ExpectedStatus:  http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": page}})
	rel := a.Release(t, id)
	if rel.State != release.StateScheduled || len(rel.Items) != 3 || rel.Approval == nil || rel.Approval.By.ID != a.Editor.ID {
		t.Fatalf("after Schedule: %s, %d items, approval %+v", rel.State, len(rel.Items), rel.Approval)
	}
	c.Check(t, apptest.Scenario{Name: "ScheduledPage", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Scheduled.", `data-state="scheduled"`, "Added because “Election night live” uses it", `data-testid="move-form"`},
		NotExpectedContent: []string{`data-testid="draft-schedule-form"`}})

	// At 09:30 the tick publishes every item; the taken-down article is gone.
	a.Clock.Set(*rel.ExecuteAt)
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 1 {
		t.Fatalf("tick %+v, %v", rep, err)
	}
	pub := a.Client(t, "")
	pub.Check(t, apptest.Scenario{Name: "ArticleLive", URL: "/posts/election-night", ExpectedStatus: http.StatusOK})
	pub.Check(t, apptest.Scenario{Name: "ResultsLive", URL: "/results", ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Turnout 85%."}})
	pub.Check(t, apptest.Scenario{Name: "TakenDown", URL: "/posts/welcome", ExpectedStatus: http.StatusNotFound})
}

// A Contributor's draft goes to approval when scheduled, with one request;
// overlaps are flagged on both releases.
func TestDraftReleaseApprovalAndOverlaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	budget := a.OtherDraft(t)
	draft, err := a.Releases.NewRelease(ctx, a.Contributor, a.Site.ID, "Budget week", []string{budget.ID, a.Draft.ID})
	if err != nil {
		t.Fatal(err)
	}
	// The editor schedules the article on its own, after the draft pinned it.
	held := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "09:00")

	c := a.SignedIn(t, a.Contributor)
	token := c.Token()
	c.Check(t, apptest.Scenario{Name: "DraftFlagsTheOther", URL: "/studio/releases/" + draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="overlap-` + held.ID + `"`, "Also in “Election night live” · Tuesday 3 November 09:00",
			"An editor has to approve it before it is published."}})
	c.Check(t, apptest.Scenario{Name: "OtherFlagsTheDraft", URL: "/studio/releases/" + held.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="overlap-` + draft.ID + `"`, "Also in “Budget week”"}})

	// Scheduling the other promoted the article (a new version), so the
	// draft's pin moved: refused until re-pinned (an overlap as such is
	// allowed, D15).
	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "PinMoved", Method: "POST", URL: "/studio/releases/" + draft.ID + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"10:00"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"“Election night live” changed after it was pinned."}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("a refused schedule changed state:\nbefore %s\nafter  %s", before, after)
	}
	c.Check(t, apptest.Scenario{Name: "LeaveItOut", Method: "POST", URL: "/studio/releases/" + draft.ID + "/items/remove",
		Form: url.Values{"csrf_token": {token}, "rev": {"1"}, "node": {a.Draft.ID}}, ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "Schedule", Method: "POST", URL: "/studio/releases/" + draft.ID + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-02"}, "time": {"10:00"}},
		ExpectedStatus:  http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/releases/" + draft.ID}})
	rel := a.Release(t, draft.ID)
	if rel.State != release.StateAwaitingApproval {
		t.Fatalf("state %s, want awaiting_approval", rel.State)
	}
	list, err := a.Releases.Approvals(ctx, a.Editor, a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range list {
		if v.Release.ID == draft.ID {
			n++
			if v.Request.StateHash != rel.Hash || v.Request.RequestedBy.ID != a.Contributor.ID {
				t.Fatalf("request %+v", v.Request)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d requests for the release, want 1", n)
	}
}
