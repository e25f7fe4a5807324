package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"studio/engine/automations"
	"studio/engine/calendar"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// hx are the headers htmx sends with a request it swaps into the page.
var hx = map[string]string{"HX-Request": "true"}

// hxFrom is hx for a request made from the page at current.
func hxFrom(current string) map[string]string {
	return map[string]string{"HX-Request": "true", "HX-Current-URL": "http://studio.test" + current}
}

// TestCalendarURLState: the URL is the state (§15.5). htmx's answer names
// the canonical URL to push; unknown values are dropped, never errors.
func TestCalendarURLState(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	for _, sc := range []struct{ name, query, canonical string }{
		{"Default", "", "date=2026-11-02"},
		{"IssueExample", "view=month&date=2026-10&kind=publish,release&approval=pending",
			"approval=pending&date=2026-10&kind=publish%2Crelease&view=month"},
		{"UnknownValuesDropped", "view=week&date=2026-13-45&kind=publish,bogus&state=nope&preset=zzz&tz=mars&origin=robot",
			"date=2026-11-02&kind=publish"},
		{"FormSpelling", "kind=release&kind=publish&state=waiting", "date=2026-11-02&kind=publish%2Crelease&state=waiting"},
		{"ThisWeekFromMonday", "preset=week&date=2026-11-06", "date=2026-11-02&preset=week"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			want := "/studio/schedules?" + sc.canonical
			res := c.Check(t, apptest.Scenario{URL: "/studio/schedules?" + sc.query, Header: hx, ExpectedStatus: http.StatusOK,
				ExpectedHeaders: map[string]string{"HX-Push-Url": want, "Vary": "HX-Request"}})
			if strings.Contains(res.Body, "<html") {
				t.Errorf("an htmx request got the whole page")
			}
			// The canonical URL is a fixed point: asked from itself, nothing
			// is pushed, and the page is the same.
			c.Check(t, apptest.Scenario{URL: want, Header: hxFrom(want), ExpectedStatus: http.StatusOK,
				ExpectedHeaders: map[string]string{"HX-Push-Url": ""}})
			c.Check(t, apptest.Scenario{URL: "/studio/schedules?" + sc.query, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<html lang="en">`, `id="calendar"`}})
		})
	}
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Periods", URL: "/studio/schedules", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`data-testid="period-title">2–15 November 2026</h2>`,
			`id="cal-prev" class="button" href="/studio/schedules?date=2026-10-19"`,
			`id="cal-next" class="button" href="/studio/schedules?date=2026-11-16"`,
			`aria-label="Previous 14 days"`, `id="view-agenda" href="/studio/schedules?date=2026-11-02"`,
			`href="/studio/schedules?date=2026-11&amp;view=month"`, `aria-current="page">Agenda</a>`,
			"The Agenda shows everything the Month shows, as a list by day.",
			`<input type="date" id="goto-date" name="date" value="2026-11-02" required`}},
		{Name: "AcrossMonths", URL: "/studio/schedules?date=2026-10-26", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="period-title">26 October – 8 November 2026</h2>`}},
		{Name: "AcrossYears", URL: "/studio/schedules?date=2026-12-28", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="period-title">28 December 2026 – 10 January 2027</h2>`}},
		{Name: "Week", URL: "/studio/schedules?preset=week", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`data-testid="period-title">2–8 November 2026</h2>`, `aria-label="Next week"`,
			`href="/studio/schedules?date=2026-11-09&amp;preset=week"`, `id="preset-week"`,
			// The filters form carries a view that is not a facet along.
			`<input type="hidden" name="preset" value="week">`}},
		{Name: "Month", URL: "/studio/schedules?view=month&date=2026-11", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`data-testid="period-title">November 2026</h2>`, `aria-label="Previous month"`,
			`href="/studio/schedules?date=2026-10&amp;view=month"`, `aria-current="page">Month</a>`,
			`data-testid="month-grid"`,
			// From a month to its days: today, when today is in it.
			`id="view-agenda" href="/studio/schedules?date=2026-11-02"`}},
		{Name: "MonthToAgendaElsewhere", URL: "/studio/schedules?view=month&date=2027-01", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="view-agenda" href="/studio/schedules?date=2027-01-01"`}},
		{Name: "GoToDateKeepsTheState", URL: "/studio/schedules?view=month&date=2026-10&kind=publish", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<input type="hidden" name="view" value="month">`, `<input type="hidden" name="kind" value="publish">`}},
	})
}

// TestCalendarFilters: facets, built-in views, and what is hidden by
// default (§15.5).
func TestCalendarFilters(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	article := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00") // an article, by the editor
	press := a.PendingRequest(t)                                         // a page at 11:00, waiting (the contributor's)
	jobs := a.PendingRequest2(t)                                         // a page at 12:00, waiting
	canceled := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-03", "10:00")
	if err := a.Releases.Cancel(ctx, a.Editor, a.Site.ID, canceled.ID, canceled.Rev); err != nil {
		t.Fatal(err)
	}
	// Jobs is denied: the release is a draft again, off the calendar.
	if err := a.Releases.Deny(ctx, a.Editor, a.Site.ID, jobs, "Not yet."); err != nil {
		t.Fatal(err)
	}
	rows := func(body string) []string { return apptest.AgendaReleaseIDs(body) }
	c := a.SignedIn(t, a.Editor)
	pressRel := releaseOfRequest(a, t, press)

	for _, sc := range []struct {
		apptest.Scenario
		rows []string
	}{
		{apptest.Scenario{Name: "Default", URL: "/studio/schedules", ExpectedContent: []string{`aria-current="page">All</a>`},
			NotExpectedContent: []string{`data-testid="filters-clear"`, `>calendar.`, `"calendar.`, `>state.`, `>month.`}},
			[]string{article.ID, pressRel}},
		{apptest.Scenario{Name: "CanceledOnAsking", URL: "/studio/schedules?state=canceled", ExpectedContent: []string{
			`data-state="canceled">Canceled</span>`, `class="agenda-row look-struck`,
			`id="f-state-canceled" name="state" value="canceled" checked`,
			`href="/studio/schedules?date=2026-11-02" hx-get="/studio/schedules?date=2026-11-02" hx-swap="outerHTML" hx-sync="#calendar:replace" hx-target="#calendar" data-testid="filters-clear"`}},
			[]string{canceled.ID}},
		{apptest.Scenario{Name: "Collection", URL: "/studio/schedules?collection=page", ExpectedContent: []string{`<span class="count">1</span>`}},
			[]string{pressRel}},
		{apptest.Scenario{Name: "Kind", URL: "/studio/schedules?kind=release",
			ExpectedContent: []string{`data-testid="agenda-empty">Nothing in this period matches the filters.`}}, nil},
		{apptest.Scenario{Name: "WaitingPreset", URL: "/studio/schedules?preset=waiting", ExpectedContent: []string{
			`aria-current="page">Waiting for approval</a>`, `id="f-approval-pending" name="approval" value="pending" checked`,
			`data-state="awaiting_approval">Waiting for approval</span>`, `class="agenda-row look-dashed`}},
			[]string{pressRel}},
		{apptest.Scenario{Name: "FacetsMatchingAViewMarkIt", URL: "/studio/schedules?approval=pending",
			ExpectedContent: []string{`aria-current="page">Waiting for approval</a>`}}, []string{pressRel}},
		{apptest.Scenario{Name: "Agents", URL: "/studio/schedules?preset=agents",
			ExpectedContent: []string{`data-testid="agenda-empty"`, `id="f-origin-agent" name="origin" value="agent" checked`}}, nil},
		{apptest.Scenario{Name: "AttentionIsNothingYet", URL: "/studio/schedules?preset=attention",
			ExpectedContent: []string{`data-testid="agenda-empty"`}, NotExpectedContent: []string{`data-testid="attention-banner"`}}, nil},
	} {
		t.Run(sc.Name, func(t *testing.T) {
			sc.ExpectedStatus = http.StatusOK
			res := c.Check(t, sc.Scenario)
			if got := rows(res.Body); strings.Join(got, " ") != strings.Join(sc.rows, " ") {
				t.Errorf("rows %v, want %v", got, sc.rows)
			}
		})
	}
	contributor := a.SignedIn(t, a.Contributor)
	res := contributor.Check(t, apptest.Scenario{Name: "Mine", URL: "/studio/schedules?preset=mine", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`aria-current="page">Mine</a>`}})
	if got := rows(res.Body); len(got) != 1 || got[0] != pressRel {
		t.Errorf("mine: rows %v, want Press only", got)
	}
	// Denied releases are drafts again: off the calendar, in the aside.
	res = c.Check(t, apptest.Scenario{Name: "Denied", URL: "/studio/schedules?approval=denied", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="draft-` + releaseOfRequest(a, t, jobs) + `"`}})
	if got := rows(res.Body); len(got) != 0 {
		t.Errorf("denied: rows %v", got)
	}
}

// releaseOfRequest is the release an approval request asks for.
func releaseOfRequest(a *apptest.App, t *testing.T, requestID string) string {
	t.Helper()
	v, err := a.Releases.Approval(context.Background(), a.Editor, a.Site.ID, requestID)
	if err != nil {
		t.Fatal(err)
	}
	return v.Release.ID
}

// TestCalendarAgenda: day headings, the Now rule, today's finished items
// folded, the rows' words and menus, the aside and the attention banner.
func TestCalendarAgenda(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	early1 := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "08:10")
	early2 := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "08:20")
	late := a.ScheduleAt(t, a.Editor, a.CreateNode(t, release.KindPage, content.Body{Title: "Late edition", Slug: "late",
		Status: content.StatusDraft}), "2026-11-02", "08:40")
	later := a.ScheduleAt(t, a.Editor, a.CreateNode(t, release.KindPage, content.Body{Title: "Evening", Slug: "evening",
		Status: content.StatusDraft}), "2026-11-03", "18:30")
	a.Clock.Set(time.Date(2026, 11, 2, 5, 30, 0, 0, time.UTC)) // 08:30: two published
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 2 {
		t.Fatalf("RunDue: %+v %v", rep, err)
	}
	a.Clock.Set(time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)) // 10:00: Late edition was missed by 80 minutes
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	if r := a.Release(t, late.ID); r.State != release.StateMissed {
		t.Fatalf("late edition is %s, want missed", r.State)
	}
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		`<h2 id="day-2026-11-02">Today · Monday 2 November</h2>`, `<h2 id="day-2026-11-03">Tomorrow · Tuesday 3 November</h2>`,
		`data-testid="done-today"><summary>2 done today</summary>`,
		`data-testid="now-rule"><span>Now · 10:00</span>`,
		`data-state="missed">Missed</span>`, `class="agenda-row look-alert`,
		`<time datetime="2026-11-03T15:30:00Z">18:30 Istanbul</time>`,
		`<span class="collection">Article</span>`, `<span class="by">by Elif Editor</span>`,
		`<span class="sr-only">Publish</span>`,
		// The banner: one missed, Review opens the view on its day.
		`data-testid="attention-banner"><strong>1 schedule needs attention</strong>`,
		`href="/studio/schedules?date=2026-11-02&amp;preset=attention"`,
		// The menus: Move to… on a scheduled release, Publish now on the missed one.
		`href="/studio/releases/` + later.ID + `#move-date" data-testid="menu-move"`,
		`href="/studio/releases/` + late.ID + `?confirm=publish-now#publish-now-dialog"`,
		// Unschedule asks first, on the release's page.
		`href="/studio/releases/` + later.ID + `?confirm=unschedule#unschedule-dialog" data-testid="menu-unschedule">Unschedule…</a>`,
		// The aside.
		`data-testid="aside-waiting"`, "Nothing is waiting for approval.", `data-testid="aside-health"`,
		`<span class="badge health-running" data-state="running">Running</span>`,
		`<script src="/static/calendar.js?v=`, `data-testid="shortcuts-dialog"`, "<kbd>t</kbd></dt><dd>Today</dd>"}})
	// Today's order: the folded two, then the missed one, then the rule.
	ids := apptest.AgendaReleaseIDs(res.Body)
	if len(ids) != 4 || ids[0] != early1.ID || ids[1] != early2.ID || ids[2] != late.ID || ids[3] != later.ID {
		t.Errorf("rows %v", ids)
	}
	if i, j := strings.Index(res.Body, `data-testid="release-`+late.ID), strings.Index(res.Body, `data-testid="now-rule"`); i > j {
		t.Errorf("the missed release comes after the Now rule")
	}
	c.Check(t, apptest.Scenario{Name: "ReviewOpensTheView", URL: "/studio/schedules?date=2026-11-02&preset=attention", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Late edition", `aria-current="page">Needs attention</a>`}, NotExpectedContent: []string{"Evening"}})

	// Unschedule from the menu comes back to the page, with its notice.
	back := "/studio/schedules?date=2026-11-02"
	c.Check(t, apptest.Scenario{Name: "Unschedule", Method: "POST", URL: "/studio/releases/" + later.ID + "/unschedule",
		Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"1"}, "from": {"calendar"}, "next": {back}},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}})
	c.Check(t, apptest.Scenario{Name: "Unscheduled", URL: back, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"Unscheduled. It is a draft again and can be edited.", `data-testid="draft-` + later.ID + `"`},
		NotExpectedContent: []string{`data-testid="release-` + later.ID + `"`}})
	c.Check(t, apptest.Scenario{Name: "StaleUnschedule", Method: "POST", URL: "/studio/releases/" + late.ID + "/unschedule",
		Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"1"}, "from": {"calendar"}, "next": {back}},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}})
	c.Check(t, apptest.Scenario{Name: "StaleAlert", URL: back, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`role="alert" data-testid="alert">`}})
}

