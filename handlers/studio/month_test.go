package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/settings"
	"studio/handlers/internal/apptest"
)

// The Month grid (RFC §15.2, §15.3, §15.7) and the move from it (§15.6),
// through the grid's own fragment routes, as month.js asks for them.

var monthHX = map[string]string{"HX-Request": "true"}

func monthGrid(month string) string { return "/studio/schedules/month/grid?date=" + month }

var monthCellRe = regexp.MustCompile(`(?s)<td role="gridcell"[^>]*data-date="(\d{4}-\d\d-\d\d)"[^>]*>.*?</td>`)

// monthCells maps each date of a grid to its cell's HTML, and lists the
// dates in the grid's order.
func monthCells(t *testing.T, body string) (map[string]string, []string) {
	t.Helper()
	cells := map[string]string{}
	var order []string
	for _, m := range monthCellRe.FindAllStringSubmatch(body, -1) {
		cells[m[1]] = m[0]
		order = append(order, m[1])
	}
	if len(order) == 0 {
		t.Fatalf("no grid cells in\n%s", apptest.Excerpt(body))
	}
	return cells, order
}

var monthTdRe = regexp.MustCompile(`^<td[^>]*>`)

var (
	monthDayNumRe    = regexp.MustCompile(`<a class="day-num"[^>]* aria-label="([^"]*)">`)
	monthDescribedRe = regexp.MustCompile(`^<td[^>]* aria-describedby="([^"]*)"`)
)

// monthCellSpoken is what a screen reader says first on a cell: its name,
// which is its content and starts with the day ("Monday 2 November"), and
// its description, the counts ("today, 3 items: …"). The cell has no
// aria-label of its own, so that its name is what it shows (WCAG 2.5.3).
func monthCellSpoken(t *testing.T, cell string) string {
	t.Helper()
	td := monthTdRe.FindString(cell)
	if strings.Contains(td, "aria-label") {
		t.Errorf("the cell names itself, hiding its chips: %s", td)
	}
	day, desc := monthDayNumRe.FindStringSubmatch(cell), monthDescribedRe.FindStringSubmatch(cell)
	if day == nil || desc == nil {
		t.Fatalf("cell without its day's name or its description: %s", cell)
	}
	m := regexp.MustCompile(`<span id="` + regexp.QuoteMeta(desc[1]) + `" hidden>([^<]*)</span>`).FindStringSubmatch(cell)
	if m == nil {
		t.Fatalf("the cell's description %q is not in the cell: %s", desc[1], cell)
	}
	return day[1] + ", " + m[1]
}

// monthNode is a draft page to schedule, one per item (a node is in one
// pending release at a time).
func monthNode(a *apptest.App, t *testing.T, title string) content.Node {
	t.Helper()
	slug := strings.ToLower(strings.NewReplacer(" ", "-", "’", "").Replace(title))
	return a.CreateNode(t, release.KindPage, content.Body{Title: title, Slug: slug, Status: content.StatusDraft, Text: title})
}

