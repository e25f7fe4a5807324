package studio_test

import (
	"net/http"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// TestCalendarSearch: the Schedules page's title search (q) narrows the
// Agenda and the Month grid, folds case and Turkish letters, stays in the
// filters' form and in Clear filters' reach; in English and Turkish.
func TestCalendarSearch(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00") // Election night live
	a.ScheduleAt(t, a.Editor, a.CreateNode(t, release.KindPage,
		content.Body{Title: "Seçim sonuçları", Slug: "secim", Status: content.StatusDraft}), "2026-11-03", "11:00")
	c := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Agenda", URL: "/studio/schedules?q=SECIM", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Seçim sonuçları", `id="cal-q" type="search" name="q" value="SECIM"`,
				`<input type="hidden" name="q" value="SECIM">`, `data-testid="filters-clear"`},
			NotExpectedContent: []string{"Election night live"}},
		{Name: "Month", URL: "/studio/schedules?view=month&date=2026-11&q=night", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Election night live"}, NotExpectedContent: []string{"Seçim sonuçları"}},
		{Name: "ALongSearchIsCut", URL: "/studio/schedules?q=" + strings.Repeat("a", 300), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`value="` + strings.Repeat("a", 100) + `"`}, NotExpectedContent: []string{strings.Repeat("a", 101)}},
	})
	a.SetLang(t, a.Editor, "tr")
	apptest.RunScenarios(t, a.SignedIn(t, a.Editor), []apptest.Scenario{
		{Name: "Turkish", URL: "/studio/schedules?q=se%C3%A7im", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Seçim sonuçları", `placeholder="Başlıklarda ara…"`}, NotExpectedContent: []string{"Election night live"}},
	})
}