// TestCalendarSameMinuteAndPaging: the same-minute warning stays; "Load
// more" continues from the engine's cursor without repeating the day.
func TestCalendarSameMinuteAndPaging(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	first := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-04", "09:00")
	second := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-04", "09:00")
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 releases at 09:00: they run one after another"}, NotExpectedContent: []string{`data-testid="load-more"`}})
	if n := strings.Count(res.Body, `data-testid="same-minute"`); n != 2 {
		t.Errorf("%d same-minute warnings, want 2", n)
	}
	// A page of one: the cursor after the first.
	loc, _ := time.LoadLocation("Europe/Istanbul")
	from := time.Date(2026, 11, 2, 0, 0, 0, 0, loc)
	page, err := calendar.New(a.Store, nil, a.Clock, nil).Calendar(context.Background(), a.Editor, calendar.CalendarQuery{SiteID: a.Site.ID, From: from,
		To: from.AddDate(0, 0, 14), Limit: 1})
	if err != nil || page.NextCursor == "" {
		t.Fatalf("page of one: %+v %v", page, err)
	}
	more := c.Check(t, apptest.Scenario{Name: "LoadMore", URL: "/studio/schedules?date=2026-11-02&cursor=" + url.QueryEscape(page.NextCursor) + "&after=2026-11-04",
		Header: hx, ExpectedStatus: http.StatusOK, ExpectedContent: []string{`aria-labelledby="day-2026-11-04"`},
		NotExpectedContent: []string{`<h2 id="day-2026-11-04">`, `id="calendar"`, "<html"}})
	if ids := apptest.AgendaReleaseIDs(more.Body); len(ids) != 1 || (ids[0] != first.ID && ids[0] != second.ID) || ids[0] == page.Items[0].ID {
		t.Errorf("load more: %v after %s", ids, page.Items[0].ID)
	}
	c.Check(t, apptest.Scenario{Name: "BadCursorStartsOver", URL: "/studio/schedules?cursor=nonsense", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<h2 id="day-2026-11-04">`}})
}

// TestCalendarFragment: htmx gets the #calendar region and the rest out of
// band; a history restore gets the page.
func TestCalendarFragment(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: "/studio/schedules?date=2026-11-02&kind=publish", Header: hx, ExpectedStatus: http.StatusOK,
		ExpectedHeaders: map[string]string{"Content-Type": "text/html; charset=utf-8", "Vary": "HX-Request"},
		ExpectedContent: []string{`<section id="calendar"`, `<h2 id="period-title" hx-swap-oob="innerHTML">2–15 November 2026</h2>`,
			`<div id="cal-controls" class="cal-controls" hx-swap-oob="true">`, `<div id="cal-filters" class="cal-filters" hx-swap-oob="true">`,
			`id="calendar-aside" class="cal-aside"`, `<div id="calendar-banners" hx-swap-oob="true">`,
			`<div id="status" hx-swap-oob="innerHTML">`, "Election night live"},
		NotExpectedContent: []string{"<html", "<body", `<details id="filters" class="filters" open`}})
	if !strings.HasPrefix(strings.TrimSpace(res.Body), `<section id="calendar"`) {
		t.Errorf("the fragment does not start with the region: %.80s", res.Body)
	}
	c.Check(t, apptest.Scenario{Name: "FromTheFilters", URL: "/studio/schedules?kind=publish",
		Header: map[string]string{"HX-Request": "true", "HX-Trigger": "filters-form"}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<details id="filters" class="filters" open`}})
	c.Check(t, apptest.Scenario{Name: "HistoryRestore", URL: "/studio/schedules?kind=publish",
		Header: map[string]string{"HX-Request": "true", "HX-History-Restore-Request": "true"}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<html", `id="calendar"`}})
	a.Client(t, "").Check(t, apptest.Scenario{Name: "SignedOutFragment", URL: "/studio/schedules", Header: hx,
		ExpectedStatus: http.StatusUnauthorized, ExpectedHeaders: map[string]string{"HX-Redirect": apptest.LoginNext("/studio")}})
}

var (
	approveFormRe = regexp.MustCompile(`action="/studio/approvals/([^"/]+)/approve"`)
	nextRe        = regexp.MustCompile(`name="next" value="([^"]+)"`)
)

// TestCalendarInlineApproval: Approve and Deny from the Agenda post to the
// approval's own routes, through the CSRF check and the scope, and come
// back to the page as it was.
func TestCalendarInlineApproval(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	press := a.PendingRequest(t)
	jobs := a.PendingRequest2(t)
	pressRel, jobsRel := releaseOfRequest(a, t, press), releaseOfRequest(a, t, jobs)
	page := "/studio/schedules?date=2026-11-02&kind=publish"

	contributor := a.SignedIn(t, a.Contributor)
	res := contributor.Check(t, apptest.Scenario{Name: "RequesterSeesNoButtons", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="release-` + pressRel + `"`, `data-testid="waiting-` + press + `"`, `data-testid="menu-` + pressRel + `"`},
		NotExpectedContent: []string{`/approve"`, `/deny"`}})
	_ = res

	editor := a.SignedIn(t, a.Editor)
	res = editor.Check(t, apptest.Scenario{Name: "ApproverSeesThem", URL: page, ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		`data-testid="row-approve-` + press + `"`, `data-testid="row-deny-` + press + `"`, `data-testid="aside-approve-` + jobs + `"`,
		`hx-post="/studio/approvals/` + press + `/approve" hx-swap="outerHTML" hx-target="#calendar"`,
		`<input type="hidden" name="from" value="calendar">`,
		`<textarea id="row-reason-` + press + `" name="reason" required maxlength="500" rows="2"></textarea>`}})
	if m := approveFormRe.FindAllStringSubmatch(res.Body, -1); len(m) != 4 { // two rows, two aside entries
		t.Errorf("%d approve forms, want 4", len(m))
	}
	m := nextRe.FindStringSubmatch(res.Body)
	if m == nil || m[1] != "/studio/schedules?date=2026-11-02&amp;kind=publish" {
		t.Fatalf("next = %v", m)
	}
	back := "/studio/schedules?date=2026-11-02&kind=publish"
	inline := func(token string, extra ...string) url.Values {
		f := url.Values{"csrf_token": {token}, "from": {"calendar"}, "next": {back}}
		for i := 0; i+1 < len(extra); i += 2 {
			f.Set(extra[i], extra[i+1])
		}
		return f
	}

	before := a.Fingerprint(t)
	contributorToken := contributor.Token()
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "NoToken", Method: "POST", URL: "/studio/approvals/" + press + "/approve", Form: inline(""),
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"This form has expired."}},
		{Name: "WrongToken", Method: "POST", URL: "/studio/approvals/" + press + "/approve", Form: inline(contributorToken),
			ExpectedStatus: http.StatusForbidden},
	})
	apptest.RunScenarios(t, contributor, []apptest.Scenario{
		{Name: "ContributorMayNot", Method: "POST", URL: "/studio/approvals/" + press + "/approve", Form: inline(contributorToken),
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"Your role does not allow this."}},
	})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused approvals changed state:\nbefore %s\nafter  %s", before, after)
	}

	token := editor.Token()
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "DenyWithoutReason", Method: "POST", URL: "/studio/approvals/" + jobs + "/deny", Form: inline(token, "reason", " "),
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}},
		{Name: "SaysWhy", URL: back, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="alert">Say why, in one or two sentences`, `data-testid="row-approve-` + jobs + `"`}},
		{Name: "Approve", Method: "POST", URL: "/studio/approvals/" + press + "/approve", Form: inline(token),
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}},
		{Name: "Approved", URL: back, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Approved. It will be published at its time.", `data-testid="release-` + pressRel + `"`},
			NotExpectedContent: []string{`data-testid="row-approve-` + press + `"`, `data-testid="waiting-` + press + `"`, `role="alert"`}},
		{Name: "ApproveAgain", Method: "POST", URL: "/studio/approvals/" + press + "/approve", Form: inline(token),
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}},
		{Name: "AlreadyDecided", URL: back, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="alert">This request has already been decided`}},
		// htmx: the redirect brings the fragment, the notice out of band.
		{Name: "DenyWithHTMX", Method: "POST", URL: "/studio/approvals/" + jobs + "/deny",
			Form: inline(token, "reason", "The numbers are not final."), Header: hx,
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}},
		{Name: "Fragment", URL: back, Header: hxFrom(back), ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<div id="status" hx-swap-oob="innerHTML"><p class="notice">Denied. The release is a draft again.</p></div>`},
			NotExpectedContent: []string{"<html", `data-testid="release-` + jobsRel + `"`}, ExpectedHeaders: map[string]string{"HX-Push-Url": ""}},
		// A next that leaves the Schedules page goes to it instead.
		{Name: "ForeignNext", Method: "POST", URL: "/studio/approvals/" + press + "/approve",
			Form:           url.Values{"csrf_token": {token}, "from": {"calendar"}, "next": {"https://evil.example/"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}},
	})
	if r := a.Release(t, pressRel); r.State != release.StateScheduled {
		t.Errorf("press is %s, want scheduled", r.State)
	}
	if r := a.Release(t, jobsRel); r.State != release.StateDraft {
		t.Errorf("jobs is %s, want a draft again", r.State)
	}
}

