package handlers_test

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
)

// draftRoute gives TestCSRF what a draft release's routes need: a fresh
// draft (the article and a new page) to change, the URL and a valid form.
// ok is false for the other routes.
func (a *testApp) draftRoute(t *testing.T, pattern string) (string, url.Values, bool) {
	t.Helper()
	switch pattern {
	case "/studio/releases":
		return pattern, url.Values{"title": {"Autumn launch"}, "node": {a.draft.ID}}, true
	case "/studio/releases/{id}/rename", "/studio/releases/{id}/items", "/studio/releases/{id}/items/remove",
		"/studio/releases/{id}/repin-draft", "/studio/releases/{id}/schedule":
	default:
		return "", nil, false
	}
	extra := a.createNode(t, release.KindPage, content.Body{Title: "Results", Slug: "results", Status: content.StatusDraft})
	rel, err := a.releases.NewRelease(context.Background(), a.editor, a.site.ID, "Autumn launch", []string{a.draft.ID, extra.ID})
	if err != nil {
		t.Fatal(err)
	}
	u := strings.ReplaceAll(pattern, "{id}", rel.ID)
	rev := []string{"1"}
	switch pattern {
	case "/studio/releases/{id}/rename":
		return u, url.Values{"rev": rev, "title": {"Winter launch"}}, true
	case "/studio/releases/{id}/items":
		more := a.createNode(t, release.KindPage, content.Body{Title: "Charts", Slug: "charts", Status: content.StatusDraft})
		return u, url.Values{"rev": rev, "node": {more.ID}}, true
	case "/studio/releases/{id}/items/remove":
		return u, url.Values{"rev": rev, "node": {extra.ID}}, true
	case "/studio/releases/{id}/schedule":
		return u, url.Values{"rev": rev, "date": {"2026-11-02"}, "time": {"09:30"}}, true
	}
	return u, url.Values{"rev": rev}, true
}

var draftLocation = regexp.MustCompile(`^/studio/releases/(rel_[A-Za-z0-9]+)$`)