func TestMonthGrid(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	// Today is Monday 2 November 2026, 08:00 in Istanbul: two publishes
	// and a request waiting for approval, and five items on the 10th.
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
	a.PendingRequest(t) // the contributor's "Press", 11:00
	for i, title := range []string{"One", "Two", "Three", "Four", "Five"} {
		a.ScheduleAt(t, a.Editor, monthNode(a, t, title), "2026-11-10", []string{"08:00", "09:00", "10:00", "11:00", "12:00"}[i])
	}

	t.Run("English", func(t *testing.T) {
		c := a.SignedIn(t, a.Editor)
		res := c.Check(t, apptest.Scenario{URL: monthGrid("2026-11"), Header: monthHX, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`role="grid"`, `<caption id="month-caption" class="sr-only">November 2026</caption>`,
				`abbr="Monday"`, `data-can-drag="true"`}})
		cells, order := monthCells(t, res.Body)
		if order[0] != "2026-10-26" || order[len(order)-1] != "2026-12-06" || len(order) != 42 {
			t.Errorf("English weeks start on Monday too: %s … %s (%d days), want 2026-10-26 … 2026-12-06 (42)",
				order[0], order[len(order)-1], len(order))
		}
		if i, j := strings.Index(res.Body, `abbr="Monday"`), strings.Index(res.Body, `abbr="Sunday"`); i < 0 || j < i {
			t.Error("the column headers do not run Monday to Sunday")
		}
		today := cells["2026-11-02"]
		if got, want := monthCellSpoken(t, today), "Monday 2 November, today, 3 items: 3 publishes, 1 waiting for approval"; got != want {
			t.Errorf("today's name %q, want %q", got, want)
		}
		for _, want := range []string{`aria-current="date"`, `tabindex="0"`,
			`aria-label="09:00 ‘Election night live’, Publish, by Elif Editor, scheduled"`,
			`aria-label="11:00 ‘Press’, Publish, by Chris Contributor, waiting for approval"`,
			`chip chip-dashed tone-warn`, `href="/studio/releases/rel_`} {
			if !strings.Contains(today, want) {
				t.Errorf("today's cell lacks %q:\n%s", want, today)
			}
		}
		if n := strings.Count(res.Body, `aria-current="date"`); n != 1 {
			t.Errorf("%d days marked today, want 1", n)
		}
		if n := strings.Count(res.Body, `tabindex="0"`); n != 1 {
			t.Errorf("%d tab stops in the grid, want 1", n)
		}
		if got, want := monthCellSpoken(t, cells["2026-11-03"]), "Tuesday 3 November, nothing scheduled"; got != want {
			t.Errorf("an empty day's name %q, want %q", got, want)
		}
		tenth := cells["2026-11-10"]
		if n := strings.Count(tenth, `class="chip `); n != 3 {
			t.Errorf("the 10th shows %d chips, want 3", n)
		}
		for _, want := range []string{`>+2 more</a>`, `href="/studio/schedules?date=2026-11-10"`,
			`aria-label="2 more on Tuesday 10 November: open the day’s agenda"`, "One", "Three"} {
			if !strings.Contains(tenth, want) {
				t.Errorf("the 10th lacks %q:\n%s", want, tenth)
			}
		}
		if strings.Contains(tenth, "Four") {
			t.Error("the 10th shows a fourth chip")
		}
		for date, class := range map[string]string{"2026-10-26": "out", "2026-11-01": "past", "2026-11-07": "weekend", "2026-12-06": "out"} {
			if !strings.Contains(cells[date], class) {
				t.Errorf("%s is not recessed as %q: %s", date, class, cells[date][:120])
			}
		}
		if strings.Contains(monthTdRe.FindString(cells["2026-10-26"]), "tabindex") {
			t.Error("a day of another month takes focus")
		}
		// Drag: the editor's future releases, scheduled or waiting, carry
		// what a move needs; a past day takes no drop.
		if !strings.Contains(today, `data-drag="true"`) || !strings.Contains(today, `data-time="09:00"`) ||
			!strings.Contains(today, `data-when="Monday 2 November, 09:00"`) {
			t.Errorf("today's chips are not draggable:\n%s", today)
		}
		if strings.Contains(cells["2026-11-01"], `data-drop`) || !strings.Contains(today, `data-drop="true"`) {
			t.Error("drop targets: want today and later only")
		}
	})

	t.Run("Turkish", func(t *testing.T) {
		a.SetLang(t, a.Contributor, "tr")
		c := a.SignedIn(t, a.Contributor)
		res := c.Check(t, apptest.Scenario{URL: monthGrid("2026-11"), Header: monthHX, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`>Kasım 2026</caption>`, `abbr="Pazartesi"`, `>Pzt</span>`}})
		cells, order := monthCells(t, res.Body)
		if order[0] != "2026-10-26" {
			t.Errorf("Turkish weeks start on Monday: the grid starts on %s", order[0])
		}
		if i, j := strings.Index(res.Body, `abbr="Pazartesi"`), strings.Index(res.Body, `abbr="Pazar"`); i < 0 || j < i {
			t.Error("the Turkish column headers do not run Pazartesi to Pazar")
		}
		today := cells["2026-11-02"]
		if got, want := monthCellSpoken(t, today), "2 Kasım Pazartesi, bugün, 3 öğe: 3 yayım, 1 onay bekliyor"; got != want {
			t.Errorf("today's Turkish name %q, want %q", got, want)
		}
		for _, want := range []string{`aria-label="11:00 “Press”, Yayım, Chris Contributor tarafından, onay bekliyor"`,
			`>+2 öğe daha</a>`} {
			if !strings.Contains(res.Body, want) {
				t.Errorf("the Turkish grid lacks %q", want)
			}
		}
		// A contributor moves only their own releases, and only while they
		// are theirs to change.
		if n := strings.Count(today, `data-drag="true"`); n != 1 || !strings.Contains(today, `data-title="Press"`) {
			t.Errorf("the contributor may drag %d chips today, want 1 (their own):\n%s", n, today)
		}
		if !strings.Contains(res.Body, "Onay beklemeye devam eder") || !strings.Contains(res.Body, "Taşımak onu yeniden onaya gönderir") {
			t.Error("the dialog does not say a contributor's move needs approval")
		}
	})
}

