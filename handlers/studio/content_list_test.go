package studio_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
	"studio/locales"
)

var nodeRowRe = regexp.MustCompile(`<tr data-testid="node-([^"]+)"`)

// The content list is paged, searched and filtered with the URL as its
// state (issue 15): 50 a page with links that keep the filters; a search
// folds case and Turkish letters (istanbul finds İstanbul, cagri finds
// Çağrı) across title, slug and text; kind, status and language filter;
// an unknown filter value is no filter; the list shows each node's
// language and when it was last edited.
func TestContentListPagesSearchesAndFilters(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	titles := map[string]string{a.Page.ID: "About", a.Live.ID: "Welcome to the Gazette", a.Draft.ID: "Election night live"}
	for i := range 117 {
		a.Clock.Advance(time.Minute) // each one edited after the one before
		lang := "en"
		if i%3 == 0 {
			lang = "tr"
		}
		title := fmt.Sprintf("Report %03d", i)
		n := a.CreateNode(t, release.KindContentEntry, content.Body{Title: title, Slug: fmt.Sprintf("report-%03d", i), Lang: lang,
			Status: content.StatusDraft, Text: "Numbers."})
		titles[n.ID] = title
	}
	special := map[string]content.Body{
		"title": {Title: "İstanbul'da sonbahar", Slug: "sonbahar", Lang: "tr", Status: content.StatusDraft, Text: "Yapraklar."},
		"slug":  {Title: "Kuş sesleri", Slug: "cagri-merkezi", Lang: "tr", Status: content.StatusDraft, Text: "Bekleyin."},
		"text":  {Title: "Night bus", Slug: "night-bus", Lang: "en", Status: content.StatusDraft, Text: "Ask the ÇAĞRI desk."},
	}
	ids := map[string]string{}
	for _, k := range []string{"title", "slug", "text"} {
		a.Clock.Advance(time.Minute)
		n := a.CreateNode(t, release.KindContentEntry, special[k])
		ids[k], titles[n.ID] = n.ID, special[k].Title
	}
	c := a.SignedIn(t, a.Editor)
	rows := func(path string) (apptest.Response, []string) {
		t.Helper()
		res := c.Get(path)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.Status)
		}
		var got []string
		for _, m := range nodeRowRe.FindAllStringSubmatch(res.Body, -1) {
			got = append(got, m[1])
		}
		return res, got
	}

	t.Log("three pages of 50, newest edit first, each node once")
	var all []string
	path := "/studio/content"
	for page := 1; path != ""; page++ {
		res, got := rows(path)
		if want := min(50, len(titles)-len(all)); len(got) != want {
			t.Fatalf("page %d has %d rows, want %d", page, len(got), want)
		}
		all = append(all, got...)
		next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(res.Body)
		path = ""
		if next != nil {
			path = html.UnescapeString(next[1])
		}
		if page > 3 {
			t.Fatal("more than three pages")
		}
	}
	if len(all) != len(titles) || all[0] != ids["text"] {
		t.Fatalf("%d rows over the pages, first %s; want %d, the last edited first", len(all), all[0], len(titles))
	}
	unique := slices.Clone(all)
	slices.Sort(unique)
	if len(slices.Compact(unique)) != len(titles) {
		t.Fatal("a node shows on two pages")
	}

	t.Log("search folds case and Turkish letters, in title, slug and text")
	for search, want := range map[string][]string{
		"istanbul": {ids["title"]}, "İSTANBUL": {ids["title"]}, "cagri": {ids["text"], ids["slug"]}, "Çağrı": {ids["text"], ids["slug"]},
		"no such words": nil,
	} {
		if _, got := rows("/studio/content?q=" + url.QueryEscape(search)); !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", search, got, want)
		}
	}
	for search, want := range map[string]int{"report 1": 17, "report 10": 10, "REPORT-11": 7, "numbers": 117} {
		if _, got := rows("/studio/content?q=" + url.QueryEscape(search)); len(got) != min(want, 50) {
			t.Errorf("search %q: %d rows, want %d (Report 100–116 in title and slug, and the text)", search, len(got), want)
		}
	}

	t.Log("filters, and the pager keeps them")
	res, got := rows("/studio/content?lang=tr&kind=contentEntry&status=draft")
	if len(got) != 41 { // 39 reports in Turkish, and two of the three special ones
		t.Fatalf("Turkish draft articles: %d rows, want 41", len(got))
	}
	for _, id := range got {
		if !strings.Contains(res.Body, `data-testid="lang-`+id+`">`+locales.For("en").T("lang.tr")) {
			t.Fatalf("row %s in the Turkish filter is not shown as Turkish", id)
		}
	}
	if _, got := rows("/studio/content?kind=page"); !slices.Equal(got, []string{a.Page.ID}) {
		t.Fatalf("pages: %v, want only About", got)
	}
	if _, got := rows("/studio/content?status=published"); len(got) != 2 {
		t.Fatalf("published: %v, want About and Welcome", got)
	}
	res, got = rows("/studio/content?lang=en&sort=title")
	if len(got) != 50 || got[0] != a.Page.ID || !strings.Contains(res.Body, `href="/studio/content?lang=en&amp;page=2&amp;sort=title" rel="next"`) {
		t.Fatalf("English by title: first %v, pager\n%s", got[:1], apptest.Excerpt(res.Body))
	}
	if _, got := rows("/studio/content?kind=emperor&status=x&lang=de&sort=y&page=-4"); len(got) != 50 || got[0] != ids["text"] {
		t.Fatal("unknown filter values filtered something")
	}
	res, _ = rows("/studio/content?q=no+such+words")
	if !strings.Contains(res.Body, locales.For("en").T("content.none_match")) || !strings.Contains(res.Body, `data-testid="clear-filters"`) {
		t.Fatal("an empty search says nothing")
	}
	if !strings.Contains(res.Body, `value="no such words"`) {
		t.Fatal("the search box lost the search")
	}
}

