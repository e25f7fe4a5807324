package studio_test

import (
	"net/http"
	"net/url"
	"testing"

	"studio/handlers/internal/apptest"
)

func TestApprovalPages(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	id := a.PendingRequest(t)
	page := "/studio/approvals/" + id

	contributor := a.SignedIn(t, a.Contributor)
	apptest.RunScenarios(t, contributor, []apptest.Scenario{
		{Name: "ListedForTheRequester", URL: "/studio/approvals", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Press", "Chris Contributor asked for approval"}},
		{Name: "OwnRequestHasNoButtons", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="own-request"`, "Approving schedules exactly these versions"},
			NotExpectedContent: []string{`data-testid="approve"`, `data-testid="deny"`}},
	})

	editor := a.SignedIn(t, a.Editor)
	token := editor.Token()
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "ReviewShowsTheDiff", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Press", "Not live yet", "Pinned version 2", "Monday 2 November 2026",
				"11:00 Istanbul", `<span class="ins">`, "Contact us.", "Published", `data-testid="approve"`}},
		{Name: "DenyWithoutAReason", Method: "POST", URL: page + "/deny", Form: url.Values{"csrf_token": {token}, "reason": {" "}},
			ExpectedStatus:  http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="error-reason">Say why, in one or two sentences`}},
		{Name: "Approve", Method: "POST", URL: page + "/approve", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther},
		{Name: "ApproveAgain", Method: "POST", URL: page + "/approve", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"This request has already been decided"}},
		{Name: "NothingWaits", URL: "/studio/approvals", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Nothing is waiting for approval."}},
		{Name: "AgendaShowsItScheduled", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Press", `data-state="scheduled"`}},
	})

	// Denying, in Turkish.
	id2 := a.PendingRequest2(t)
	a.SetLang(t, a.Editor, "tr")
	tr := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, tr, []apptest.Scenario{
		{Name: "TurkishReview", URL: "/studio/approvals/" + id2, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Onay isteği", "Henüz yayında değil", "Sabitlenmiş sürüm", "Onayla", "Reddet"}},
		{Name: "TurkishDeny", Method: "POST", URL: "/studio/approvals/" + id2 + "/deny",
			Form: url.Values{"csrf_token": {tr.Token()}, "reason": {"Sonuçlar henüz kesin değil."}}, ExpectedStatus: http.StatusSeeOther},
		{Name: "TurkishEmpty", URL: "/studio/approvals", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Onay bekleyen bir şey yok.", "Reddedildi. Yayın paketi yeniden taslağa döndü."}},
	})
}
