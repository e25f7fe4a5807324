package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

// Tests of issue 10's newcomer bullets on the release, approval and
// schedule screens, against the real router.

var (
	approvalRowRe = regexp.MustCompile(`data-testid="approval-(apr_[^"]+)"`)
	waitingRowRe  = regexp.MustCompile(`data-testid="waiting-(apr_[^"]+)"`)
)

func submatches(re *regexp.Regexp, body string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestWaitingListsSoonestFirst: "Waiting for approval is not sorted by due
// time (today's request was listed last)". Asked for tomorrow first, then
// today at 12:00, then today at 11:00, then a live article's expiry that
// publishes when approved: every surface lists the expiry, 11:00, 12:00,
// tomorrow.
func TestWaitingListsSoonestFirst(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	tomorrow := requestOn(a, t, content.Body{Title: "Tomorrow", Slug: "tomorrow", Status: content.StatusDraft, Text: "."}, "2026-11-03", "09:00")
	a.Clock.Set(apptest.Start.Add(time.Minute))
	noon := requestOn(a, t, content.Body{Title: "Jobs", Slug: "jobs", Status: content.StatusDraft, Text: "."}, "2026-11-02", "12:00")
	a.Clock.Set(apptest.Start.Add(2 * time.Minute))
	eleven := requestOn(a, t, content.Body{Title: "Press", Slug: "press", Status: content.StatusDraft, Text: "."}, "2026-11-02", "11:00")
	a.Clock.Set(apptest.Start.Add(3 * time.Minute))
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Live.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Gates.SetGates(ctx, a.Contributor, gates.GateInput{SiteID: a.Site.ID, NodeID: a.Live.ID, ExpectedRev: d.Rev,
		From: gates.KeepGate(), Until: gates.GateAt(time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)), Apply: gates.GateApplyNow}); err != nil {
		t.Fatal(err)
	}
	var gate string
	list, err := a.Releases.Approvals(ctx, a.Editor, a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		if v.Request.ExecuteAt == nil {
			gate = v.Request.ID
		}
	}
	want := []string{gate, eleven, noon, tomorrow}

	c := a.SignedIn(t, a.Editor)
	page := c.Check(t, apptest.Scenario{Name: "ApprovalsPage", URL: "/studio/approvals", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Publishes when approved"}})
	if got := submatches(approvalRowRe, page.Body); !slices.Equal(got, want) {
		t.Errorf("Approvals page order = %v, want %v", got, want)
	}
	aside := c.Check(t, apptest.Scenario{Name: "SchedulesAside", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})
	if got := submatches(waitingRowRe, aside.Body); !slices.Equal(got, want) {
		t.Errorf("Schedules aside order = %v, want %v", got, want)
	}

	token, _, err := a.Identity.CreateToken(ctx, a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, out := apptest.APICall(t, a, "GET", "/api/sites/"+a.Site.ID+"/approvals", token, "")
	if status != http.StatusOK {
		t.Fatalf("API approvals: %d %v", status, out)
	}
	var got []string
	for _, v := range out["approvals"].([]any) {
		got = append(got, v.(map[string]any)["id"].(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("API approvals order = %v, want %v", got, want)
	}
}

// requestOn has the contributor ask for a new draft page at date and clock
// in Istanbul and returns the request's id.
func requestOn(a *apptest.App, t *testing.T, body content.Body, date, clock string) string {
	t.Helper()
	n := a.CreateNode(t, "page", body)
	r := a.ScheduleAt(t, a.Contributor, n, date, clock)
	qs, err := a.Releases.WaitingRequestsOf(context.Background(), a.Editor, a.Site.ID, []string{r.ID})
	if err != nil || len(qs) != 1 {
		t.Fatalf("request of %s: %v %v", r.ID, qs, err)
	}
	return qs[0].ID
}

// TestGateSaveAndPublishBeforeTheNowLine: after an immediate "Save and
// publish" of a live article's expiry, the Agenda shows its Published row
// before the Now line, at the minute it happened.
func TestGateSaveAndPublishBeforeTheNowLine(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.Clock.Set(apptest.Start.Add(12*time.Minute + 30*time.Second)) // 08:12:30 in Istanbul
	editor := a.SignedIn(t, a.Editor)
	editor.Check(t, apptest.Scenario{Name: "SaveAndPublish", Method: "POST", URL: "/studio/content/" + a.Live.ID + "/gates",
		Form:           apptest.WithToken(apptest.GateForm(a.NodeRev(t, a.Live.ID), "until_date", "2026-11-06", "until_time", "18:00"), editor.Token()),
		ExpectedStatus: http.StatusSeeOther})
	res := editor.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="now-rule"`, `data-state="published"`, "08:12 Istanbul"}})
	ids := apptest.AgendaReleaseIDs(res.Body)
	if len(ids) != 1 {
		t.Fatalf("agenda releases %v, want the gate's one", ids)
	}
	row, now := strings.Index(res.Body, `data-testid="release-`+ids[0]+`"`), strings.Index(res.Body, `data-testid="now-rule"`)
	if row < 0 || now < 0 || row > now {
		t.Fatalf("the Published row (at %d) is not before the Now line (at %d)\n%s", row, now, apptest.Excerpt(res.Body))
	}
}

// TestSchedulePreviewOfARefusedTime: "the schedule preview sentence still
// reads 'Publishes on … 10:00' under the error 'This time has already
// passed'". At 08:00 in Istanbul, 07:00 today is refused: the live preview
// and the form after a refused submit show only the error, never the
// sentence; a time that would be accepted still reads as one.
func TestSchedulePreviewOfARefusedTime(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	draftRelease := draftRelease(a, t)
	form := "/studio/content/" + a.Draft.ID + "/schedule"
	for _, base := range []string{form + "/preview", "/studio/releases/" + draftRelease + "/schedule/preview"} {
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Passed", URL: base + "?date=2026-11-02&time=07:00", ExpectedStatus: http.StatusOK,
				ExpectedContent:    []string{`data-testid="preview-error"`, "This time has already passed. Choose a later one."},
				NotExpectedContent: []string{"Publishes on", `data-testid="preview"`}},
			{Name: "WithinTheMinute", URL: base + "?date=2026-11-02&time=08:00", ExpectedStatus: http.StatusOK,
				ExpectedContent:    []string{"Choose a time at least one minute from now"},
				NotExpectedContent: []string{"Publishes on"}},
			{Name: "TooFar", URL: base + "?date=2027-12-01&time=09:00", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Choose a time within the next 366 days."}, NotExpectedContent: []string{"Publishes on"}},
			{Name: "Accepted", URL: base + "?date=2026-11-02&time=10:00", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Publishes on Monday 2 November at", "10:00 Istanbul"}, NotExpectedContent: []string{"preview-error", "preview-note"}},
			{Name: "MinutesAway", URL: base + "?date=2026-11-02&time=08:04", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="preview-note">That is less than 5 minutes away.`}, NotExpectedContent: []string{"preview-error"}},
			{Name: "StillTyping", URL: base + "?date=2026-11-02&time=", ExpectedStatus: http.StatusOK,
				NotExpectedContent: []string{"preview-error", `data-testid="preview"`}},
		})
	}
	res := c.Check(t, apptest.Scenario{Name: "RefusedSubmit", Method: "POST", URL: form,
		Form:           apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(a.NodeRev(t, a.Draft.ID))}, "date": {"2026-11-02"}, "time": {"07:00"}}, c.Token()),
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"This time has already passed. Choose a later one."},
		NotExpectedContent: []string{"Publishes on"}})
	if n := strings.Count(res.Body, "This time has already passed"); n != 1 {
		t.Errorf("the refusal is shown %d times, want once under the time", n)
	}

	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", URL: form + "/preview?date=2026-11-02&time=07:00", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="preview-error"`}, NotExpectedContent: []string{"Yayım zamanı"}})

	// A time a clock change skips: Berlin goes from 02:00 to 03:00 on 28 March 2027.
	siteInBerlin(t, a)
	c.Check(t, apptest.Scenario{Name: "GapTurkish", URL: form + "/preview?date=2027-03-28&time=02:30", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Berlin saatiyle 28 Mart Pazar günü 02:30 yok: saatler ileri alınıyor. 03:30 olarak çalışır."}})
	a.SetLang(t, a.Editor, "en")
	c.Check(t, apptest.Scenario{Name: "Gap", URL: form + "/preview?date=2027-03-28&time=02:30", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"02:30 does not exist on Sunday 28 March in Berlin: the clocks go forward. It runs at 03:30."}})
}