// siteInBerlin moves the test site to Berlin's clock, which changes twice
// a year (an Owner does it).
func siteInBerlin(t *testing.T, a *apptest.App) {
	t.Helper()
	owner := a.AddUser(t, "owner@example.com", "Olcay Owner", policy.Owner, "en")
	site, err := a.Engine.Site(context.Background(), a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.New(a.Engine, a.Store).SetSiteTimeZone(context.Background(), owner, site.ID, "Europe/Berlin", site.Rev); err != nil {
		t.Fatal(err)
	}
}

// Days are the site's: an item at 23:30 on the 31st is on the 31st, the
// day the clocks go back has 25 hours and the day they go forward 23.
func TestMonthGridDaysInTheSiteZone(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	siteInBerlin(t, a)
	for _, s := range []struct{ title, date, clock string }{
		{"Late on the 31st", "2027-10-31", "23:30"},       // 22:30Z, after the clocks went back that morning
		{"Twice at half past two", "2027-10-31", "02:30"}, // the hour that repeats: its first pass
		{"Early on the first", "2027-11-01", "00:30"},     // 23:30Z on the 31st
		{"Before the gap", "2027-03-27", "23:30"},
		{"In the gap", "2027-03-28", "02:30"}, // runs at 03:30 (D2)
	} {
		a.ScheduleAt(t, a.Editor, monthNode(a, t, s.title), s.date, s.clock)
	}
	c := a.SignedIn(t, a.Editor)

	res := c.Check(t, apptest.Scenario{URL: monthGrid("2027-10"), Header: monthHX, ExpectedStatus: http.StatusOK})
	cells, order := monthCells(t, res.Body)
	if order[0] != "2027-09-27" || order[len(order)-1] != "2027-10-31" || len(order) != 35 {
		t.Errorf("October 2027: %s … %s (%d days), want 2027-09-27 … 2027-10-31 (35)", order[0], order[len(order)-1], len(order))
	}
	last := cells["2027-10-31"]
	for _, want := range []string{"‘Late on the 31st’", "‘Twice at half past two’", "Sunday 31 October, 2 items: 2 publishes"} {
		if !strings.Contains(last+monthCellSpoken(t, last), want) {
			t.Errorf("the 31st lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(res.Body, "Early on the first") {
		t.Error("00:30 on 1 November shows in October")
	}
	res = c.Check(t, apptest.Scenario{URL: monthGrid("2027-11"), Header: monthHX, ExpectedStatus: http.StatusOK})
	cells, order = monthCells(t, res.Body)
	if order[0] != "2027-11-01" || !strings.Contains(cells["2027-11-01"], "‘Early on the first’") {
		t.Errorf("November 2027 starts %s; its first day:\n%s", order[0], cells["2027-11-01"])
	}

	res = c.Check(t, apptest.Scenario{URL: monthGrid("2027-03"), Header: monthHX, ExpectedStatus: http.StatusOK})
	cells, _ = monthCells(t, res.Body)
	if !strings.Contains(cells["2027-03-27"], "23:30 ‘Before the gap’, Publish") {
		t.Errorf("the 27th:\n%s", cells["2027-03-27"])
	}
	if !strings.Contains(cells["2027-03-28"], "03:30 ‘In the gap’, Publish") {
		t.Errorf("the 28th (02:30 does not exist; it runs at 03:30):\n%s", cells["2027-03-28"])
	}
	if monthCellSpoken(t, cells["2027-03-29"]) != "Monday 29 March, nothing scheduled" {
		t.Errorf("the 29th:\n%s", cells["2027-03-29"])
	}
}

// In Istanbul (UTC+3), 01:00 on the 3rd is 22:00Z on the 2nd: the site's
// day counts, not UTC's.
func TestMonthGridDayIsTheSites(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "01:00")
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-30", "23:30")
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: monthGrid("2026-11"), Header: monthHX, ExpectedStatus: http.StatusOK})
	cells, _ := monthCells(t, res.Body)
	if !strings.Contains(cells["2026-11-03"], "01:00 ‘Election night live’, Publish") || strings.Contains(cells["2026-11-02"], "Election") {
		t.Errorf("01:00 on the 3rd:\n%s", cells["2026-11-03"])
	}
	if !strings.Contains(cells["2026-11-30"], "23:30 ‘Budget night’, Publish") {
		t.Errorf("23:30 on the 30th:\n%s", cells["2026-11-30"])
	}
}

