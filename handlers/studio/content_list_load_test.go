package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/handlers/internal/apptest"
	"studio/internal/newsroomfixture"
)

// TestContentListAtScale is issue 15's content list at a newsroom's size:
// its pages (the first, the twentieth, a filter, a search in title, slug
// and text) on a site of 400 articles and on one of 50,000 (2,000 in CI),
// as an Editor, who also sees the count of changes waiting to go live.
// Always: each page shows at most 50 rows and the search finds its article;
// what a page allocates does not grow with the site (≤ 1.5×) but for the
// search, which reads the text of every article. The times are printed
// side by side, never asserted (make bench shows them), with the pending
// count against PendingRefs, which it replaced on these pages.
func TestContentListAtScale(t *testing.T) {
	big := 2000
	if os.Getenv("STUDIO_PERF") == "1" && !apptest.RaceDetector {
		big = 50000
	}
	type result struct {
		took        map[string]time.Duration // median per page
		alloc       map[string]float64       // bytes a request, the server's
		count, refs time.Duration            // PendingCount, PendingRefs
	}
	pages := []struct{ name, query string }{
		{"first page", ""},
		{"page 5", "?page=5"},
		{"filter", "?kind=contentEntry&status=published&lang=tr"},
		{"search", "?q=archive-story-%d"},
	}
	measure := func(n int) result {
		a := apptest.New(t)
		ctx := context.Background()
		if err := newsroomfixture.Seed(ctx, a.Store.DB(), a.Nodes, a.Site, a.Editor, a.Clock.Now(), n); err != nil {
			t.Fatal(err)
		}
		c := a.SignedIn(t, a.Editor)
		res := result{took: map[string]time.Duration{}, alloc: map[string]float64{}}
		for _, p := range pages {
			path := "/studio/content" + p.query
			if strings.Contains(path, "%d") {
				path = fmt.Sprintf(path, n/2)
			}
			c.Get(path) // warm
			var took []time.Duration
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			const rounds = 7
			var body string
			for range rounds {
				begin := time.Now()
				r := c.Get(path)
				took = append(took, time.Since(begin))
				if r.Status != http.StatusOK {
					t.Fatalf("GET %s: %d", path, r.Status)
				}
				body = r.Body
			}
			runtime.ReadMemStats(&m1)
			slices.Sort(took)
			res.took[p.name], res.alloc[p.name] = took[rounds/2], float64(m1.TotalAlloc-m0.TotalAlloc)/rounds
			if rows := strings.Count(body, `<tr data-testid="node-`); rows > 50 || rows == 0 {
				t.Errorf("GET %s on %d articles: %d rows, want 1 to 50", path, n, rows)
			}
			if p.name == "search" && !strings.Contains(body, fmt.Sprintf(">Archive story %d<", n/2)) {
				t.Errorf("the search %s on %d articles misses its article", path, n)
			}
		}
		// Each count after a commit, as after a save: a fresh read.
		timeIt := func(f func() error) time.Duration {
			var took []time.Duration
			for range 5 {
				if err := a.Store.SetUserLang(ctx, a.Editor.ID, "en"); err != nil {
					t.Fatal(err)
				}
				begin := time.Now()
				if err := f(); err != nil {
					t.Fatal(err)
				}
				took = append(took, time.Since(begin))
			}
			slices.Sort(took)
			return took[2]
		}
		res.count = timeIt(func() error { _, err := a.Nodes.PendingCount(ctx, a.Editor, a.Site.ID); return err })
		res.refs = timeIt(func() error { _, _, err := a.Nodes.PendingRefs(ctx, a.Site.ID); return err })
		return res
	}
	small, large := measure(400), measure(big)
	for _, p := range pages {
		ratio := large.alloc[p.name] / small.alloc[p.name]
		t.Logf("content list %-10s: 400 articles %v, %d articles %v (%.1f×); allocated %.0f KB and %.0f KB (%.2f×)",
			p.name, small.took[p.name], big, large.took[p.name], float64(large.took[p.name])/float64(small.took[p.name]),
			small.alloc[p.name]/1024, large.alloc[p.name]/1024, ratio)
		if p.name != "search" && ratio > 1.5 {
			t.Errorf("a %s of the content list allocates %.2f× on %d articles what it does on 400 (want ≤ 1.5×)", p.name, ratio, big)
		}
	}
	t.Logf("changes waiting to go live after a commit: 400 articles PendingCount %v, PendingRefs %v; %d articles PendingCount %v, PendingRefs %v (%.0f× faster)",
		small.count, small.refs, big, large.count, large.refs, float64(large.refs)/float64(large.count))
}