// draftRelease is a draft release of the editor's with the draft article
// in it.
func draftRelease(a *apptest.App, t *testing.T) string {
	t.Helper()
	n := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Election coverage", Slug: "election-coverage",
		Lang: "en", Status: content.StatusDraft, Text: "Every count as it comes."})
	r, err := a.Releases.NewRelease(context.Background(), a.Editor, a.Site.ID, "Election coverage", []string{n.ID})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// TestZoneNamedOnce: "'Your browser is set to UTC (UTC): UTC' and 'Times
// are in your own time: UTC (UTC)' repeat the zone". A viewer in UTC on an
// Istanbul site reads each zone once: a city and its offset, or for UTC
// the one word.
func TestZoneNamedOnce(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	c := a.SignedIn(t, owner)
	c.SetCookie("tz", "UTC") // as studio.js sets it
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "SettingsBrowserZone", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="zone-browser"`, "Your browser is set to UTC.", "Istanbul (UTC+3)"},
			NotExpectedContent: []string{"UTC (UTC)", "<code>UTC</code>"}},
		{Name: "CalendarViewerZone", URL: "/studio/schedules?tz=viewer", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Times are in your own time: UTC."}, NotExpectedContent: []string{"UTC (UTC)"}},
		{Name: "CalendarSiteZone", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Times are in Istanbul (UTC+3) time."}},
	})
	berlin := a.SignedIn(t, owner)
	berlin.SetCookie("tz", "Europe%2FBerlin")
	berlin.Check(t, apptest.Scenario{Name: "SettingsBerlin", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Your browser is set to Berlin (UTC+1):", "<code>Europe/Berlin</code>"}})
	a.SetLang(t, owner, "tr")
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "TurkishSettings", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Tarayıcınızın saat dilimi UTC."}, NotExpectedContent: []string{"UTC (UTC)"}},
		{Name: "TurkishCalendar", URL: "/studio/schedules?tz=viewer", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Saatler sizin saatinize göredir: UTC."}, NotExpectedContent: []string{"UTC (UTC)"}},
	})
}

// TestStaleRefusalOffersLoadTheLatest: "A stale-edit refusal offers no
// 'Load the latest' link". Each page that refuses a change because
// something changed elsewhere (409) links to itself as it is now; a refusal
// of the person's own input (422) does not.
func TestStaleRefusalOffersLoadTheLatest(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	latest := func(href string) string {
		return `href="` + href + `" data-testid="load-latest">Load the latest</a>`
	}
	rel := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
	releasePage := "/studio/releases/" + rel.ID
	stale := fmt.Sprint(rel.Rev - 1)
	draft := draftRelease(a, t)
	draftRev := fmt.Sprint(a.Release(t, draft).Rev)
	liveRev := a.NodeRev(t, a.Live.ID)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Move", Method: "POST", URL: releasePage + "/move",
			Form:           apptest.WithToken(map[string][]string{"rev": {stale}, "date": {"2026-11-02"}, "time": {"11:00"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile.", latest(releasePage)}},
		{Name: "Unschedule", Method: "POST", URL: releasePage + "/unschedule", Form: apptest.WithToken(map[string][]string{"rev": {stale}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest(releasePage)}},
		{Name: "MoveToThePast", Method: "POST", URL: releasePage + "/move",
			Form:           apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(rel.Rev)}, "date": {"2026-11-02"}, "time": {"07:00"}}, token),
			ExpectedStatus: http.StatusUnprocessableEntity, NotExpectedContent: []string{`data-testid="load-latest"`}},
		{Name: "ScheduleForm", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form: apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(a.NodeRev(t, a.Draft.ID) - 1)}, "date": {"2026-11-02"},
				"time": {"10:00"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/content/" + a.Draft.ID + "/schedule")}},
		{Name: "Editor", Method: "POST", URL: "/studio/content/" + a.Live.ID,
			Form: apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(liveRev - 1)}, "title": {"Welcome"}, "slug": {"welcome"},
				"status": {"published"}, "body": {"Hello."}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/content/" + a.Live.ID)}},
		{Name: "GatesCard", Method: "POST", URL: "/studio/content/" + a.Live.ID + "/gates",
			Form:           apptest.WithToken(apptest.GateForm(liveRev-1, "until_date", "2026-11-06", "until_time", "18:00"), token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{`data-testid="gates-alert"`, latest("/studio/content/" + a.Live.ID)}},
		{Name: "DraftRename", Method: "POST", URL: "/studio/releases/" + draft + "/rename",
			Form:           apptest.WithToken(map[string][]string{"rev": {draftRev + "0"}, "title": {"Winter launch"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/releases/" + draft)}},
	})

	// Undo of a published release, on a site that moved since.
	published := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(published.When.At)
	if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	site, err := a.Engine.Site(context.Background(), a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	undo := "/studio/releases/" + published.ID + "/undo"
	c.Check(t, apptest.Scenario{Name: "Undo", Method: "POST", URL: undo,
		Form:           apptest.WithToken(map[string][]string{"site_rev": {fmt.Sprint(site.Rev - 1)}}, token),
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest(undo)}})

	a.SetLang(t, a.Editor, "tr")
	c.Check(t, apptest.Scenario{Name: "Turkish", Method: "POST", URL: releasePage + "/unschedule",
		Form: apptest.WithToken(map[string][]string{"rev": {stale}}, token), ExpectedStatus: http.StatusConflict,
		ExpectedContent: []string{`data-testid="load-latest">En güncelini yükle</a>`}})
}

// TestTurkishOnReleaseScreens reads the Turkish of the release screens as
// a native editor would: a release that goes back to draft "taslağa
// döndü" (not "yeniden taslak oldu"), and a moved one keeps its approval
// ("onay geçerliliğini koruyor").
func TestTurkishOnReleaseScreens(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.SetLang(t, a.Editor, "tr")
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "10:00")
	page := "/studio/releases/" + rel.ID
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Move", Method: "POST", URL: page + "/move", Form: apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(rel.Rev)},
			"date": {"2026-11-02"}, "time": {"11:00"}}, token), ExpectedStatus: http.StatusSeeOther},
		{Name: "Moved", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Taşındı. İçerik değişmediği için onay geçerliliğini koruyor."}},
	})
	c.Check(t, apptest.Scenario{Name: "Unschedule", Method: "POST", URL: page + "/unschedule",
		Form: apptest.WithToken(map[string][]string{"rev": {fmt.Sprint(a.Release(t, rel.ID).Rev)}}, token), ExpectedStatus: http.StatusSeeOther})
	c.Check(t, apptest.Scenario{Name: "Unscheduled", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"Zamanlama kaldırıldı. Yayın paketi yeniden taslağa döndü; düzenleyebilirsiniz."},
		NotExpectedContent: []string{"Yeniden taslak oldu"}})
}

// TestScheduleDraftWhenApproved: a draft release's schedule form offers
// "When approved" (§15.1) beside a date and time; a contributor's waits for
// approval with no time of its own, and an editor's, approved by them,
// publishes at once.
func TestScheduleDraftWhenApproved(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	n := a.CreateNode(t, release.KindPage, content.Body{Title: "Corrections", Slug: "corrections", Lang: "en",
		Status: content.StatusDraft, Text: "We fix what we got wrong."})
	mine, err := a.Releases.NewRelease(ctx, a.Contributor, a.Site.ID, "Corrections", []string{n.ID})
	if err != nil {
		t.Fatal(err)
	}
	contributor := a.SignedIn(t, a.Contributor)
	page := "/studio/releases/" + mine.ID
	contributor.Check(t, apptest.Scenario{Name: "Offered", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`name="when" value="on-approval"`, "When approved", "it publishes as soon as an editor approves it"}})
	contributor.Check(t, apptest.Scenario{Name: "AsksForApproval", Method: "POST", URL: page + "/schedule",
		Form: url.Values{"csrf_token": {contributor.Token()}, "rev": {fmt.Sprint(mine.Rev)}, "when": {"on-approval"}}, ExpectedStatus: http.StatusSeeOther})
	if got := a.Release(t, mine.ID); got.State != release.StateAwaitingApproval || got.ExecuteAt != nil {
		t.Fatalf("the contributor's: %s at %v, want waiting with no time", got.State, got.ExecuteAt)
	}

	editorDraft := draftRelease(a, t)
	editor := a.SignedIn(t, a.Editor)
	editor.Check(t, apptest.Scenario{Name: "ApprovedAndPublished", Method: "POST", URL: "/studio/releases/" + editorDraft + "/schedule",
		Form: url.Values{"csrf_token": {editor.Token()}, "rev": {fmt.Sprint(a.Release(t, editorDraft).Rev)}, "when": {"on-approval"},
			"date": {""}, "time": {""}}, ExpectedStatus: http.StatusSeeOther})
	editor.Check(t, apptest.Scenario{Name: "SaysSo", URL: "/studio/releases/" + editorDraft, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Approved by you: it is being published now."}})
}