func TestMonthFragmentsAsPages(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	c := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "GridAsAPage", URL: monthGrid("2026-11") + "&kind=publish", ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio/schedules?date=2026-11&kind=publish&view=month"}},
		{Name: "DayAsAPage", URL: "/studio/schedules/month/day?date=2026-11-02", ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio/schedules?date=2026-11-02"}},
		{Name: "DayPanel", URL: "/studio/schedules/month/day?date=2026-11-02", Header: monthHX, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Today · Monday 2 November", "09:00 ‘Election night live’, Publish, by Elif Editor, scheduled",
				`href="/studio/schedules?date=2026-11-02">Open in the Agenda</a>`}},
		{Name: "EmptyDayPanel", URL: "/studio/schedules/month/day?date=2026-11-05", Header: monthHX, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Thursday 5 November", "Nothing is scheduled on this day."}},
		{Name: "UnknownValuesDropped", URL: monthGrid("nonsense") + "&kind=bogus", Header: monthHX, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{">November 2026</caption>"}},
	})
	anon := a.Client(t, "")
	anon.Check(t, apptest.Scenario{URL: monthGrid("2026-11"), Header: monthHX, ExpectedStatus: http.StatusUnauthorized})
}

// A drop opens the dialog; its "Move" posts here (§15.6): the grid comes
// back with a toast offering Undo; a stale move says so with the way out.
func TestMoveFromCalendar(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-04", "09:00")
	move := "/studio/releases/" + rel.ID + "/move-calendar"
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	form := func(rev, date, clock string) url.Values {
		return url.Values{"csrf_token": {token}, "rev": {rev}, "date": {date}, "time": {clock}, "state": {"view=month&date=2026-11"}}
	}
	before := a.Fingerprint(t)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "WithoutCSRF", Method: "POST", URL: move, Header: monthHX,
			Form:           url.Values{"rev": {"1"}, "date": {"2026-11-06"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusForbidden},
		{Name: "InThePast", Method: "POST", URL: move, Header: monthHX, Form: form("1", "2026-11-01", "09:00"),
			ExpectedStatus:     http.StatusUnprocessableEntity,
			ExpectedContent:    []string{`data-month-problem`, "This time has already passed."},
			NotExpectedContent: []string{"Load the latest", `id="month-grid"`}},
	})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("a refused move changed the database:\n%s\n%s", before, after)
	}

	res := c.Check(t, apptest.Scenario{Name: "Moved", Method: "POST", URL: move, Header: monthHX, Form: form("1", "2026-11-06", "09:00"),
		ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`id="month-grid"`, `data-month-toast`,
			"‘Election night live’ moved to 6 November 2026, 09:00.",
			`action="` + move + `"`, `name="rev" value="2"`, `name="date" value="2026-11-04"`, `name="time" value="09:00"`,
			`name="undo" value="1"`, `name="state" value="date=2026-11&amp;view=month"`}})
	cells, _ := monthCells(t, res.Body)
	if !strings.Contains(cells["2026-11-06"], "Election night live") || strings.Contains(cells["2026-11-04"], "Election night live") {
		t.Error("the grid in the answer does not show the move")
	}
	moved := a.Release(t, rel.ID)
	if moved.State != release.StateScheduled || moved.When.LocalTime != "2026-11-06T09:00" || moved.Approval == nil {
		t.Fatalf("after the move: %s at %s, approval %v; an editor keeps the approval", moved.State, moved.When.LocalTime, moved.Approval)
	}

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Stale", Method: "POST", URL: move, Header: monthHX, Form: form("1", "2026-11-07", "09:00"),
			ExpectedStatus: http.StatusConflict,
			ExpectedContent: []string{"This schedule changed somewhere else.", ">Load the latest</a>",
				`data-month-latest="/studio/schedules/month/grid?date=2026-11&amp;view=month"`,
				`href="/studio/schedules?date=2026-11&amp;view=month"`}},
		{Name: "Undo", Method: "POST", URL: move, Header: monthHX,
			Form:               url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-04"}, "time": {"09:00"}, "undo": {"1"}, "state": {"view=month&date=2026-11"}},
			ExpectedStatus:     http.StatusOK,
			ExpectedContent:    []string{"Move undone: ‘Election night live’ is back at 4 November 2026, 09:00."},
			NotExpectedContent: []string{`data-month-undo`}},
	})
	if back := a.Release(t, rel.ID); back.When.LocalTime != "2026-11-04T09:00" || back.State != release.StateScheduled {
		t.Errorf("after Undo: %s at %s", back.State, back.When.LocalTime)
	}

	t.Run("WithoutJavaScript", func(t *testing.T) {
		// The dialog's form posted as a page is the release page's Move.
		res := c.Check(t, apptest.Scenario{Method: "POST", URL: move, Form: form("3", "2026-11-05", "10:00"), ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio/releases/" + rel.ID}})
		_ = res
	})

	t.Run("ContributorSendsItForApproval", func(t *testing.T) {
		cc := a.SignedIn(t, a.Contributor)
		ctoken := cc.Token()
		n := monthNode(a, t, "Letters")
		own := a.ScheduleAt(t, a.Contributor, n, "2026-11-09", "12:00")
		cc.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/releases/" + own.ID + "/move-calendar", Header: monthHX,
			Form:           url.Values{"csrf_token": {ctoken}, "rev": {"1"}, "date": {"2026-11-10"}, "time": {"12:00"}, "state": {"view=month&date=2026-11"}},
			ExpectedStatus: http.StatusOK, ExpectedContent: []string{"‘Letters’ moved to 10 November 2026, 12:00 and sent for approval."}})
		cc.Check(t, apptest.Scenario{Method: "POST", URL: move, Header: monthHX,
			Form:           url.Values{"csrf_token": {ctoken}, "rev": {"4"}, "date": {"2026-11-10"}, "time": {"12:00"}},
			ExpectedStatus: http.StatusForbidden})
	})
}

