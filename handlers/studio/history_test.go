package studio_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
)

var findingKeyRe = regexp.MustCompile(`data-testid="finding-([0-9a-f]+)"`)

// A broken-links run's page: what ran, state and outcome apart, and its
// finding in the reader's language with its actions; "Not a problem" hides
// it and changes nothing else; an Author may not; unknown runs and another
// site's are not found.
func TestRunPageFindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	node := a.BrokenArticle(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	run := a.RunNow(t, a.Editor, au)
	if run.State != string(automation.RunSucceeded) || run.Outcome != string(automation.OutcomeDidWork) {
		t.Fatalf("run: %s %s", run.State, run.Outcome)
	}
	page := studio.RunURL(run.ID)
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "English", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Run of “Link check”", `href="/studio/schedules/automations/` + au.ID + `"`,
			`data-state="succeeded"`, "Succeeded", `data-outcome="did-work"`, "Did work", "Run now", "On time",
			"1 broken link", "pages and articles checked", "<h3 id=\"group-new\">New",
			"Links to /posts/timetable, which is not on the live site.", "In Transit strike",
			`href="/studio/content/` + node.ID + `"`, "Open in editor", "Not a problem",
			`action="/studio/schedules/runs/` + run.ID + `/dismiss"`,
			`action="/studio/schedules/automations/` + au.ID + `/run-now"`, "Check again",
			`href="/studio/schedules/history?automation=` + au.ID + `"`},
		NotExpectedContent: []string{"/about,", "hx-trigger=\"every 2s\"", `data-testid="run-error"`}})
	keys := findingKeyRe.FindAllStringSubmatch(res.Body, -1)
	if len(keys) != 1 {
		t.Fatalf("%d findings on the page, want 1", len(keys))
	}
	key := keys[0][1]

	tr := a.AddUser(t, "tr@example.com", "Tülay Editör", policy.Editor, "tr")
	a.SignedIn(t, tr).Check(t, apptest.Scenario{Name: "Turkish", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"“Link check” çalıştırması", "Başarılı", "İşlem yaptı", "Şimdi çalıştır", "Zamanında",
			"1 kırık bağlantı", "Yeni", "/posts/timetable adresine bağlantı veriyor; bu adres canlı sitede yok.",
			"Yer: Transit strike", "Düzenleyicide aç", "Sorun değil", "Yeniden denetle", `<html lang="tr">`},
		NotExpectedContent: []string{"runs.", "finding."}})

	t.Run("AuthorMayNot", func(t *testing.T) {
		author := a.AddUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
		ac := a.SignedIn(t, author)
		ac.Check(t, apptest.Scenario{Name: "NoButtons", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Links to /posts/timetable", "Open in editor"},
			NotExpectedContent: []string{"Not a problem", "Check again"}})
		before, findings := a.Fingerprint(t), fmt.Sprint(a.FindingsPrint(t))
		ac.Check(t, apptest.Scenario{Name: "Refused", Method: "POST", URL: page + "/dismiss",
			Form: url.Values{"csrf_token": {ac.Token()}, "key": {key}}, ExpectedStatus: http.StatusForbidden,
			ExpectedContent: []string{"Your role does not allow this."}})
		if a.Fingerprint(t) != before || fmt.Sprint(a.FindingsPrint(t)) != findings {
			t.Error("a refused dismiss changed something")
		}
	})

	t.Run("NotAProblem", func(t *testing.T) {
		before, findings := a.Fingerprint(t), a.FindingsPrint(t)
		c.Check(t, apptest.Scenario{Name: "UnknownKey", Method: "POST", URL: page + "/dismiss",
			Form: url.Values{"csrf_token": {c.Token()}, "key": {"nope"}}, ExpectedStatus: http.StatusNotFound})
		c.Check(t, apptest.Scenario{Name: "Dismiss", Method: "POST", URL: page + "/dismiss",
			Form: url.Values{"csrf_token": {c.Token()}, "key": {key}}, ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": page}})
		if after := a.Fingerprint(t); after != before {
			t.Errorf("dismiss changed more than the finding:\nbefore %s\nafter  %s", before, after)
		}
		after := a.FindingsPrint(t)
		for k, v := range findings {
			switch {
			case k == key && !strings.HasSuffix(after[k], a.Editor.ID):
				t.Errorf("the dismissed finding: %q", after[k])
			case k != key && after[k] != v:
				t.Errorf("finding %s changed: %q → %q", k, v, after[k])
			}
		}
		c.Check(t, apptest.Scenario{Name: "Hidden", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Marked “Not a problem”. It stays hidden until it changes.", "Show 1 hidden finding", page + "?hidden=1"},
			NotExpectedContent: []string{`data-testid="finding-` + key + `"`, "This run found nothing to report."}})
		c.Check(t, apptest.Scenario{Name: "ShowHidden", URL: page + "?hidden=1", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`id="group-hidden"`, `data-testid="finding-` + key + `"`, "Back to the open findings"},
			NotExpectedContent: []string{`data-testid="not-a-problem"`}})
	})

	t.Run("NotFound", func(t *testing.T) {
		other, err := a.Engine.CreateSite(ctx, "Other Gazette", "Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		there := a.Editor // an Editor there too
		there.SiteID = other.ID
		oa, err := a.Automations.Create(ctx, there, other.ID, automations.Input{Name: "Other check",
			Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-02T07:10"})
		if err != nil {
			t.Fatal(err)
		}
		orun, _, err := a.Automations.RunNow(ctx, there, other.ID, oa.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The editor is a member of the first site only: Studio shows it,
		// and the run of the other one is not found.
		foreign := orun.ID
		before := a.Fingerprint(t)
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Unknown", URL: studio.RunURL("run_DOESNOTEXIST0000000"), ExpectedStatus: http.StatusNotFound,
				ExpectedContent: []string{"This page does not exist, or it was deleted."}},
			{Name: "OtherSite", URL: studio.RunURL(foreign), ExpectedStatus: http.StatusNotFound},
			{Name: "OtherSiteDismiss", Method: "POST", URL: studio.RunURL(foreign) + "/dismiss",
				Form: url.Values{"csrf_token": {c.Token()}, "key": {key}}, ExpectedStatus: http.StatusNotFound},
		})
		if a.Fingerprint(t) != before {
			t.Error("a request for another site's run changed something")
		}
	})
}

// A run that goes on polls itself with htmx and offers Reload; Run now's
// notice shows on it; once it has ended the poll stops.
func TestRunPageWhileRunning(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.BrokenArticle(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "RunNow", Method: "POST", URL: "/studio/schedules/automations/" + au.ID + "/run-now",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusSeeOther})
	page := res.Header.Get("Location")
	c.Check(t, apptest.Scenario{Name: "Running", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Run started. Its results appear here as it goes.", `data-state="running"`, "Running…",
			`hx-trigger="every 2s"`, `hx-get="` + page + `"`, "This run is still going.", `data-testid="reload"`, "No outcome yet"},
		NotExpectedContent: []string{"Check again"}}) // a run is open: Run now waits for it
	a.Finish(t, strings.TrimPrefix(page, "/studio/schedules/runs/"))
	c.Check(t, apptest.Scenario{Name: "Ended", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-state="succeeded"`, "Check again"},
		NotExpectedContent: []string{`hx-trigger="every 2s"`, "This run is still going.", "Run started."}})
}

// History: every run newest first, filtered in the URL by automation,
// state and outcome, and Load more across pages with the cursor; both
// languages.
func TestHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	a.BrokenArticle(t)
	links := a.BrokenLinkCheck(t, a.Editor)
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Empty", URL: "/studio/schedules/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="tab-history"`, `aria-current="page">History`,
			"No run yet. Automations and releases appear here after their first run."},
		NotExpectedContent: []string{"Clear filters"}})

	const manual = studio.HistoryPageSize + 2
	for range manual {
		a.RunNow(t, a.Editor, links)
		a.Clock.Advance(time.Minute)
	}
	// A daily stale-content review, run by the ticker 2 min 14 s late: it
	// has nothing to do on a fresh site.
	stale, err := a.Automations.Create(ctx, a.Editor, a.Site.ID, automations.Input{Name: "Stale review",
		Builtin: automation.BuiltinStaleContent, Preset: "daily", Start: "2026-11-02T09:00"})
	if err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(stale.NextRunAt.Add(2*time.Minute + 14*time.Second))
	page, err := a.Automations.Runs(ctx, a.Editor, a.Site.ID, automations.RunsQuery{AutomationID: stale.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	if page, err = a.Automations.Runs(ctx, a.Editor, a.Site.ID, automations.RunsQuery{AutomationID: stale.ID}); err != nil || len(page.Runs) != 1 {
		t.Fatalf("stale runs: %v %v", page.Runs, err)
	}
	staleRun := a.Finish(t, page.Runs[0].ID)

	res := c.Check(t, apptest.Scenario{Name: "FirstPage", URL: "/studio/schedules/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/studio/schedules/automations/` + links.ID + `"`, "Link check", "Stale review",
			"Today · ", "2 min 14 s late", "Schedule", "Run now", "Succeeded", "Did work", "Nothing to do", "1 broken link",
			`data-testid="load-more"`, `hx-select="#runs-body > tr"`, `<option value="` + stale.ID + `">Stale review</option>`},
		NotExpectedContent: []string{"Clear filters"}})
	if n := strings.Count(res.Body, `class="run-row"`); n != studio.HistoryPageSize {
		t.Errorf("first page: %d runs, want %d", n, studio.HistoryPageSize)
	}
	if i, j := strings.Index(res.Body, "run-"+staleRun.ID), strings.Index(res.Body, "Link check</a>"); i < 0 || i > j {
		t.Error("the newest run (the stale review) is not first")
	}
	more := html.UnescapeString(regexp.MustCompile(`href="([^"]+)" class="button" data-testid="load-more"`).FindStringSubmatch(res.Body)[1])
	if !strings.Contains(more, "cursor=") {
		t.Fatalf("Load more: %q", more)
	}
	rest := c.Check(t, apptest.Scenario{Name: "SecondPage", URL: more, ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`data-testid="load-more"`}})
	if n := strings.Count(rest.Body, `class="run-row"`); n != manual+1-studio.HistoryPageSize {
		t.Errorf("second page: %d runs, want %d", n, manual+1-studio.HistoryPageSize)
	}
	ids := regexp.MustCompile(`data-testid="run-(run_[0-9A-Z]+)"`)
	seen := map[string]bool{}
	for _, body := range []string{res.Body, rest.Body} {
		for _, m := range ids.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("run %s on both pages", m[1])
			}
			seen[m[1]] = true
		}
	}
	if len(seen) != manual+1 {
		t.Errorf("%d runs over both pages, want %d", len(seen), manual+1)
	}

	count := func(name, u string, want int, contents ...string) string {
		t.Helper()
		r := c.Check(t, apptest.Scenario{Name: name, URL: u, ExpectedStatus: http.StatusOK, ExpectedContent: contents})
		if n := strings.Count(r.Body, `class="run-row"`); n != want {
			t.Errorf("%s: %d runs, want %d", name, n, want)
		}
		return r.Body
	}
	body := count("ByAutomation", "/studio/schedules/history?automation="+stale.ID, 1, "Stale review", "Clear filters",
		`<option value="`+stale.ID+`" selected>`)
	if strings.Contains(body, "Link check</a>") {
		t.Error("filtered by the stale review, History shows the link check")
	}
	body = count("ByAutomationPaged", "/studio/schedules/history?automation="+links.ID, studio.HistoryPageSize)
	if !strings.Contains(body, "automation="+links.ID+"&amp;cursor=") {
		t.Error("Load more drops the automation filter")
	}
	count("ByState", "/studio/schedules/history?state=succeeded", studio.HistoryPageSize, `<option value="succeeded" selected>`)
	count("ByOutcome", "/studio/schedules/history?outcome=nothing-to-do", 1, "Stale review", `<option value="nothing-to-do" selected>`)
	count("ByOutcomeDidWork", "/studio/schedules/history?outcome=did-work&automation="+stale.ID, 0,
		"No run matches these filters.", `href="/studio/schedules/history"`, "Clear filters")
	count("NoFailures", "/studio/schedules/history?state=failed", 0, "No run matches these filters.")
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "UnknownState", URL: "/studio/schedules/history?state=bogus", ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{"This run state is unknown."}},
		{Name: "BadCursor", URL: "/studio/schedules/history?cursor=bogus", ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{"This page link is not valid any more."}},
	})

	tr := a.AddUser(t, "tr@example.com", "Tülay Editör", policy.Editor, "tr")
	a.SignedIn(t, tr).Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`aria-current="page">Geçmiş`, "Bugün · ", "2 dk 14 sn gecikmeyle", "Zamanlama", "Şimdi çalıştır",
			"Başarılı", "İşlem yaptı", "Yapacak iş yoktu", "1 kırık bağlantı", "Daha fazla yükle", "Tüm otomasyonlar ve yayın paketleri"},
		NotExpectedContent: []string{"runs."}})
	a.SignedIn(t, tr).Check(t, apptest.Scenario{Name: "TurkishEmpty", URL: "/studio/schedules/history?state=failed",
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Bu filtrelere uyan çalıştırma yok.", "Filtreleri temizle"}})
}

// The automation notices open what they are about: a failed run its page
// (with its error sentence), an automation paused after failures its
// History.
func TestAutomationNoticesOpenTheRun(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.BrokenArticle(t)
	au := a.BrokenLinkCheck(t, a.Editor)
	run := a.RunNow(t, a.Editor, au)
	// As the runner records a job's failure and a third in a row.
	if _, err := a.Store.DB().Exec(`UPDATE schedule_runs SET state = 'failed', outcome = NULL, error = 'job_failed' WHERE id = ?`, run.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.DB().Exec(`UPDATE automations SET state = 'auto-paused', paused_reason = 'failures', consecutive_failures = 3 WHERE id = ?`, au.ID); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "Notices", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="notice-automation-failed"`, `data-testid="notice-automation-paused"`}})
	failed := regexp.MustCompile(`data-testid="notice-automation-failed"[^>]*>.*?<a href="([^"]+)"`).FindStringSubmatch(res.Body)
	paused := regexp.MustCompile(`data-testid="notice-automation-paused"[^>]*>.*?<a href="([^"]+)"`).FindStringSubmatch(res.Body)
	if failed == nil || failed[1] != studio.RunURL(run.ID) {
		t.Errorf("the failed run's notice links to %q, want %q", failed, studio.RunURL(run.ID))
	}
	if paused == nil || html.UnescapeString(paused[1]) != studio.HistoryURL(au.ID) {
		t.Errorf("the paused automation's notice links to %q, want %q", paused, studio.HistoryURL(au.ID))
	}
	c.Check(t, apptest.Scenario{Name: "FailedRun", URL: studio.RunURL(run.ID), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-state="failed"`, "Failed", "No outcome yet",
			"The job stopped with an error before it could finish."}})
	c.Check(t, apptest.Scenario{Name: "ItsHistory", URL: studio.HistoryURL(au.ID), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="run-` + run.ID + `"`, `data-state="failed"`}})
}

