package studio_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

func TestConflictPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	r := a.ConflictRelease(t)
	page := "/studio/releases/" + r.ID
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	rev := fmt.Sprint(r.Rev)
	before := a.Fingerprint(t)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "ThreeWay", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="three-way"`, "Pinned base · version 2", "Live now · version 1",
				"Pinned version 3", `data-testid="repin"`, `data-testid="rebase" aria-describedby="rebase-hint resolve-approval"`,
				"choosing one is your approval", `value="10:00"`, "Cancel ends the release."},
			NotExpectedContent: []string{`data-testid="rebase-why"`, `data-testid="move-form"`}},
		{Name: "TimeInThePast", Method: "POST", URL: page + "/repin",
			Form:           url.Values{"csrf_token": {token}, "rev": {rev}, "date": {"2026-11-02"}, "time": {"08:00"}},
			ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="error-time">This time has already passed.`, `value="08:00"`,
				`data-testid="three-way"`}},
		{Name: "Stale", Method: "POST", URL: page + "/rebase",
			Form:           url.Values{"csrf_token": {token}, "rev": {fmt.Sprint(r.Rev - 1)}, "date": {"2026-11-02"}, "time": {"10:00"}},
			ExpectedStatus: http.StatusConflict, ExpectedContent: []string{"This changed somewhere else meanwhile."}},
	})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused resolutions changed state:\n%s\n%s", before, after)
	}

	// Someone who neither made it nor approves releases sees the view only.
	other := a.SignedIn(t, a.Contributor)
	other.Check(t, apptest.Scenario{Name: "ContributorReadsOnly", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="three-way"`}, NotExpectedContent: []string{`data-testid="resolve-form"`}})

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Rebase", Method: "POST", URL: page + "/rebase",
			Form:           url.Values{"csrf_token": {token}, "rev": {rev}, "date": {"2026-11-02"}, "time": {"10:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": page}},
		{Name: "Rebased", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Re-based and approved.", `data-state="scheduled"`, "10:00 Istanbul", "Elif Editor re-based it"},
			NotExpectedContent: []string{`data-testid="three-way"`}},
	})
}

func TestEditScheduled(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	editorPage := "/studio/content/" + a.Draft.ID
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	u, form := a.EditScheduledForm(t, rel)
	form.Set("csrf_token", token)
	noTitle := url.Values{}
	for k, v := range form {
		noTitle[k] = v
	}
	noTitle.Set("title", "")
	var before string
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Locked", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Locked: publishes on 2 November 2026, 09:00.", `data-testid="unschedule-and-edit"`,
				`data-testid="edit-scheduled-open"`, "Edit and re-approve", "<fieldset disabled>"}},
		{Name: "Open", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`action="/studio/content/` + a.Draft.ID + `/edit-scheduled"`, "Save and re-approve", "records your approval again"},
			NotExpectedContent: []string{"<fieldset disabled>", `<select id="node-status"`}},
	})
	before = a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "NoTitle", Method: "POST", URL: u, Form: noTitle, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-title"`, "Save and re-approve", "Edited while scheduled."}})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("a refused edit changed state:\n%s\n%s", before, after)
	}
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Save", Method: "POST", URL: u, Form: form, ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": editorPage}},
		{Name: "Saved", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Saved and pinned. Your approval is recorded again.", "Edited while scheduled.", "<fieldset disabled>"}},
	})
	if got := a.Release(t, rel.ID); got.State != release.StateScheduled || got.Approval == nil || got.Hash == rel.Hash {
		t.Fatalf("release %s approval %+v", got.State, got.Approval)
	}

	// A contributor's own waiting release: the edit is sent for approval.
	n := a.OtherDraft(t)
	mine := a.ScheduleAt(t, a.Contributor, n, "2026-11-02", "10:00")
	cc := a.SignedIn(t, a.Contributor)
	u, form = a.EditScheduledForm(t, mine)
	form.Set("csrf_token", cc.Token())
	apptest.RunScenarios(t, cc, []apptest.Scenario{
		{Name: "ContributorLocked", URL: "/studio/content/" + n.ID, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Edit and send for approval"}},
		{Name: "ContributorSave", Method: "POST", URL: u, Form: form, ExpectedStatus: http.StatusSeeOther},
		{Name: "ContributorSaved", URL: "/studio/content/" + n.ID, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Saved and pinned. It was sent for approval again."}},
		// Not theirs: the editor's release offers them no edit path.
		{Name: "NotTheirs", URL: editorPage, ExpectedStatus: http.StatusOK,
			NotExpectedContent: []string{`data-testid="edit-scheduled-open"`}},
		{Name: "NotTheirsForm", URL: editorPage + "/edit-scheduled", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<fieldset disabled>"}, NotExpectedContent: []string{"Save and"}},
	})
	if got := a.Release(t, mine.ID); got.State != release.StateAwaitingApproval {
		t.Fatalf("contributor's release %s, want waiting", got.State)
	}
}
