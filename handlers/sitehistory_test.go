package handlers_test

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
)

// The History page: what happened on the site and by whom (the scheduler
// on behalf of the approver), filtered by the URL, a page at a time, in
// both languages, exported as CSV; who was invited only for those who
// manage people.
func TestSiteHistory(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	a.tickAt(t, time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if got := a.release(t, rel.ID); got.State != release.StatePublished {
		t.Fatalf("release %s", got.State)
	}
	a.pauseSchedules(t, "Checking the feed")
	owner, _, err := a.store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	owner.Role, owner.SiteID = policy.Owner, a.site.ID
	if _, _, err := a.people.Invite(ctx, owner, a.site.ID, "guest@example.com", policy.Author); err != nil {
		t.Fatal(err)
	}
	formula, err := a.releases.CreateDraft(ctx, a.editor, releases.DraftInput{SiteID: a.site.ID, Title: "=HYPERLINK(\"http://evil\")",
		RemoveIDs: []string{a.live.ID}})
	if err != nil {
		t.Fatal(err)
	}

	c := a.signedIn(t, a.editor)
	c.check(t, scenario{Name: "All", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="history-link"`, "Paused the schedules", "Checking the feed", "Published a release",
			"The scheduler", "on behalf of Elif Editor", "Scheduled a release", `href="/studio/releases/` + rel.ID + `"`,
			"Oya Owner", `href="/studio/history.csv"`},
		NotExpectedContent: []string{"guest@example.com", "Invited someone"}})
	c.check(t, scenario{Name: "Published", URL: "/studio/history?kind=published&actor=system", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"Published a release", "on behalf of Elif Editor", "Clear the filters", `href="/studio/history.csv?actor=system&amp;kind=published"`},
		NotExpectedContent: []string{"Paused the schedules", "Scheduled a release"}})
	c.check(t, scenario{Name: "PeopleNotForAnEditor", URL: "/studio/history?kind=people", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"Invited someone"}})
	c.check(t, scenario{Name: "UnknownIsNoFilter", URL: "/studio/history?kind=nonsense&actor=robot", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Paused the schedules", "Published a release"}, NotExpectedContent: []string{"Clear the filters"}})
	a.signedIn(t, owner).check(t, scenario{Name: "PeopleForTheOwner", URL: "/studio/history?kind=people", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Invited someone", "Oya Owner"}, NotExpectedContent: []string{"Published a release"}})

	res := c.check(t, scenario{Name: "CSV", URL: "/studio/history.csv", ExpectedStatus: http.StatusOK,
		ExpectedHeaders: map[string]string{"Content-Type": "text/csv; charset=utf-8", "Cache-Control": "no-store"}})
	if !strings.HasPrefix(res.Header.Get("Content-Disposition"), `attachment; filename="history-`+a.site.ID+`-2026-11-02.csv"`) {
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
	tr := a.signedIn(t, a.editor)
	tr.check(t, scenario{Name: "Turkish", Method: "POST", URL: "/studio/lang",
		Form: map[string][]string{"csrf_token": {tr.token()}, "lang": {"tr"}}, ExpectedStatus: http.StatusSeeOther})
	tr.check(t, scenario{Name: "InTurkish", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Geçmiş kaydı", "Zamanlayıcı", "Elif Editor adına", "Bir yayını yayımladı", "Zamanlamaları duraklattı"}})
}

// History pages go back a page at a time, none lost or shown twice.
func TestSiteHistoryPages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for i := range 60 {
		if err := a.store.AppendAudit(context.Background(), engine.AuditEntry{Action: "site.daily_write_cap", SiteID: a.site.ID,
			Actor: a.editor.Actor(), At: start, Details: map[string]any{"reason": fmt.Sprintf("step %02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	c := a.signedIn(t, a.editor)
	first := c.check(t, scenario{Name: "First", URL: "/studio/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"step 59", "step 10", `data-testid="history-next"`}, NotExpectedContent: []string{"step 09"}})
	if n := strings.Count(first.Body, `data-testid="history-row"`); n != 50 {
		t.Fatalf("first page: %d rows, want 50", n)
	}
	next := between(first.Body, `href="`, `" data-testid="history-next"`)
	second := c.check(t, scenario{Name: "Second", URL: strings.ReplaceAll(next, "&amp;", "&"), ExpectedStatus: http.StatusOK,
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
