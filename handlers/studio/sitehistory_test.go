package studio_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// The History page: what happened on the site and by whom (the scheduler
// on behalf of the approver), filtered by the URL, a page at a time, in
// both languages, exported as CSV; who was invited only for those who
// manage people.
func TestSiteHistory(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.TickAt(t, time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if got := a.Release(t, rel.ID); got.State != release.StatePublished {
		t.Fatalf("release %s", got.State)
	}
	a.PauseSchedules(t, "Checking the feed")
	owner, _, err := a.Store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	owner.Role, owner.SiteID = policy.Owner, a.Site.ID
	if _, _, err := a.People.Invite(ctx, owner, a.Site.ID, "guest@example.com", policy.Author); err != nil {
		t.Fatal(err)
	}
	formula, err := a.Releases.CreateDraft(ctx, a.Editor, releases.DraftInput{SiteID: a.Site.ID, Title: "=HYPERLINK(\"http://evil\")",
		RemoveIDs: []string{a.Live.ID}})
	if err != nil {
		t.Fatal(err)
	}

	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "All", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="history-link"`, "Paused the schedules", "Checking the feed", "Published a release",
			"The scheduler", "on behalf of Elif Editor", "Scheduled a release", `href="/studio/releases/` + rel.ID + `"`,
			"Oya Owner", `href="/studio/history.csv"`},
		NotExpectedContent: []string{"guest@example.com", "Invited someone"}})
	c.Check(t, apptest.Scenario{Name: "Published", URL: "/studio/history?kind=published&actor=system", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"Published a release", "on behalf of Elif Editor", "Clear the filters", `href="/studio/history.csv?actor=system&amp;kind=published"`},
		NotExpectedContent: []string{"Paused the schedules", "Scheduled a release"}})
	c.Check(t, apptest.Scenario{Name: "PeopleNotForAnEditor", URL: "/studio/history?kind=people", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"Invited someone"}})
	c.Check(t, apptest.Scenario{Name: "UnknownIsNoFilter", URL: "/studio/history?kind=nonsense&actor=robot", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Paused the schedules", "Published a release"}, NotExpectedContent: []string{"Clear the filters"}})
	a.SignedIn(t, owner).Check(t, apptest.Scenario{Name: "PeopleForTheOwner", URL: "/studio/history?kind=people", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Invited someone", "Oya Owner"}, NotExpectedContent: []string{"Published a release"}})

	res := c.Check(t, apptest.Scenario{Name: "CSV", URL: "/studio/history.csv", ExpectedStatus: http.StatusOK,
		ExpectedHeaders: map[string]string{"Content-Type": "text/csv; charset=utf-8", "Cache-Control": "no-store"}})
	if !strings.HasPrefix(res.Header.Get("Content-Disposition"), `attachment; filename="history-`+a.Site.ID+`-2026-11-02.csv"`) {
		t.Errorf("Content-Disposition %q", res.Header.Get("Content-Disposition"))
	}
	records, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil || len(records) < 4 {
		t.Fatalf("CSV: %d records, %v\n%s", len(records), err, res.Body)
	}
	if h := strings.Join(records[0], "|"); h != "Time (UTC)|Time (site)|What|Action|Who|Actor kind|On behalf of|Release|Release title|Reason" {
		t.Errorf("CSV header %q", h)
	}
	var published, formulaKept bool
	for _, r := range records[1:] {
		if r[3] == "release.publish" && r[4] == "The scheduler" && r[6] == "Elif Editor" && r[7] == rel.ID && r[1] == "2026-11-02 09:00" {
			published = true
		}
		if r[7] == formula.ID && r[8] == `'=HYPERLINK("http://evil")` {
			formulaKept = true
		}
		if strings.Contains(strings.Join(r, " "), "guest@example.com") {
			t.Errorf("the editor's CSV has an invitation: %v", r)
		}
	}
	if !published || !formulaKept {
		t.Errorf("CSV: the publish row %v, the formula-safe title %v\n%s", published, formulaKept, res.Body)
	}

	// The account's language, chosen on the page, words the page.
	tr := a.SignedIn(t, a.Editor)
	tr.Check(t, apptest.Scenario{Name: "Turkish", Method: "POST", URL: "/studio/lang",
		Form: map[string][]string{"csrf_token": {tr.Token()}, "lang": {"tr"}}, ExpectedStatus: http.StatusSeeOther})
	tr.Check(t, apptest.Scenario{Name: "InTurkish", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Geçmiş kaydı", "Zamanlayıcı", "Elif Editor adına", "Bir yayını yayımladı", "Zamanlamaları duraklattı"}})
}

// History pages go back a page at a time, none lost or shown twice.
func TestSiteHistoryPages(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	for i := range 60 {
		if err := a.Store.AppendAudit(context.Background(), engine.AuditEntry{Action: "site.daily_write_cap", SiteID: a.Site.ID,
			Actor: a.Editor.Actor(), At: apptest.Start, Details: map[string]any{"reason": fmt.Sprintf("step %02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	c := a.SignedIn(t, a.Editor)
	first := c.Check(t, apptest.Scenario{Name: "First", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"step 59", "step 10", `data-testid="history-next"`}, NotExpectedContent: []string{"step 09"}})
	if n := strings.Count(first.Body, `data-testid="history-row"`); n != 50 {
		t.Fatalf("first page: %d rows, want 50", n)
	}
	next := between(first.Body, `href="`, `" data-testid="history-next"`)
	second := c.Check(t, apptest.Scenario{Name: "Second", URL: strings.ReplaceAll(next, "&amp;", "&"), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"step 09", "step 00"}, NotExpectedContent: []string{"step 10", `data-testid="history-next"`}})
	if n := strings.Count(second.Body, `data-testid="history-row"`); n < 10 {
		t.Fatalf("second page: %d rows", n)
	}
}

// between is the text of s between the last before ending at the first end.
func between(s, before, end string) string {
	i := strings.Index(s, end)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(s[:i], before)
	if j < 0 {
		return ""
	}
	return s[j+len(before) : i]
}
