package studio_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

func TestMoveForm(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	page := "/studio/releases/" + rel.ID
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "FormShowsTheCurrentTime", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="move-form"`, `value="2026-11-02"`, `value="09:00"`, "Move to…"}},
		{Name: "InThePast", Method: "POST", URL: page + "/move",
			Form:           url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-01"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="error-time">This time has already passed.`, `value="2026-11-01"`,
				`<details class="move" open>`}},
		{Name: "Moved", Method: "POST", URL: page + "/move",
			Form:           url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"10:30"}},
			ExpectedStatus: http.StatusSeeOther},
		{Name: "ShowsTheNewTime", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Moved. The approval stands", "10:30 Istanbul", `data-state="scheduled"`,
				`data-testid="history"`, "Elif Editor scheduled it", "Elif Editor moved it"}},
		{Name: "StaleRev", Method: "POST", URL: page + "/move",
			Form:            url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"11:00"}},
			ExpectedStatus:  http.StatusConflict,
			ExpectedContent: []string{"This changed somewhere else meanwhile."}},
	})
}

func TestUnscheduleAndEdit(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	editorPage := "/studio/content/" + a.Draft.ID
	// The Contributor may not change the Editor's release: the banner
	// offers no Unschedule (the release rule, not the state alone).
	apptest.RunScenarios(t, a.SignedIn(t, a.Contributor), []apptest.Scenario{
		{Name: "NotTheirs", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"2 November 2026, 09:00", "<fieldset disabled>"},
			NotExpectedContent: []string{`data-testid="unschedule-and-edit"`}},
	})
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Locked", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"2 November 2026, 09:00", `data-testid="unschedule-and-edit"`, "<fieldset disabled>"}},
		{Name: "UnscheduleAndEdit", Method: "POST", URL: "/studio/releases/" + rel.ID + "/unschedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"1"}, "next": {editorPage}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": editorPage}},
		{Name: "Editable", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Unscheduled. It is a draft again", `<option value="draft" selected>`},
			NotExpectedContent: []string{"<fieldset disabled>", `data-testid="unschedule-and-edit"`}},
		{Name: "NextStaysInStudio", Method: "POST", URL: "/studio/releases/" + rel.ID + "/cancel",
			Form:           url.Values{"csrf_token": {token}, "rev": {"2"}, "next": {"https://evil.example/"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}},
	})
}

func TestAgendaWarnsOfTheSameMinute(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "09:00")
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "TwoAtNine", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 releases at 09:00: they run one after another"}})
	if n := strings.Count(res.Body, `data-testid="same-minute"`); n != 2 {
		t.Errorf("%d warnings, want one on each of the two releases", n)
	}
	a.ScheduleAt(t, a.Editor, a.CreateNode(t, release.KindPage, content.Body{Title: "Ten", Slug: "ten", Status: content.StatusDraft}),
		"2026-11-02", "10:00")
	res = c.Check(t, apptest.Scenario{Name: "TenIsAlone", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})
	if n := strings.Count(res.Body, `data-testid="same-minute"`); n != 2 {
		t.Errorf("%d warnings after adding 10:00, want still 2", n)
	}
}