// The content list's author and planning filters: who created a node, and
// whether it is scheduled (held by a release), embargoed (shows from a
// time to come) or expiring (taken down at a time to come).
func TestContentListByAuthorAndPlan(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := t.Context()
	byEditor, err := a.Nodes.CreateNode(ctx, a.Editor, a.Site.ID, release.KindContentEntry,
		content.Body{Title: "Editor's note", Slug: "editors-note", Status: content.StatusDraft, Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	later := apptest.Start.Add(48 * time.Hour)
	embargoed := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Under embargo", Slug: "under-embargo",
		Status: content.StatusPublished, Text: "x", Availability: &content.Availability{From: &later}})
	expiring := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Until Friday", Slug: "until-friday",
		Status: content.StatusPublished, Text: "x", Availability: &content.Availability{Until: &later}})
	past := apptest.Start.Add(-time.Hour)
	a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Long out", Slug: "long-out",
		Status: content.StatusPublished, Text: "x", Availability: &content.Availability{From: &past}})
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")

	c := a.SignedIn(t, a.Editor)
	list := func(query string) []string {
		t.Helper()
		res := c.Get("/studio/content?" + query)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", query, res.Status)
		}
		var got []string
		for _, m := range nodeRowRe.FindAllStringSubmatch(res.Body, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		return got
	}
	want := func(query string, ids ...string) {
		t.Helper()
		slices.Sort(ids)
		if got := list(query); !slices.Equal(got, ids) {
			t.Errorf("%s: %v, want %v", query, got, ids)
		}
	}
	want("author="+a.Editor.ID, byEditor.ID)
	want("timing=scheduled", a.Draft.ID)
	want("timing=embargoed", embargoed.ID)
	want("timing=expiring", expiring.ID)
	want("timing=expiring&author=" + a.Editor.ID)
	if all, odd := list(""), list("timing=someday&author="+strings.Repeat("x", 80)); !slices.Equal(all, odd) {
		t.Errorf("unknown filter values: %d rows, want all %d", len(odd), len(all))
	}
	res := c.Get("/studio/content?timing=embargoed")
	for _, s := range []string{`<option value="` + a.Editor.ID + `">Elif Editor</option>`, `<option value="embargoed" selected>Embargoed</option>`,
		`data-testid="clear-filters"`} {
		if !strings.Contains(res.Body, s) {
			t.Errorf("the filters lack %s", s)
		}
	}
}