// Gates and automation runs (§15.3): a gate chip links to the page it
// gates and is never dragged; a run to come is a ghost chip (↻).
func TestMonthGridGatesAndRuns(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	if _, err := automations.New(a.Store, a.Engine).CreateAutomation(ctx, a.Editor, a.Site.ID, "Broken-link sweep", "builtin:broken-links",
		"FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-01T00:00"); err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC) // 12:00 in Istanbul
	gated := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Winter issue", Slug: "winter-issue",
		Status: content.StatusPublished, Text: "Soon.", Availability: &content.Availability{From: &from}})
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: monthGrid("2026-11"), Header: monthHX, ExpectedStatus: http.StatusOK})
	cells, _ := monthCells(t, res.Body)
	run := cells["2026-11-03"]
	if got, want := monthCellSpoken(t, run), "Tuesday 3 November, 1 item: 1 automation run"; got != want {
		t.Errorf("the 3rd says %q, want %q", got, want)
	}
	for _, want := range []string{
		`aria-label="09:07 ‘Broken-link sweep’, Automation run, by Elif Editor, recurring"`, "chip chip-ghost", `href="#mi-recurring"`} {
		if !strings.Contains(run, want) {
			t.Errorf("the 3rd lacks %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, "data-drag") {
		t.Error("a recurring run can be dragged")
	}
	gate := cells["2026-11-20"]
	for _, want := range []string{"12:00 ‘Winter issue’, Embargo", "chip chip-gate", `href="/studio/content/` + gated.ID + `"`,
		"1 embargo"} {
		if !strings.Contains(gate, want) {
			t.Errorf("the 20th lacks %q:\n%s", want, gate)
		}
	}
	if strings.Contains(gate, "data-drag") {
		t.Error("a gate can be dragged")
	}
	if strings.Contains(cells["2026-11-01"], "Broken-link sweep") {
		t.Error("a run before the automation existed shows")
	}
}

// A month full to the brim stays light: six weeks of 24 runs a day is
// three chips and "+21 more" a day, well under the page's 150 KB.
func TestMonthGridWeight(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	if _, err := automations.New(a.Store, a.Engine).CreateAutomation(context.Background(), a.Editor, a.Site.ID, "Hourly feed check with a long name",
		"builtin:feed-check", "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=7",
		"2026-10-01T00:00"); err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{URL: monthGrid("2026-12"), Header: monthHX, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{">+21 more</a>"}})
	if n := len(res.Body); n > 80_000 {
		t.Errorf("a full month's grid weighs %d bytes, want at most 80 KB of the page's 150", n)
	} else {
		t.Logf("a full month's grid: %d bytes", n)
	}
	page := c.Check(t, apptest.Scenario{URL: "/studio/schedules?view=month&date=2026-12", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`id="month-grid"`}})
	if n := len(page.Body); n > 150_000 {
		t.Errorf("the Month page weighs %d bytes, want at most 150 KB", n)
	} else {
		t.Logf("the Month page: %d bytes", n)
	}
}