// TestCalendarTurkish: the whole page in Turkish, with Turkish dates.
func TestCalendarTurkish(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	press := a.PendingRequest(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "09:00")
	a.SetLang(t, a.Editor, "tr")
	tick(a, t) // the scheduler's health reads "Çalışıyor" after a tick, not after the page's own backstop
	c := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			`<html lang="tr">`, "<h1>Zamanlamalar</h1>", `data-testid="period-title">2–15 Kasım 2026</h2>`,
			`<h2 id="day-2026-11-02">Bugün · 2 Kasım Pazartesi</h2>`, `<h2 id="day-2026-11-03">Yarın · 3 Kasım Salı</h2>`,
			"Saatler İstanbul saatine (UTC+3) göredir.", `aria-label="Önceki 14 gün"`, ">Bugün</a>",
			`aria-current="page">Ajanda</a>`, ">Ay</a>", "Tarihe git", ">Tümü</a>", ">Onay bekleyenler</a>",
			">Yapay zekâ ajanlarının önerdikleri</a>", ">Bu hafta</a>", ">Dikkat gerektirenler</a>", ">Benimkiler</a>",
			"Filtreler", "<legend>Tür</legend>", "Makaleler", `data-state="awaiting_approval">Onay bekliyor</span>`,
			"Chris Contributor zamanladı", ">Onayla</button>", ">Reddet</summary>", `data-testid="row-approve-` + press + `"`,
			"Zamanlayıcı", "Çalışıyor", "Klavye kısayolları", "Sonraki dönem", "Şimdi · 08:00", "<span class=\"collection\">Makale</span>",
			"Yeni yayın paketi…"},
			NotExpectedContent: []string{"Today", "Tomorrow", "November", "Filters", "Agenda", "Waiting for approval", "Istanbul (",
				">calendar.", `"calendar.`, ">month.", ">state.", "Keyboard"}},
		{Name: "Month", URL: "/studio/schedules?view=month", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="period-title">Kasım 2026</h2>`, `aria-label="Önceki ay"`}},
		{Name: "Week", URL: "/studio/schedules?preset=week&date=2026-11-08", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="period-title">2–8 Kasım 2026</h2>`, `aria-label="Sonraki hafta"`}},
	})
}

