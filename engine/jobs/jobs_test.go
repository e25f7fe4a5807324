package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/handlers/site"
	"studio/store/storetest"
)

// testBundle is the engine fixture with the job bodies on it, rendering
// through a real public site handler over the same store.
type testBundle struct {
	*enginetest.Bundle
	jobs *jobs.Jobs
	site *site.Handler
	ids  map[string]string // fixture node ids by slug
}

// The public site's handler is the Renderer cmd/studio wires.
var _ jobs.Renderer = (*site.Handler)(nil)

// lazyRenderer lets the handler and the jobs refer to each other.
type lazyRenderer struct{ h **site.Handler }

func (l lazyRenderer) Render(ctx context.Context, siteID, path string, at time.Time) (int, []byte, error) {
	return (*l.h).Render(ctx, siteID, path, at)
}

func setup(t testing.TB) *testBundle {
	t.Helper()
	b := &testBundle{Bundle: enginetest.New(t), ids: map[string]string{}}
	b.ids["election-night"] = b.Article.ID // the fixture's own draft
	b.jobs = jobs.New(b.Eng, b.Store, lazyRenderer{&b.site})
	b.site = site.New(b.Eng, public.New(b.Releases, b.Nodes, b.Store), nil, site.Options{NotFounds: b.jobs})
	return b
}

func (b *testBundle) node(t testing.TB, kind release.NodeKind, body content.Body) content.Node {
	t.Helper()
	ctx := context.Background()
	var n content.Node
	var err error
	if kind == release.KindAsset {
		n, err = b.Nodes.CreateAsset(ctx, b.Owner, b.Site.ID, body)
	} else {
		n, err = b.Nodes.CreateNode(ctx, b.Owner, b.Site.ID, kind, body)
	}
	if err != nil {
		t.Fatalf("create %s: %v", body.Slug, err)
	}
	b.ids[body.Slug] = n.ID
	return n
}

func (b *testBundle) publish(t testing.TB) {
	t.Helper()
	if _, err := b.Nodes.Publish(context.Background(), b.Owner, b.Site.ID); err != nil {
		t.Fatal(err)
	}
}

func at(t time.Time) *time.Time { return &t }

var png = enginetest.TinyPNG

// fixture builds a site whose findings are known in advance (see each
// test): two hundred and some nodes would hide nothing, so a few suffice
// and MaxNodesPerStep is exercised by the benchmark and the paging test.
func (b *testBundle) fixture(t testing.TB) {
	t.Helper()
	now := b.Clock.Now()
	pub := content.StatusPublished
	b.node(t, release.KindAsset, content.Body{Title: "Photo", Slug: "photo.png", Status: pub, Mime: "image/png", Data: png, Alt: "A photo"})
	b.node(t, release.KindAsset, content.Body{Title: "Unused", Slug: "unused.png", Status: pub, Mime: "image/png", Data: png, Alt: "Unused"})
	b.node(t, release.KindContentEntry, content.Body{Title: "Live B", Slug: "live-b", Status: pub, Text: "Plain."})
	b.node(t, release.KindContentEntry, content.Body{Title: "Embargoed", Slug: "embargoed", Status: pub, Text: "Soon.",
		Availability: &content.Availability{From: at(now.Add(48 * time.Hour))}})
	b.node(t, release.KindContentEntry, content.Body{Title: "Live A", Slug: "live-a", Status: pub,
		Text: "See [B](/posts/live-b), [nowhere](/posts/nowhere?x=1), ![p](/media/photo.png), ![m](/media/missing.png), " +
			"[soon](/posts/embargoed), [out](https://example.com/x), [studio](/studio/x) and [old](/legacy/old).",
		Refs: []string{b.ids["photo.png"], "ast_gone"}})
	b.node(t, release.KindPage, content.Body{Title: "About", Slug: "about", Status: pub, Text: "Moved: [us](/about-us)."})
	b.node(t, release.KindContentEntry, content.Body{Title: "Old draft", Slug: "old-draft", Status: content.StatusDraft, Text: "Later."})
	b.publish(t)
}

