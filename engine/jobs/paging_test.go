package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"studio/engine/content"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// TestBrokenLinksPagesAndCap: a sweep of 450 articles spans several steps of
// at most MaxNodesPerStep; a run records at most MaxFindings findings and
// counts on; and a capped run marks nothing gone, since what it did not
// record it still saw.
func TestBrokenLinksPagesAndCap(t *testing.T) {
	b := setup(t)
	for i := range 450 { // 225 of them with a broken link
		text := "Nothing."
		if i%2 == 0 {
			text = fmt.Sprintf("[old](/posts/removed-%d)", i)
		}
		b.node(t, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Article %d", i),
			Slug: fmt.Sprintf("article-%d", i), Status: content.StatusPublished, Text: text})
	}
	b.publish(t)
	run1 := b.run(automation.BuiltinBrokenLinks, "run_1", jobs.Config{})
	s := b.sweep(t, run1)
	// three pages of nodes (200, 200, 50), then the 404 paths
	if s.steps != 4 || s.last.Counts[jobs.CountNodesScanned] != 450 || s.last.Counts[jobs.CountBrokenLinks] != 225 ||
		s.last.Findings != jobs.MaxFindings {
		t.Fatalf("steps %d, counts %v, findings %d", s.steps, s.last.Counts, s.last.Findings)
	}
	if n := b.Count(t, `SELECT count(*) FROM job_findings`); n != jobs.MaxFindings {
		t.Errorf("%d findings stored", n)
	}

	// Fix 50 of the broken links: the next run sees 175 broken and records
	// them all (steps record in node id order, so which 200 run 1 kept is
	// the ids' draw): those run 1 recorded are still there, the rest new,
	// and the fixed ones run 1 recorded are gone now that nothing was
	// dropped.
	ctx := context.Background()
	for i := 0; i < 100; i += 2 {
		d := b.Node(t, b.ids[fmt.Sprintf("article-%d", i)])
		body := d.Body
		body.Text = "Fixed."
		if _, err := b.Nodes.SaveNode(ctx, b.Owner, b.Site.ID, d.ID, d.Rev, body); err != nil {
			t.Fatal(err)
		}
	}
	b.publish(t)
	run2 := b.run(automation.BuiltinBrokenLinks, "run_2", jobs.Config{})
	s = b.sweep(t, run2)
	rf := b.findings(t, run2, false)
	if s.last.Counts[jobs.CountBrokenLinks] != 175 || len(rf.New)+len(rf.Still) != 175 ||
		len(rf.Still)+len(rf.Fixed) != jobs.MaxFindings || len(rf.New) > 25 {
		t.Errorf("run 2: counts %v, new %d, still %d, fixed %d", s.last.Counts, len(rf.New), len(rf.Still), len(rf.Fixed))
	}
}

// TestSiteCountsNotFound: through the router as cmd/studio builds it, an
// unmatched public path is counted, Studio's and the API's are not, and a
// visitor's request leaves nothing of the visitor.
func TestSiteCountsNotFound(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	r := chi.NewRouter()
	r.Get("/posts/{slug}", b.site.Entry)
	r.Get("/{slug}", b.site.Page)
	r.NotFound(b.site.NotFound)
	for _, p := range []string{"/blog/2019/old-post/", "/blog//2019/old-post?ref=x", "/studio/nothing", "/api/v1/nope", "/posts/live-b"} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.RemoteAddr = "203.0.113.9:4444"
		r.ServeHTTP(w, req)
		if want := map[bool]int{true: 200, false: 404}[p == "/posts/live-b"]; w.Code != want {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	if err := b.site.FlushNotFound(context.Background()); err != nil { // written a few seconds later, together
		t.Fatal(err)
	}
	top, err := b.jobs.TopNotFound(context.Background(), b.Site.ID, b.Clock.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(top) != "[{/blog/2019/old-post 2}]" {
		t.Errorf("top 404s: %v", top)
	}
	if n := b.Count(t, `SELECT count(*) FROM site_not_found WHERE path LIKE '%203.0.113%'`); n != 0 {
		t.Error("an address was kept")
	}
}