// TestCalendarViewerZone: "Show in my time" (tz=viewer) shows days and
// times in the viewer's zone, the site's beside them.
func TestCalendarViewerZone(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "01:30") // 23:30 on the 2nd in Berlin
	berlin := a.SignedIn(t, a.Editor)
	berlin.SetCookie("tz", url.QueryEscape("Europe/Berlin"))
	plain := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, berlin, []apptest.Scenario{
		{Name: "SiteTime", URL: "/studio/schedules", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Times are in Istanbul (UTC+3) time.", `href="/studio/schedules?date=2026-11-02&amp;tz=viewer"`, "Show in my time",
			`<h2 id="day-2026-11-03">Tomorrow · Tuesday 3 November</h2>`, "01:30 Istanbul", "23:30 your time, Berlin"}},
		{Name: "MyTime", URL: "/studio/schedules?tz=viewer", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
			"Times are in your own time: Berlin (UTC+1).", `href="/studio/schedules?date=2026-11-02"`, "Show in Istanbul time",
			`<h2 id="day-2026-11-02">Today · Monday 2 November</h2>`, `<time datetime="2026-11-02T22:30:00Z">23:30 Berlin</time>`,
			"01:30 site time, Istanbul"}},
		{Name: "MonthIsTheSites", URL: "/studio/schedules?tz=viewer&view=month", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Times are in Istanbul (UTC+3) time."}, NotExpectedContent: []string{`data-testid="tz-toggle"`}},
	})
	plain.Check(t, apptest.Scenario{Name: "NoViewerZone", URL: "/studio/schedules?tz=viewer", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Times are in Istanbul (UTC+3) time.", "01:30 Istanbul"}, NotExpectedContent: []string{`data-testid="tz-toggle"`}})
}

// TestCalendarAutomationRuns: a day's recurring automation runs fold into
// one line; a day with a single run shows it as a row.
func TestCalendarAutomationRuns(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	if _, err := automations.New(a.Store, a.Engine).CreateAutomation(ctx, a.Editor, a.Site.ID, "Broken links", "builtin:broken-links",
		"FREQ=DAILY;BYHOUR=9,12,15,18;BYMINUTE=7", "2026-11-02T09:07"); err != nil {
		t.Fatal(err)
	}
	if _, err := automations.New(a.Store, a.Engine).CreateAutomation(ctx, a.Editor, a.Site.ID, "Weekly digest", "builtin:weekly-digest",
		"FREQ=WEEKLY;BYDAY=TU;BYHOUR=7;BYMINUTE=30", "2026-11-03T07:30"); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: "/studio/schedules", ExpectedStatus: http.StatusOK, ExpectedContent: []string{
		`data-testid="automation-runs"><summary>+ 4 automation runs</summary>`, "Broken links", "Weekly digest",
		`class="agenda-row look-ghost kind-automation"`, `<span class="sr-only">Automation</span>`}})
	// Tuesday: four runs folded, and the digest beside them folded too.
	day := res.Body[strings.Index(res.Body, `id="day-2026-11-03"`):]
	day = day[:strings.Index(day, "</section>")]
	if !strings.Contains(day, "+ 5 automation runs") {
		t.Errorf("Tuesday does not fold its five runs")
	}
	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"+ 4 otomasyon çalıştırması", "<span class=\"sr-only\">Otomasyon</span>"}})
}