// A release's run is in History too, named by its title and linking to the
// release; a run a clock change moved says so; a release's run has no
// findings to dismiss.
func TestHistoryReleaseRunsAndClockChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(rel.When.At.Add(3 * time.Second))
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	page, err := a.Automations.Runs(ctx, a.Editor, a.Site.ID, automations.RunsQuery{ReleaseID: rel.ID})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("release runs: %v %v", page.Runs, err)
	}
	relRun := page.Runs[0]
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "History", URL: "/studio/schedules/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="run-` + relRun.ID + `"`, "Release", `href="/studio/releases/` + rel.ID + `"`,
			html.EscapeString(rel.Title), "Today · 09:00", "Succeeded"}})
	c.Check(t, apptest.Scenario{Name: "RunPage", URL: studio.RunURL(relRun.ID), ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"<dt>Release</dt>", `href="/studio/releases/` + rel.ID + `"`, "Succeeded"},
		NotExpectedContent: []string{`data-testid="findings"`, "Check again", "History of this automation"}})
	c.Check(t, apptest.Scenario{Name: "NoDismiss", Method: "POST", URL: studio.RunURL(relRun.ID) + "/dismiss",
		Form: url.Values{"csrf_token": {c.Token()}, "key": {"x"}}, ExpectedStatus: http.StatusNotFound})

	run := a.RunNow(t, a.Editor, a.BrokenLinkCheck(t, a.Editor))
	if _, err := a.Store.DB().Exec(`UPDATE schedule_runs SET adjusted = 'dst-gap' WHERE id = ?`, run.ID); err != nil {
		t.Fatal(err)
	}
	c.Check(t, apptest.Scenario{Name: "ClockChange", URL: studio.RunURL(run.ID), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="clock-change"`, "Clock change",
			"this time did not exist on the site&#39;s clock that day"}})
}
