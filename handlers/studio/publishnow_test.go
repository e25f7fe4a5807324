package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// elevenThirty is 11:30 in Istanbul on 2 November: more than an hour after
// a 09:00 or 10:00 release, so the scheduler's first tick misses them.
var elevenThirty = time.Date(2026, 11, 2, 8, 30, 0, 0, time.UTC)

func TestPublishNowPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.Clock.Set(elevenThirty)
	if rep := tick(a, t); rep.Ran != 1 || rep.Published != 0 {
		t.Fatalf("tick at 11:30: %+v, want the release missed", rep)
	}
	missed := a.Release(t, rel.ID)
	if missed.State != release.StateMissed {
		t.Fatalf("release is %s, want missed", missed.State)
	}
	page := "/studio/releases/" + rel.ID
	rev := strconv.FormatInt(missed.Rev, 10)

	public := a.Client(t, "")
	public.Check(t, apptest.Scenario{Name: "NotLiveBefore", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound})

	contributor := a.SignedIn(t, a.Contributor)
	apptest.RunScenarios(t, contributor, []apptest.Scenario{
		{Name: "ContributorSeesNoButton", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-state="missed">Missed</span>`},
			NotExpectedContent: []string{`data-testid="publish-now-open"`, `id="publish-now-dialog"`, "Publish now"}},
		{Name: "ContributorCannotPost", Method: "POST", URL: page + "/publish-now",
			Form:           url.Values{"csrf_token": {contributor.Token()}, "rev": {rev}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"Your role does not allow this."}},
	})

	editor := a.SignedIn(t, a.Editor)
	token := editor.Token()
	before := a.Fingerprint(t)
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "EditorSeesTheButton", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-state="missed">Missed</span>`, `data-testid="publish-now-open"`, "Publish now…",
				`href="/studio/releases/` + rel.ID + `?confirm=publish-now#publish-now-dialog"`, `data-dialog="publish-now-dialog"`,
				`<dialog id="publish-now-dialog" class="confirm" aria-labelledby="publish-now-title">`,
				"Publish “Election night live” now?", "The scheduler missed its time, so nothing was published.",
				`action="/studio/releases/` + rel.ID + `/publish-now"`, `name="rev" value="` + rev + `"`,
				`<input type="checkbox" name="confirm" value="yes" required`, `data-testid="publish-now-submit">Publish now</button>`,
				"dialog.js"}},
		// Without JavaScript the link loads the confirm step: the dialog comes open.
		{Name: "ConfirmStepWithoutJavaScript", URL: page + "?confirm=publish-now", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`aria-labelledby="publish-now-title" open>`}},
		{Name: "UntickedBoxIsRefused", Method: "POST", URL: page + "/publish-now",
			Form:           url.Values{"csrf_token": {token}, "rev": {rev}},
			ExpectedStatus: http.StatusUnprocessableEntity,
			ExpectedContent: []string{`data-testid="error-confirm">Tick the box to confirm.</p>`,
				`aria-labelledby="publish-now-title" open>`}},
		{Name: "StaleRevIsRefused", Method: "POST", URL: page + "/publish-now",
			Form:            url.Values{"csrf_token": {token}, "rev": {strconv.FormatInt(missed.Rev-1, 10)}, "confirm": {"yes"}},
			ExpectedStatus:  http.StatusConflict,
			ExpectedContent: []string{`data-testid="alert">This changed somewhere else meanwhile.`, `data-state="missed"`}},
	})
	if after := a.Fingerprint(t); after != before {
		t.Fatalf("refused Publish now changed state:\nbefore %s\nafter  %s", before, after)
	}

	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "Publish", Method: "POST", URL: page + "/publish-now",
			Form:           url.Values{"csrf_token": {token}, "rev": {rev}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": page}},
		{Name: "ShowsItPublished", URL: page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<p class="notice">Published. The pinned versions are live now.</p>`,
				`data-state="published">Published</span>`,
				"Published on 2 November 2026, 11:30 by Elif Editor, with Publish now.",
				"Elif Editor published it now"},
			NotExpectedContent: []string{`data-testid="publish-now-open"`}},
	})
	editor.Check(t, apptest.Scenario{Name: "NotTwice", Method: "POST", URL: page + "/publish-now",
		Form:            url.Values{"csrf_token": {token}, "rev": {strconv.FormatInt(a.Release(t, rel.ID).Rev, 10)}, "confirm": {"yes"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"This release can no longer be changed this way."}})
	public.Check(t, apptest.Scenario{Name: "LiveAfter", URL: "/posts/election-night", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Election night live", "Follow the results here."}})
	// History says a person published it at once: a release has no Run now.
	editor.Check(t, apptest.Scenario{Name: "HistorySaysPublishedNow", URL: "/studio/schedules/history", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Published at once by a person"}, NotExpectedContent: []string{"Run now"}})
}

// In Turkish: an expired request approved by publishing it now, then a
// missed release whose article went live as a draft meanwhile: a conflict.
func TestPublishNowPageTurkish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.New(t)
	missedRel := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	press := a.CreateNode(t, release.KindPage, content.Body{Title: "Basın", Slug: "press", Lang: "tr",
		Status: content.StatusDraft, Text: "Bize yazın."})
	expiredRel := a.ScheduleAt(t, a.Contributor, press, "2026-11-02", "10:00")
	a.Clock.Set(elevenThirty)
	tick(a, t)
	if s := a.Release(t, expiredRel.ID).State; s != release.StateExpired {
		t.Fatalf("request is %s, want expired", s)
	}
	a.SetLang(t, a.Editor, "tr")
	editor := a.SignedIn(t, a.Editor)
	token := editor.Token()

	expiredPage := "/studio/releases/" + expiredRel.ID
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "ExpiredOffersPublishNow", URL: expiredPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, `data-state="expired">Süresi doldu</span>`, "Şimdi yayımla…",
				"“Basın” şimdi yayımlansın mı?", "Zamanında kimse onaylamadı.",
				"Öğeleri kontrol ettim: tam olarak bu sürümler şimdi yayımlansın.", ">Şimdi yayımla</button>", ">Vazgeç</a>"},
			NotExpectedContent: []string{"Publish now"}},
		{Name: "UntickedBox", Method: "POST", URL: expiredPage + "/publish-now",
			Form:            url.Values{"csrf_token": {token}, "rev": {strconv.FormatInt(a.Release(t, expiredRel.ID).Rev, 10)}},
			ExpectedStatus:  http.StatusUnprocessableEntity,
			ExpectedContent: []string{"Onaylamak için kutuyu işaretleyin."}},
		{Name: "ApproveAndPublishNow", Method: "POST", URL: expiredPage + "/publish-now",
			Form:           url.Values{"csrf_token": {token}, "rev": {strconv.FormatInt(a.Release(t, expiredRel.ID).Rev, 10)}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusSeeOther},
		{Name: "Published", URL: expiredPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Yayımlandı. Sabitlenmiş sürümler artık yayında.", `data-state="published">Yayımlandı</span>`,
				"Elif Editor “Şimdi yayımla” ile yayımladı: 2 Kasım 2026 11:30.", "Elif Editor şimdi yayımladı"}},
	})
	a.Client(t, "").Check(t, apptest.Scenario{Name: "PressIsLive", URL: "/press", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Bize yazın."}})

	// An ordinary publish after the miss leaves the article's draft out of
	// the live snapshot (it was never live), so the release's base still
	// matches and publishing it now works.
	a.CreateNode(t, release.KindPage, content.Body{Title: "İletişim", Slug: "contact", Status: content.StatusPublished})
	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	missedPage := "/studio/releases/" + missedRel.ID
	apptest.RunScenarios(t, editor, []apptest.Scenario{
		{Name: "MissedOffersPublishNow", URL: missedPage, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-state="missed">Kaçırıldı</span>`, "Zamanlayıcı yayım zamanını kaçırdı"}},
		{Name: "PublishNowAfterAnOrdinaryPublish", Method: "POST", URL: missedPage + "/publish-now",
			Form:           url.Values{"csrf_token": {token}, "rev": {strconv.FormatInt(a.Release(t, missedRel.ID).Rev, 10)}, "confirm": {"yes"}},
			ExpectedStatus: http.StatusSeeOther},
	})
	a.Client(t, "").Check(t, apptest.Scenario{Name: "ArticleLive", URL: "/posts/election-night", ExpectedStatus: http.StatusOK})
}
