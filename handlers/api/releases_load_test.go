package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/handlers/internal/apptest"
	"studio/internal/calendarfixture"
)

// TestReleasesListAtScale is issue 14's `GET …/releases` row: a site with
// 10,000 releases is listed a page at a time (§12's list_releases: limit
// ≤ 200, cursor, nextCursor), next to a site with 400. Always: every
// release comes once, pages stay at the limit, and what a page weighs and
// allocates does not grow with the site (≤ 1.5×), nor does the server's
// heap after the whole walk. The time a page is printed, never asserted
// (make bench shows it).
func TestReleasesListAtScale(t *testing.T) {
	const limit = 200
	type walk struct {
		releases, pages, maxBytes int
		allocPerPage              float64
		perPage                   time.Duration
		heapGrowth                int64
	}
	measure := func(n int) walk {
		a := apptest.New(t)
		if err := calendarfixture.Seed(context.Background(), a.Store.DB(), a.Engine, automations.New(a.Store, a.Engine), a.Site, a.Editor, a.Clock.Now(), n); err != nil {
			t.Fatal(err)
		}
		token := a.TokenFor(t, a.Editor)
		get := func(cursor string) (int, []string, string) {
			req, err := http.NewRequest(http.MethodGet, a.URL+"/api/sites/"+a.Site.ID+"/releases?limit=200&cursor="+cursor, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("page after %q: %d %v", cursor, res.StatusCode, err)
			}
			var page struct {
				Releases []struct {
					ID string `json:"id"`
				} `json:"releases"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(page.Releases))
			for i, r := range page.Releases {
				ids[i] = r.ID
			}
			return len(body), ids, page.NextCursor
		}
		get("") // warm the connection and the caches
		heap := func() int64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return int64(m.HeapInuse)
		}
		before := heap()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		w := walk{}
		seen := map[string]bool{}
		var took []time.Duration
		for cursor := ""; ; {
			begin := time.Now()
			size, ids, next := get(cursor)
			took = append(took, time.Since(begin))
			w.pages++
			w.maxBytes = max(w.maxBytes, size)
			if len(ids) > limit {
				t.Fatalf("a page of %d releases, limit %d", len(ids), limit)
			}
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("release %s listed twice", id)
				}
				seen[id] = true
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		runtime.ReadMemStats(&m1)
		w.heapGrowth = heap() - before
		w.releases = len(seen)
		w.allocPerPage = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(w.pages)
		slices.Sort(took)
		w.perPage = took[len(took)/2]
		return w
	}
	n := 10000
	if apptest.RaceDetector { // about ten times slower: the shape is the same at 2,000
		n = 2000
	}
	small, big := measure(400), measure(n)
	if small.releases < 400 || big.releases < n {
		t.Fatalf("listed %d and %d releases, want every one of 400 and %d", small.releases, big.releases, n)
	}
	bytes := float64(big.maxBytes) / float64(small.maxBytes)
	alloc := big.allocPerPage / small.allocPerPage
	t.Logf("GET …/releases, limit %d: 400 releases in %d pages, largest %d B, %.0f B allocated a page, median %v a page",
		limit, small.pages, small.maxBytes, small.allocPerPage, small.perPage)
	t.Logf("GET …/releases, limit %d: %d releases in %d pages, largest %d B, %.0f B allocated a page, median %v a page, heap after the walk %+d KB",
		limit, n, big.pages, big.maxBytes, big.allocPerPage, big.perPage, big.heapGrowth>>10)
	t.Logf("%d ÷ 400: page bytes %.2f×, allocation a page %.2f×, time a page %.2f×", n, bytes, alloc,
		float64(big.perPage)/float64(small.perPage))
	if bytes > 1.5 || alloc > 1.5 {
		t.Errorf("a page grows with the site: bytes %.2f×, allocation %.2f× (want ≤ 1.5×)", bytes, alloc)
	}
	if big.heapGrowth > 8<<20 {
		t.Errorf("the heap grew %d KB over the walk, want it flat", big.heapGrowth>>10)
	}
}
