package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"studio/engine/model/release"
	"studio/engine/releases"
)

// conflictRelease is a release held as a conflict (§6.4): "first"
// publishes an edit of the live article at 08:30, "second" pins the next
// edit for 09:00, an Undo of "first" puts version 1 back, and the tick at
// 09:00 finds second's base gone. The clock is left at 09:00.
func (a *testApp) conflictRelease(t *testing.T) releases.ReleaseRow {
	t.Helper()
	ctx := context.Background()
	edit := func(text string) {
		t.Helper()
		d, err := a.nodes.Node(ctx, a.editor, a.site.ID, a.live.ID)
		if err != nil {
			t.Fatal(err)
		}
		body := d.Body
		body.Text = text
		if _, err := a.nodes.SaveNode(ctx, a.editor, a.site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
	}
	edit("This is the first article.\nCorrected.")
	first := a.scheduleAt(t, a.editor, a.live, "2026-11-02", "08:30")
	a.clock.Set(time.Date(2026, 11, 2, 5, 30, 0, 0, time.UTC))
	if _, err := a.sched.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	edit("This is the first article.\nCorrected.\nUpdated.")
	second := a.scheduleAt(t, a.editor, a.live, "2026-11-02", "09:00")
	plan, err := a.releases.PlanUndo(ctx, a.editor, a.site.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.releases.Undo(ctx, a.editor, a.site.ID, first.ID, plan.Site.Rev); err != nil {
		t.Fatal(err)
	}
	a.clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if _, err := a.sched.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	r := a.release(t, second.ID)
	if r.State != release.StateConflict {
		t.Fatalf("second is %s, want conflict", r.State)
	}
	return r
}

// editScheduledForm is a valid "Edit and re-approve" form for the node the
// scheduled release rel holds.
func (a *testApp) editScheduledForm(t *testing.T, rel release.Release) (string, url.Values) {
	t.Helper()
	d, err := a.nodes.Node(context.Background(), a.editor, a.site.ID, rel.Items[0].NodeID)
	if err != nil {
		t.Fatal(err)
	}
	cur := a.release(t, rel.ID)
	return "/studio/content/" + d.ID + "/edit-scheduled", url.Values{"rev": {fmt.Sprint(d.Rev)},
		"release_rev": {fmt.Sprint(cur.Rev)}, "title": {d.Body.Title}, "slug": {d.Body.Slug},
		"summary": {d.Body.Summary}, "body": {d.Body.Text + "\nEdited while scheduled."}}
}

func TestConflictPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	r := a.conflictRelease(t)
	page := "/studio/releases/" + r.ID
	c := a.signedIn(t, a.editor)
	token := c.token()
	rev := fmt.Sprint(r.Rev)
	before := a.fingerprint(t)
	runScenarios(t, c, []scenario{
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
	if after := a.fingerprint(t); after != before {
		t.Fatalf("refused resolutions changed state:\n%s\n%s", before, after)
	}

	// Someone who neither made it nor approves releases sees the view only.
	other := a.signedIn(t, a.contributor)
	other.check(t, scenario{Name: "ContributorReadsOnly", URL: page, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="three-way"`}, NotExpectedContent: []string{`data-testid="resolve-form"`}})

	runScenarios(t, c, []scenario{
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
	a := newApp(t)
	rel := a.scheduleAt(t, a.editor, a.draft, "2026-11-02", "09:00")
	editorPage := "/studio/content/" + a.draft.ID
	c := a.signedIn(t, a.editor)
	token := c.token()
	u, form := a.editScheduledForm(t, rel)
	form.Set("csrf_token", token)
	noTitle := url.Values{}
	for k, v := range form {
		noTitle[k] = v
	}
	noTitle.Set("title", "")
	var before string
	runScenarios(t, c, []scenario{
		{Name: "Locked", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Locked: publishes on 2 November 2026, 09:00.", `data-testid="unschedule-and-edit"`,
				`data-testid="edit-scheduled-open"`, "Edit and re-approve", "<fieldset disabled>"}},
		{Name: "Open", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`action="/studio/content/` + a.draft.ID + `/edit-scheduled"`, "Save and re-approve", "records your approval again"},
			NotExpectedContent: []string{"<fieldset disabled>", `<select id="node-status"`}},
	})
	before = a.fingerprint(t)
	c.check(t, scenario{Name: "NoTitle", Method: "POST", URL: u, Form: noTitle, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-title"`, "Save and re-approve", "Edited while scheduled."}})
	if after := a.fingerprint(t); after != before {
		t.Fatalf("a refused edit changed state:\n%s\n%s", before, after)
	}
	runScenarios(t, c, []scenario{
		{Name: "Save", Method: "POST", URL: u, Form: form, ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": editorPage}},
		{Name: "Saved", URL: editorPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Saved and pinned. Your approval is recorded again.", "Edited while scheduled.", "<fieldset disabled>"}},
	})
	if got := a.release(t, rel.ID); got.State != release.StateScheduled || got.Approval == nil || got.Hash == rel.Hash {
		t.Fatalf("release %s approval %+v", got.State, got.Approval)
	}

	// A contributor's own waiting release: the edit is sent for approval.
	n := a.otherDraft(t)
	mine := a.scheduleAt(t, a.contributor, n, "2026-11-02", "10:00")
	cc := a.signedIn(t, a.contributor)
	u, form = a.editScheduledForm(t, mine)
	form.Set("csrf_token", cc.token())
	runScenarios(t, cc, []scenario{
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
	if got := a.release(t, mine.ID); got.State != release.StateAwaitingApproval {
		t.Fatalf("contributor's release %s, want waiting", got.State)
	}
}