// steps runs a job to its end as the runner does: Step with the stored
// cursor until Done. It returns the last step and how many there were.
func (b *testBundle) steps(t testing.TB, run jobs.Run) (jobs.Step, int) {
	t.Helper()
	cur := ""
	for i := 1; i <= 1000; i++ {
		st, err := b.jobs.Step(context.Background(), run, cur)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if st.Done {
			return st, i
		}
		cur = st.Cursor
	}
	t.Fatal("the job never ended")
	return jobs.Step{}, 0
}

func (b *testBundle) run(job automation.Builtin, id string, cfg jobs.Config) jobs.Run {
	return jobs.Run{ID: id, AutomationID: "aut_" + string(job), SiteID: b.Site.ID, Job: job, Config: cfg,
		OccurrenceAt: b.Clock.Now(), Now: b.Clock.Now()}
}

// summary is a finding as a test names it: code, node slug, field, target.
func (b *testBundle) summary(fs []jobs.Finding) []string {
	slugs := map[string]string{}
	for s, id := range b.ids {
		slugs[id] = s
	}
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s %s", f.Code, slugs[f.NodeID], f.Field, f.Target))
	}
	sort.Strings(out)
	return out
}

func (b *testBundle) findings(t testing.TB, run jobs.Run, hidden bool) jobs.RunFindings {
	t.Helper()
	rf, err := b.jobs.RunFindings(context.Background(), run.AutomationID, run.ID, hidden)
	if err != nil {
		t.Fatal(err)
	}
	return rf
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestBrokenLinks(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	cfg := jobs.Config{Exclude: []string{"/legacy/*"}}
	run1 := b.run(automation.BuiltinBrokenLinks, "run_1", cfg)
	st, _ := b.steps(t, run1)
	want := []string{
		"broken-internal-link live-a body /posts/nowhere?x=1",
		"broken-media-reference live-a body /media/missing.png",
		"link-to-gated-content live-a body /posts/embargoed",
		"broken-media-reference live-a refs ast_gone",
		"broken-internal-link about body /about-us",
	}
	rf := b.findings(t, run1, false)
	same(t, "run 1 new", b.summary(rf.New), want)
	if len(rf.Still)+len(rf.Fixed) != 0 || st.Findings != 5 {
		t.Errorf("run 1: still %d, fixed %d, findings %d", len(rf.Still), len(rf.Fixed), st.Findings)
	}
	if st.Counts[jobs.CountBrokenLinks] != 5 || st.Counts[jobs.CountExcluded] != 1 || st.Counts[jobs.CountNodesScanned] != 3 {
		t.Errorf("run 1 counts: %v", st.Counts)
	}

	// Two days later the embargo has passed: that link is fixed, the rest
	// still there; one is marked "Not a problem".
	b.Clock.Advance(49 * time.Hour)
	run2 := b.run(automation.BuiltinBrokenLinks, "run_2", cfg)
	b.steps(t, run2)
	rf = b.findings(t, run2, false)
	same(t, "run 2 still", b.summary(rf.Still), slices.DeleteFunc(slices.Clone(want), func(s string) bool {
		return s == "link-to-gated-content live-a body /posts/embargoed"
	}))
	same(t, "run 2 fixed", b.summary(rf.Fixed), []string{"link-to-gated-content live-a body /posts/embargoed"})
	if len(rf.New) != 0 {
		t.Errorf("run 2 new: %q", b.summary(rf.New))
	}
	about := rf.Still[slices.IndexFunc(rf.Still, func(f jobs.Finding) bool { return f.Target == "/about-us" })]
	if err := b.jobs.Dismiss(context.Background(), b.Contributor, b.Site.ID, run2.AutomationID, about.Key); err == nil {
		t.Error("a contributor dismissed a finding")
	}
	if err := b.jobs.Dismiss(context.Background(), b.Editor, b.Site.ID, run2.AutomationID, about.Key); err != nil {
		t.Fatal(err)
	}
	run3 := b.run(automation.BuiltinBrokenLinks, "run_3", cfg)
	b.steps(t, run3)
	rf = b.findings(t, run3, false)
	if rf.Hidden != 1 || len(rf.Still) != 3 {
		t.Errorf("run 3: hidden %d, still %q", rf.Hidden, b.summary(rf.Still))
	}
	if all := b.findings(t, run3, true); len(all.Still) != 4 {
		t.Errorf("run 3 with hidden: %q", b.summary(all.Still))
	}
}

// TestBrokenLinksStepRunAgain: a step killed after its write and run again
// from the same cursor (the runner had not stored the new one) records
// nothing twice and reaches the same counts.
func TestBrokenLinksStepRunAgain(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	run := b.run(automation.BuiltinBrokenLinks, "run_1", jobs.Config{})
	ctx := context.Background()
	first, err := b.jobs.Step(ctx, run, "")
	if err != nil {
		t.Fatal(err)
	}
	rows := b.Count(t, `SELECT count(*) FROM job_findings`)
	runRows := b.Count(t, `SELECT count(*) FROM job_finding_runs`)
	again, err := b.jobs.Step(ctx, run, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.Cursor != first.Cursor || again.Findings != first.Findings || fmt.Sprint(again.Counts) != fmt.Sprint(first.Counts) {
		t.Errorf("again: %+v, first %+v", again, first)
	}
	if r, rr := b.Count(t, `SELECT count(*) FROM job_findings`), b.Count(t, `SELECT count(*) FROM job_finding_runs`); r != rows || rr != runRows || rows != 6 {
		t.Errorf("rows %d→%d, run rows %d→%d", rows, r, runRows, rr)
	}
}

// TestNotFoundPaths: the public site counts its 404s per normalised path
// and day, nothing else, and broken-links reports the week's top ones.
func TestNotFoundPaths(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	r := chi.NewRouter()
	r.Get("/posts/{slug}", b.site.Entry)
	r.Get("/{slug}", b.site.Page)
	for _, p := range []string{"/posts/gone?utm=1", "/posts/gone#top", "/posts/gone", "/wp-login.php", "/posts/live-b", "/posts/embargoed"} {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.Header.Set("Cookie", "session=secret")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
	}
	if n := b.Count(t, `SELECT count(*) FROM site_not_found`); n != 0 {
		t.Errorf("%d 404 paths written at once, want them kept for one write a few seconds later", n)
	}
	if err := b.site.FlushNotFound(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	rows, err := b.Store.DB().Query(`SELECT path, hits FROM site_not_found`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		var n int
		rows.Scan(&p, &n)
		got[p] = n
	}
	rows.Close()
	if fmt.Sprint(got) != "map[/posts/embargoed:1 /posts/gone:3 /wp-login.php:1]" {
		t.Errorf("404 counts: %v", got)
	}
	columns := `SELECT group_concat(name) FROM pragma_table_info('site_not_found')`
	if storetest.OnPostgres() {
		columns = `SELECT group_concat(column_name::text) FROM (SELECT column_name FROM information_schema.columns
			WHERE table_name = 'site_not_found' ORDER BY ordinal_position) c`
	}
	cols := b.Text(t, columns)
	if cols != "site_id,day,path,hits" {
		t.Errorf("site_not_found keeps %s", cols)
	}
	run := b.run(automation.BuiltinBrokenLinks, "run_1", jobs.Config{Exclude: []string{"/wp-*"}})
	b.steps(t, run)
	var paths []string
	for _, f := range b.findings(t, run, false).New {
		if f.Code == jobs.CodeNotFoundPath {
			paths = append(paths, fmt.Sprintf("%s %d", f.Target, f.Hits))
		}
	}
	same(t, "404 findings", paths, []string{"/posts/gone 3", "/posts/embargoed 1"})

	// Two days on, the embargo has lifted: the page readers asked for too
	// early is live, and no longer a broken link (issue 39).
	b.Clock.Advance(49 * time.Hour)
	later := b.run(automation.BuiltinBrokenLinks, "run_2", jobs.Config{Exclude: []string{"/wp-*"}})
	b.steps(t, later)
	rf := b.findings(t, later, false)
	paths = nil
	for _, f := range append(rf.New, rf.Still...) {
		if f.Code == jobs.CodeNotFoundPath {
			paths = append(paths, f.Target)
		}
	}
	same(t, "404 findings once the embargo lifted", paths, []string{"/posts/gone"})

	// The day's table stops growing at its cap; known paths still count.
	ctx := context.Background()
	var hits []jobs.NotFoundHits
	for i := range 5 {
		hits = append(hits, jobs.NotFoundHits{SiteID: b.Site.ID, Day: "2026-11-03", Path: fmt.Sprintf("/p%d", i), Hits: 1})
	}
	if err := b.Store.CountNotFound(ctx, hits, 3); err != nil {
		t.Fatal(err)
	}
	b.Store.CountNotFound(ctx, hits[:1], 3)
	if n := b.Count(t, `SELECT count(*) FROM site_not_found WHERE day = '2026-11-03'`); n != 3 {
		t.Errorf("%d paths on a day capped at 3", n)
	}
	if n := b.Count(t, `SELECT hits FROM site_not_found WHERE day = '2026-11-03' AND path = '/p0'`); n != 2 {
		t.Errorf("/p0 counted %d", n)
	}
}

func TestNormalizePath(t *testing.T) {
	long := "/ş"
	for range 150 {
		long += "ş"
	}
	for in, want := range map[string]string{
		"/posts/x?y=1#z": "/posts/x", "//posts///x/": "/posts/x", "/": "/", "/Posts/X": "/Posts/X", "": "/",
	} {
		if got := jobs.NormalizePath(in); got != want {
			t.Errorf("NormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := jobs.NormalizePath(long); len(got) > jobs.MaxPathBytes || len(got) < jobs.MaxPathBytes-1 {
		t.Errorf("a long path kept %d bytes", len(got))
	}
}

func TestStaleContent(t *testing.T) {
	b := setup(t)
	b.fixture(t) // saved at Start
	b.Clock.Advance(400 * 24 * time.Hour)
	b.node(t, release.KindContentEntry, content.Body{Title: "Fresh", Slug: "fresh", Status: content.StatusPublished, Text: "New."})
	b.publish(t)
	run := b.run(automation.BuiltinStaleContent, "run_1", jobs.Config{})
	st, _ := b.steps(t, run)
	// live-a and live-b are old and shown; embargoed is shown by now too
	// (its from passed); fresh is new; the draft is not live.
	rf := b.findings(t, run, false)
	var got []string
	for _, f := range rf.New {
		got = append(got, b.summary([]jobs.Finding{f})[0][:len("stale-entry ")]+b.slug(f.NodeID))
	}
	same(t, "stale", got, []string{"stale-entry embargoed", "stale-entry live-a", "stale-entry live-b"})
	if st.Counts[jobs.CountStaleEntries] != 3 || st.Counts[jobs.CountEntriesScanned] != 4 {
		t.Errorf("counts %v", st.Counts)
	}
	run2 := b.run(automation.BuiltinStaleContent, "run_2", jobs.Config{StaleAfterDays: 500})
	if st, _ := b.steps(t, run2); st.Counts[jobs.CountStaleEntries] != 0 || len(b.findings(t, run2, false).Fixed) != 3 {
		t.Errorf("500 days: %v", st.Counts)
	}
}

func (b *testBundle) slug(id string) string {
	for s, i := range b.ids {
		if i == id {
			return s
		}
	}
	return id
}

func TestCleanup(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	b.Clock.Advance(91 * 24 * time.Hour)
	run := b.run(automation.BuiltinCleanup, "run_1", jobs.Config{})
	st, _ := b.steps(t, run)
	same(t, "cleanup", b.summary(b.findings(t, run, false).New), []string{
		"stale-draft old-draft updatedAt " + enginetest.Start.Format(time.RFC3339),
		"stale-draft election-night updatedAt " + enginetest.Start.Format(time.RFC3339),
		"unused-asset unused.png refs /media/unused.png",
	})
	if st.Counts[jobs.CountStaleDrafts] != 2 || st.Counts[jobs.CountUnusedAssets] != 1 {
		t.Errorf("counts %v", st.Counts)
	}
	if n := b.Count(t, `SELECT count(*) FROM nodes WHERE deleted_at IS NOT NULL`); n != 0 {
		t.Errorf("cleanup deleted %d nodes", n)
	}
}

// TestBrokenMenuTargets: Studio has no menu editor yet, so the menu is
// written through the store as a future editor would: its references and
// its links are checked like an article's, under the menu's own code.
func TestBrokenMenuTargets(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	body := content.Body{Title: "Main", Slug: "main", Status: content.StatusPublished,
		Text: "[About](/about) [Contact](/contact)", Refs: []string{b.ids["about"], b.ids["old-draft"]}}
	menu := content.Node{ID: "mnu_main", SiteID: b.Site.ID, Kind: release.KindMenu, Body: body, Hash: content.Hash(body)}
	if err := b.Store.SaveNode(context.Background(), menu, 0, b.Owner.Actor(), b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	b.ids["main"] = menu.ID
	b.publish(t)
	run := b.run(automation.BuiltinBrokenLinks, "run_1", jobs.Config{})
	b.steps(t, run)
	var menus []string
	for _, s := range b.summary(b.findings(t, run, false).New) {
		if strings.HasPrefix(s, jobs.CodeBrokenMenuTarget) {
			menus = append(menus, s)
		}
	}
	same(t, "menu", menus, []string{"broken-menu-target main body /contact", "broken-menu-target main refs " + b.ids["old-draft"]})
}

func TestExclude(t *testing.T) {
	pats := []string{"/legacy/*", "*.pdf", "/exact"}
	for target, want := range map[string]bool{
		"/legacy/old": true, "/legacy/a/b?x=1": true, "/legacyx": false, "/files/a.pdf": true,
		"/exact": true, "/exact?utm=1": true, "/exact/more": false, "/legacy//x": true, "//legacy/x": false, "/other": false,
	} {
		if got := jobs.Excluded(pats, target); got != want {
			t.Errorf("Excluded(%q) = %v", target, got)
		}
	}
	if got, err := jobs.CleanExclude([]string{" /a/* ", "", "/a/*", "/b"}); err != nil || !slices.Equal(got, []string{"/a/*", "/b"}) {
		t.Errorf("CleanExclude: %q, %v", got, err)
	}
	for _, bad := range [][]string{{"legacy/*"}, {"/a\nb"}, {"/" + strings.Repeat("a", 300)}} {
		if _, err := jobs.CleanExclude(bad); err == nil || !strings.Contains(err.Error(), jobs.CodeExcludeInvalid) {
			t.Errorf("CleanExclude(%q): %v", bad, err)
		}
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprintf("/p%d", i)
	}
	if _, err := jobs.CleanExclude(many); err == nil || !strings.Contains(err.Error(), jobs.CodeExcludeTooMany) {
		t.Errorf("51 patterns: %v", err)
	}
}

// TestRunHistoryStays: a run's page keeps what it showed after a finding
// went and came back in later runs.
func TestRunHistoryStays(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	ctx := context.Background()
	about := b.Node(t, b.ids["about"])
	edit := func(text string) {
		t.Helper()
		d := b.Node(t, about.ID)
		body := d.Body
		body.Text = text
		if _, err := b.Nodes.SaveNode(ctx, b.Owner, b.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
		b.publish(t)
	}
	runs := []jobs.Run{}
	for i, text := range []string{"", "Fixed.", "Moved: [us](/about-us)."} {
		if text != "" {
			edit(text)
		}
		run := b.run(automation.BuiltinBrokenLinks, fmt.Sprintf("run_%d", i+1), jobs.Config{})
		b.steps(t, run)
		runs = append(runs, run)
	}
	has := func(fs []jobs.Finding) bool {
		return slices.ContainsFunc(fs, func(f jobs.Finding) bool { return f.Target == "/about-us" })
	}
	r1, r2, r3 := b.findings(t, runs[0], false), b.findings(t, runs[1], false), b.findings(t, runs[2], false)
	if !has(r1.New) || !has(r2.Fixed) || !has(r3.New) || has(r2.New) || has(r2.Still) {
		t.Errorf("run 1 new %v, run 2 fixed %v, run 3 new %v", has(r1.New), has(r2.Fixed), has(r3.New))
	}
}