// TestCalendarPastOccurrenceNotRun: a past occurrence with no run behind
// it (the automation was paused when its time came, so nothing ran it) is
// shown as not run (§11.7), on the Agenda and the Month grid, in English
// and Turkish, and under its own state facet; never as done.
func TestCalendarPastOccurrenceNotRun(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	auto, err := automations.New(a.Store, a.Engine).CreateAutomation(ctx, a.Editor, a.Site.ID, "Broken links", "builtin:broken-links",
		"FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Automations.Pause(ctx, a.Editor, a.Site.ID, auto.ID, auto.Rev); err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(time.Date(2026, 11, 3, 5, 0, 0, 0, time.UTC)) // Tuesday 08:00: Monday's 09:07 has passed
	row := `data-testid="item-occ:` + auto.ID + `:2026-11-02T06:07:00.000Z"`
	c := a.SignedIn(t, a.Editor)
	agenda := func(lang, query string) string {
		t.Helper()
		res := c.Check(t, apptest.Scenario{Name: lang + query, URL: "/studio/schedules?date=2026-11-02" + query, ExpectedStatus: http.StatusOK})
		i := strings.Index(res.Body, row)
		if i < 0 {
			return ""
		}
		r := res.Body[i:]
		return r[:strings.Index(r, "</li>")]
	}
	got := agenda("en", "")
	if !strings.Contains(got, `data-state="not_run">Not run<`) || strings.Contains(got, "Done") {
		t.Errorf("agenda row: %q", got)
	}
	if agenda("en", "&state=done") != "" {
		t.Errorf("the Done filter shows an occurrence that did not run")
	}
	if agenda("en", "&state=not_run") == "" {
		t.Errorf("the Not run filter does not show it")
	}
	c.Check(t, apptest.Scenario{Name: "Facet", URL: "/studio/schedules?date=2026-11-02", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`value="not_run"`, "Not run"}})
	// The grid's chip says it in its name; the day's panel with its badge.
	c.Check(t, apptest.Scenario{Name: "Month", URL: "/studio/schedules?view=month&date=2026-11", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"09:07 ‘Broken links’, Automation run, by Elif Editor, not run"}, NotExpectedContent: []string{"Broken links’, Automation run, by Elif Editor, done"}})
	c.Check(t, apptest.Scenario{Name: "MonthDay", URL: "/studio/schedules/month/day?date=2026-11-02", Header: monthHX, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-state="not_run">Not run<`}, NotExpectedContent: []string{">Done<"}})
	a.SetLang(t, a.Editor, "tr")
	if got := agenda("tr", ""); !strings.Contains(got, `data-state="not_run">Çalışmadı<`) || strings.Contains(got, "Tamamlandı") {
		t.Errorf("Turkish agenda row: %q", got)
	}
	c.Check(t, apptest.Scenario{Name: "TurkishMonth", URL: "/studio/schedules?view=month&date=2026-11", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"çalışmadı", "Çalışmayan"}})
	c.Check(t, apptest.Scenario{Name: "TurkishMonthDay", URL: "/studio/schedules/month/day?date=2026-11-02", Header: monthHX, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-state="not_run">Çalışmadı<`}, NotExpectedContent: []string{">Tamamlandı<"}})
}
