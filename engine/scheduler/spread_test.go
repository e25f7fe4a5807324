package scheduler

import (
	"fmt"
	"testing"

	"studio/engine"
)

// TestSpreadKeepsEachSiteInOrder: a tick's rows, spread by a scheduler's
// salt, keep each site's rows in their order and each site's rows
// together; two schedulers start on different sites (for these salts).
func TestSpreadKeepsEachSiteInOrder(t *testing.T) {
	rows := func() []engine.ReleaseRow {
		var out []engine.ReleaseRow
		for i := range 30 {
			r := engine.ReleaseRow{}
			r.SiteID, r.ID = fmt.Sprint("site_", i%5), fmt.Sprintf("rel_%02d", i)
			out = append(out, r)
		}
		return out
	}
	first := map[string]bool{}
	for salt := range byte(8) {
		s := &Scheduler{salt: [8]byte{salt}}
		got := s.spread(rows())
		last, done := map[string]string{}, map[string]bool{}
		for i, r := range got {
			if r.ID <= last[r.SiteID] {
				t.Fatalf("salt %d: %s after %s on %s", salt, r.ID, last[r.SiteID], r.SiteID)
			}
			if done[r.SiteID] {
				t.Fatalf("salt %d: %s's rows are not together", salt, r.SiteID)
			}
			if i > 0 && got[i-1].SiteID != r.SiteID {
				done[got[i-1].SiteID] = true
			}
			last[r.SiteID] = r.ID
		}
		first[got[0].SiteID] = true
	}
	if len(first) < 2 {
		t.Errorf("eight salts all start on %v", first)
	}
}