// The whole way of a multi-item release through Studio's forms: New
// release… from the content list, the draft's page with the closure's
// reason, refusals in the person's language that change nothing, items
// added and removed, a rename, Re-pin after an edit, Schedule…, and the
// tick publishing every item.
func TestDraftReleaseFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	// The article uses a results page that is not live yet.
	results := a.createNode(t, release.KindPage, content.Body{Title: "Results table", Slug: "results", Status: content.StatusDraft, Text: "Turnout 84%."})
	d, err := a.nodes.Node(ctx, a.editor, a.site.ID, a.draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := d.Body
	body.Refs = []string{results.ID, a.page.ID}
	if a.draft, err = a.nodes.SaveNode(ctx, a.editor, a.site.ID, a.draft.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	c := a.signedIn(t, a.editor)
	token := c.token()

	c.check(t, scenario{Name: "ContentList", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`action="/studio/releases/new"`, `form="new-release"`, `value="` + a.draft.ID + `"`, "New release…"}})
	c.check(t, scenario{Name: "SchedulesPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/releases/new"`}})
	c.check(t, scenario{Name: "NewForm", URL: "/studio/releases/new?node=" + a.draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-release-form"`, `value="` + a.draft.ID + `" checked`, "Unpublish at this time"}})

	// A live page with nothing new is refused, named, and nothing changes.
	before := a.fingerprint(t)
	c.check(t, scenario{Name: "NothingToPublish", Method: "POST", URL: "/studio/releases",
		Form:           url.Values{"csrf_token": {token}, "title": {"Autumn launch"}, "node": {a.draft.ID, a.page.ID}},
		ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"“About” has nothing new to publish", `value="Autumn launch"`,
			`value="` + a.draft.ID + `" checked`}})
	c.check(t, scenario{Name: "BadTitle", Method: "POST", URL: "/studio/releases",
		Form:            url.Values{"csrf_token": {token}, "title": {strings.Repeat("x", 201)}, "node": {a.draft.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-title"`, "at most 200 characters"}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("refused creations changed state:\nbefore %s\nafter  %s", before, after)
	}

	res := c.check(t, scenario{Name: "Create", Method: "POST", URL: "/studio/releases",
		Form: url.Values{"csrf_token": {token}, "title": {"Autumn launch"}, "node": {a.draft.ID}}, ExpectedStatus: http.StatusSeeOther})
	m := draftLocation.FindStringSubmatch(res.Header.Get("Location"))
	if m == nil {
		t.Fatalf("created release at %q", res.Header.Get("Location"))
	}
	id := m[1]
	page := "/studio/releases/" + id
	c.check(t, scenario{Name: "DraftPage", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Release created.", "Autumn launch", `data-state="draft"`, "2 items",
		`data-testid="item-` + a.draft.ID + `"`, `data-testid="item-` + results.ID + `"`,
		"Added because “Election night live” uses it", "pinned version 2 · Not live",
		`data-testid="draft-schedule-form"`, `hx-get="/studio/releases/` + id + `/schedule/preview"`, `data-testid="add-items-form"`},
		NotExpectedContent: []string{`data-testid="repin"`}})
	c.check(t, scenario{Name: "Preview", URL: page + "/schedule/preview?date=2026-11-02&time=09:30", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Publishes on Monday 2 November at", "09:30"}})
	c.check(t, scenario{Name: "OnTheSchedulesPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="draft-` + id + `"`, "Draft releases"}})

	// The results page is needed by the article: refused, named, unchanged.
	rev := func() string { return fmt.Sprint(a.release(t, id).Rev) }
	before = a.fingerprint(t)
	c.check(t, scenario{Name: "RemoveNeeded", Method: "POST", URL: page + "/items/remove",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {results.ID}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"“Results table” cannot leave the release: “Election night live” uses it."}})
	c.check(t, scenario{Name: "StaleRename", Method: "POST", URL: page + "/rename",
		Form:            url.Values{"csrf_token": {token}, "rev": {"7"}, "title": {"Winter"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"This changed somewhere else meanwhile."}})
	c.check(t, scenario{Name: "SchedulePast", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-01"}, "time": {"09:00"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-time"`, "This time has already passed.", `value="2026-11-01"`}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("refused changes changed state:\nbefore %s\nafter  %s", before, after)
	}

	// Rename, add a live page to take down and another to publish, remove one.
	contact := a.createNode(t, release.KindPage, content.Body{Title: "Contact", Slug: "contact", Status: content.StatusDraft})
	c.check(t, scenario{Name: "Rename", Method: "POST", URL: page + "/rename",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}, "title": {"Seçim gecesi"}}, ExpectedStatus: http.StatusSeeOther})
	c.check(t, scenario{Name: "Add", Method: "POST", URL: page + "/items",
		Form:           url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {contact.ID}, "remove": {a.live.ID}},
		ExpectedStatus: http.StatusSeeOther})
	c.check(t, scenario{Name: "AfterAdd", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Seçim gecesi", "4 items", "Unpublish · takes live version 1 down", `data-testid="item-` + contact.ID + `"`}})
	c.check(t, scenario{Name: "Remove", Method: "POST", URL: page + "/items/remove",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}, "node": {contact.ID}}, ExpectedStatus: http.StatusSeeOther})

	// An edit after pinning: the page offers Re-pin; scheduling is refused.
	d, err = a.nodes.Node(ctx, a.editor, a.site.ID, results.ID)
	if err != nil {
		t.Fatal(err)
	}
	body = d.Body
	body.Text = "Turnout 85%."
	if _, err := a.nodes.SaveNode(ctx, a.editor, a.site.ID, results.ID, d.Rev, body); err != nil {
		t.Fatal(err)
	}
	c.check(t, scenario{Name: "Moved", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Changed since it was pinned", `data-testid="repin"`, "Re-pin"}})
	before = a.fingerprint(t)
	c.check(t, scenario{Name: "SchedulePinnedChanged", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-02"}, "time": {"09:30"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"“Results table” changed after it was pinned. Re-pin"}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("a refused schedule changed state:\nbefore %s\nafter  %s", before, after)
	}
	c.check(t, scenario{Name: "Repin", Method: "POST", URL: page + "/repin-draft",
		Form: url.Values{"csrf_token": {token}, "rev": {rev()}}, ExpectedStatus: http.StatusSeeOther})

	// In Turkish, the draft speaks Turkish.
	a.setLang(t, a.editor, "tr")
	c.check(t, scenario{Name: "Turkish", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		`<html lang="tr">`, "“Election night live” kullandığı için eklendi", "sabitlenmiş sürüm", "Yayından kaldır · yayındaki sürüm 1 kaldırılır"},
		NotExpectedContent: []string{"Re-pin"}})
	a.setLang(t, a.editor, "en")

	c.check(t, scenario{Name: "Schedule", Method: "POST", URL: page + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {rev()}, "date": {"2026-11-02"}, "time": {"09:30"}},
		ExpectedStatus:  http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": page}})
	rel := a.release(t, id)
	if rel.State != release.StateScheduled || len(rel.Items) != 3 || rel.Approval == nil || rel.Approval.By.ID != a.editor.ID {
		t.Fatalf("after Schedule: %s, %d items, approval %+v", rel.State, len(rel.Items), rel.Approval)
	}
	c.check(t, scenario{Name: "ScheduledPage", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		"Scheduled.", `data-state="scheduled"`, "Added because “Election night live” uses it", `data-testid="move-form"`},
		NotExpectedContent: []string{`data-testid="draft-schedule-form"`}})

	// At 09:30 the tick publishes every item; the taken-down article is gone.
	a.clock.Set(*rel.ExecuteAt)
	if rep, err := a.sched.RunDue(ctx, "manual"); err != nil || rep.Published != 1 {
		t.Fatalf("tick %+v, %v", rep, err)
	}
	pub := a.client(t, "")
	pub.check(t, scenario{Name: "ArticleLive", URL: "/posts/election-night", ExpectedStatus: http.StatusOK})
	pub.check(t, scenario{Name: "ResultsLive", URL: "/results", ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Turnout 85%."}})
	pub.check(t, scenario{Name: "TakenDown", URL: "/posts/welcome", ExpectedStatus: http.StatusNotFound})
}

// A Contributor's draft goes to approval when scheduled, with one request;
// overlaps are flagged on both releases.
func TestDraftReleaseApprovalAndOverlaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newApp(t)
	budget := a.otherDraft(t)
	draft, err := a.releases.NewRelease(ctx, a.contributor, a.site.ID, "Budget week", []string{budget.ID, a.draft.ID})
	if err != nil {
		t.Fatal(err)
	}
	// The editor schedules the article on its own, after the draft pinned it.
	held := a.scheduleAt(t, a.editor, a.draft, "2026-11-03", "09:00")

	c := a.signedIn(t, a.contributor)
	token := c.token()
	c.check(t, scenario{Name: "DraftFlagsTheOther", URL: "/studio/releases/" + draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="overlap-` + held.ID + `"`, "Also in “Election night live” · Tuesday 3 November 09:00",
			"An editor has to approve it before it is published."}})
	c.check(t, scenario{Name: "OtherFlagsTheDraft", URL: "/studio/releases/" + held.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="overlap-` + draft.ID + `"`, "Also in “Budget week”"}})

	// Scheduling the other promoted the article (a new version), so the
	// draft's pin moved: refused until re-pinned (an overlap as such is
	// allowed, D15).
	before := a.fingerprint(t)
	c.check(t, scenario{Name: "PinMoved", Method: "POST", URL: "/studio/releases/" + draft.ID + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"10:00"}},
		ExpectedStatus:  http.StatusConflict,
		ExpectedContent: []string{"“Election night live” changed after it was pinned."}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("a refused schedule changed state:\nbefore %s\nafter  %s", before, after)
	}
	c.check(t, scenario{Name: "LeaveItOut", Method: "POST", URL: "/studio/releases/" + draft.ID + "/items/remove",
		Form: url.Values{"csrf_token": {token}, "rev": {"1"}, "node": {a.draft.ID}}, ExpectedStatus: http.StatusSeeOther})
	c.check(t, scenario{Name: "Schedule", Method: "POST", URL: "/studio/releases/" + draft.ID + "/schedule",
		Form:            url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-02"}, "time": {"10:00"}},
		ExpectedStatus:  http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": "/studio/releases/" + draft.ID}})
	rel := a.release(t, draft.ID)
	if rel.State != release.StateAwaitingApproval {
		t.Fatalf("state %s, want awaiting_approval", rel.State)
	}
	list, err := a.releases.Approvals(ctx, a.editor, a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range list {
		if v.Release.ID == draft.ID {
			n++
			if v.Request.StateHash != rel.Hash || v.Request.RequestedBy.ID != a.contributor.ID {
				t.Fatalf("request %+v", v.Request)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d requests for the release, want 1", n)
	}
}
