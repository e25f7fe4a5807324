package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/release"
	"studio/engine/policy"
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
	a := newApp(t)
	ctx := context.Background()
	tomorrow := a.requestOn(t, content.Body{Title: "Tomorrow", Slug: "tomorrow", Status: content.StatusDraft, Text: "."}, "2026-11-03", "09:00")
	a.clock.Set(start.Add(time.Minute))
	noon := a.requestOn(t, content.Body{Title: "Jobs", Slug: "jobs", Status: content.StatusDraft, Text: "."}, "2026-11-02", "12:00")
	a.clock.Set(start.Add(2 * time.Minute))
	eleven := a.requestOn(t, content.Body{Title: "Press", Slug: "press", Status: content.StatusDraft, Text: "."}, "2026-11-02", "11:00")
	a.clock.Set(start.Add(3 * time.Minute))
	d, err := a.nodes.Node(ctx, a.editor, a.site.ID, a.live.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.gates.SetGates(ctx, a.contributor, gates.GateInput{SiteID: a.site.ID, NodeID: a.live.ID, ExpectedRev: d.Rev,
		From: gates.KeepGate(), Until: gates.GateAt(time.Date(2026, 11, 6, 15, 0, 0, 0, time.UTC)), Apply: gates.GateApplyNow}); err != nil {
		t.Fatal(err)
	}
	var gate string
	list, err := a.releases.Approvals(ctx, a.editor, a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range list {
		if v.Request.ExecuteAt == nil {
			gate = v.Request.ID
		}
	}
	want := []string{gate, eleven, noon, tomorrow}

	c := a.signedIn(t, a.editor)
	page := c.check(t, scenario{Name: "ApprovalsPage", URL: "/studio/approvals", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Publishes when approved"}})
	if got := submatches(approvalRowRe, page.Body); !slices.Equal(got, want) {
		t.Errorf("Approvals page order = %v, want %v", got, want)
	}
	aside := c.check(t, scenario{Name: "SchedulesAside", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})
	if got := submatches(waitingRowRe, aside.Body); !slices.Equal(got, want) {
		t.Errorf("Schedules aside order = %v, want %v", got, want)
	}

	token, _, err := a.identity.CreateToken(ctx, a.editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, out := apiCall(t, a, "GET", "/api/sites/"+a.site.ID+"/approvals", token, "")
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
func (a *testApp) requestOn(t *testing.T, body content.Body, date, clock string) string {
	t.Helper()
	n := a.createNode(t, "page", body)
	r := a.scheduleAt(t, a.contributor, n, date, clock)
	qs, err := a.releases.WaitingRequestsOf(context.Background(), a.editor, a.site.ID, []string{r.ID})
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
	a := newApp(t)
	a.clock.Set(start.Add(12*time.Minute + 30*time.Second)) // 08:12:30 in Istanbul
	editor := a.signedIn(t, a.editor)
	editor.check(t, scenario{Name: "SaveAndPublish", Method: "POST", URL: "/studio/content/" + a.live.ID + "/gates",
		Form:           withToken(gateForm(a.nodeRev(t, a.live.ID), "until_date", "2026-11-06", "until_time", "18:00"), editor.token()),
		ExpectedStatus: http.StatusSeeOther})
	res := editor.check(t, scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="now-rule"`, `data-state="published"`, "08:12 Istanbul"}})
	ids := agendaReleaseIDs(res.Body)
	if len(ids) != 1 {
		t.Fatalf("agenda releases %v, want the gate's one", ids)
	}
	row, now := strings.Index(res.Body, `data-testid="release-`+ids[0]+`"`), strings.Index(res.Body, `data-testid="now-rule"`)
	if row < 0 || now < 0 || row > now {
		t.Fatalf("the Published row (at %d) is not before the Now line (at %d)\n%s", row, now, excerpt(res.Body))
	}
}

// TestSchedulePreviewOfARefusedTime: "the schedule preview sentence still
// reads 'Publishes on … 10:00' under the error 'This time has already
// passed'". At 08:00 in Istanbul, 07:00 today is refused: the live preview
// and the form after a refused submit show only the error, never the
// sentence; a time that would be accepted still reads as one.
func TestSchedulePreviewOfARefusedTime(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	draftRelease := a.draftRelease(t)
	form := "/studio/content/" + a.draft.ID + "/schedule"
	for _, base := range []string{form + "/preview", "/studio/releases/" + draftRelease + "/schedule/preview"} {
		runScenarios(t, c, []scenario{
			{Name: "Passed", URL: base + "?date=2026-11-02&time=07:00", ExpectedStatus: http.StatusOK,
				ExpectedContent:    []string{`data-testid="preview-error"`, "This time has already passed. Choose a later one."},
				NotExpectedContent: []string{"Publishes on", `data-testid="preview"`}},
			{Name: "WithinTheMinute", URL: base + "?date=2026-11-02&time=08:00", ExpectedStatus: http.StatusOK,
				ExpectedContent:    []string{"Choose a time at least one minute from now"},
				NotExpectedContent: []string{"Publishes on"}},
			{Name: "TooFar", URL: base + "?date=2027-12-01&time=09:00", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Choose a time within the next 366 days."}, NotExpectedContent: []string{"Publishes on"}},
			{Name: "Accepted", URL: base + "?date=2026-11-02&time=10:00", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Publishes on Monday 2 November at", "10:00 Istanbul"}, NotExpectedContent: []string{"preview-error"}},
			{Name: "StillTyping", URL: base + "?date=2026-11-02&time=", ExpectedStatus: http.StatusOK,
				NotExpectedContent: []string{"preview-error", `data-testid="preview"`}},
		})
	}
	res := c.check(t, scenario{Name: "RefusedSubmit", Method: "POST", URL: form,
		Form:           withToken(map[string][]string{"rev": {fmt.Sprint(a.nodeRev(t, a.draft.ID))}, "date": {"2026-11-02"}, "time": {"07:00"}}, c.token()),
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"This time has already passed. Choose a later one."},
		NotExpectedContent: []string{"Publishes on"}})
	if n := strings.Count(res.Body, "This time has already passed"); n != 1 {
		t.Errorf("the refusal is shown %d times, want once under the time", n)
	}

	a.setLang(t, a.editor, "tr")
	c.check(t, scenario{Name: "Turkish", URL: form + "/preview?date=2026-11-02&time=07:00", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="preview-error"`}, NotExpectedContent: []string{"Yayım zamanı"}})
}

// draftRelease is a draft release of the editor's with the draft article
// in it.
func (a *testApp) draftRelease(t *testing.T) string {
	t.Helper()
	n := a.createNode(t, release.KindContentEntry, content.Body{Title: "Election coverage", Slug: "election-coverage",
		Lang: "en", Status: content.StatusDraft, Text: "Every count as it comes."})
	r, err := a.releases.NewRelease(context.Background(), a.editor, a.site.ID, "Election coverage", []string{n.ID})
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
	a := newApp(t)
	owner := a.addUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	c := a.signedIn(t, owner)
	c.setCookie("tz", "UTC") // as studio.js sets it
	runScenarios(t, c, []scenario{
		{Name: "SettingsBrowserZone", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="zone-browser"`, "Your browser is set to UTC.", "Istanbul (UTC+3)"},
			NotExpectedContent: []string{"UTC (UTC)", "<code>UTC</code>"}},
		{Name: "CalendarViewerZone", URL: "/studio/schedules?tz=viewer", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Times are in your own time: UTC."}, NotExpectedContent: []string{"UTC (UTC)"}},
		{Name: "CalendarSiteZone", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Times are in Istanbul (UTC+3) time."}},
	})
	berlin := a.signedIn(t, owner)
	berlin.setCookie("tz", "Europe%2FBerlin")
	berlin.check(t, scenario{Name: "SettingsBerlin", URL: "/studio/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Your browser is set to Berlin (UTC+1):", "<code>Europe/Berlin</code>"}})
	a.setLang(t, owner, "tr")
	runScenarios(t, c, []scenario{
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
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	token := c.token()
	latest := func(href string) string {
		return `href="` + href + `" data-testid="load-latest">Load the latest</a>`
	}
	rel := a.scheduleAt(t, a.editor, a.otherDraft(t), "2026-11-02", "10:00")
	releasePage := "/studio/releases/" + rel.ID
	stale := fmt.Sprint(rel.Rev - 1)
	draft := a.draftRelease(t)
	draftRev := fmt.Sprint(a.release(t, draft).Rev)
	liveRev := a.nodeRev(t, a.live.ID)
	runScenarios(t, c, []scenario{
		{Name: "Move", Method: "POST", URL: releasePage + "/move",
			Form:           withToken(map[string][]string{"rev": {stale}, "date": {"2026-11-02"}, "time": {"11:00"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile.", latest(releasePage)}},
		{Name: "Unschedule", Method: "POST", URL: releasePage + "/unschedule", Form: withToken(map[string][]string{"rev": {stale}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest(releasePage)}},
		{Name: "MoveToThePast", Method: "POST", URL: releasePage + "/move",
			Form:           withToken(map[string][]string{"rev": {fmt.Sprint(rel.Rev)}, "date": {"2026-11-02"}, "time": {"07:00"}}, token),
			ExpectedStatus: http.StatusUnprocessableEntity, NotExpectedContent: []string{`data-testid="load-latest"`}},
		{Name: "ScheduleForm", Method: "POST", URL: "/studio/content/" + a.draft.ID + "/schedule",
			Form: withToken(map[string][]string{"rev": {fmt.Sprint(a.nodeRev(t, a.draft.ID) - 1)}, "date": {"2026-11-02"},
				"time": {"10:00"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/content/" + a.draft.ID + "/schedule")}},
		{Name: "Editor", Method: "POST", URL: "/studio/content/" + a.live.ID,
			Form: withToken(map[string][]string{"rev": {fmt.Sprint(liveRev - 1)}, "title": {"Welcome"}, "slug": {"welcome"},
				"status": {"published"}, "body": {"Hello."}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/content/" + a.live.ID)}},
		{Name: "GatesCard", Method: "POST", URL: "/studio/content/" + a.live.ID + "/gates",
			Form:           withToken(gateForm(liveRev-1, "until_date", "2026-11-06", "until_time", "18:00"), token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{`data-testid="gates-alert"`, latest("/studio/content/" + a.live.ID)}},
		{Name: "DraftRename", Method: "POST", URL: "/studio/releases/" + draft + "/rename",
			Form:           withToken(map[string][]string{"rev": {draftRev + "0"}, "title": {"Winter launch"}}, token),
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest("/studio/releases/" + draft)}},
	})

	// Undo of a published release, on a site that moved since.
	published := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	a.clock.Set(published.When.At)
	if _, err := a.sched.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	site, err := a.eng.Site(context.Background(), a.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	undo := "/studio/releases/" + published.ID + "/undo"
	c.check(t, scenario{Name: "Undo", Method: "POST", URL: undo,
		Form:           withToken(map[string][]string{"site_rev": {fmt.Sprint(site.Rev - 1)}}, token),
		ExpectedStatus: http.StatusConflict, ExpectedContent: []string{latest(undo)}})

	a.setLang(t, a.editor, "tr")
	c.check(t, scenario{Name: "Turkish", Method: "POST", URL: releasePage + "/unschedule",
		Form: withToken(map[string][]string{"rev": {stale}}, token), ExpectedStatus: http.StatusConflict,
		ExpectedContent: []string{`data-testid="load-latest">En güncelini yükle</a>`}})
}

// TestTurkishOnReleaseScreens reads the Turkish of the release screens as
// a native editor would: a release that goes back to draft "taslağa
// döndü" (not "yeniden taslak oldu"), and a moved one keeps its approval
// ("onay geçerliliğini koruyor").
func TestTurkishOnReleaseScreens(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.setLang(t, a.editor, "tr")
	c := a.signedIn(t, a.editor)
	token := c.token()
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "10:00")
	page := "/studio/releases/" + rel.ID
	runScenarios(t, c, []scenario{
		{Name: "Move", Method: "POST", URL: page + "/move", Form: withToken(map[string][]string{"rev": {fmt.Sprint(rel.Rev)},
			"date": {"2026-11-02"}, "time": {"11:00"}}, token), ExpectedStatus: http.StatusSeeOther},
		{Name: "Moved", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Taşındı. İçerik değişmediği için onay geçerliliğini koruyor."}},
	})
	c.check(t, scenario{Name: "Unschedule", Method: "POST", URL: page + "/unschedule",
		Form: withToken(map[string][]string{"rev": {fmt.Sprint(a.release(t, rel.ID).Rev)}}, token), ExpectedStatus: http.StatusSeeOther})
	c.check(t, scenario{Name: "Unscheduled", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{"Zamanlama kaldırıldı. Yayın paketi yeniden taslağa döndü; düzenleyebilirsiniz."},
		NotExpectedContent: []string{"Yeniden taslak oldu"}})
}
