package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A release's run reads the site and its items' live refs by key
// (LiveRefs): the snapshot_refs rows of those nodes by primary key, the
// site and the snapshot by id, whatever the size of the site.
func TestLiveRefsQueryPlan(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := queryPlan(t, s, liveRefsQuery, "site_x", `["ent_a","pag_b"]`)
	for _, w := range []string{"SEARCH x USING PRIMARY KEY (site_id=? AND node_id=?", "SEARCH sites USING INDEX sqlite_autoindex_sites_1 (id=?)",
		"SEARCH s USING INDEX sqlite_autoindex_snapshots_1 (id=?)"} {
		if !strings.Contains(plan, w) {
			t.Errorf("plan does not %s:\n%s", w, plan)
		}
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "SCAN x") || strings.Contains(line, "SCAN snapshot") || strings.Contains(line, "SCAN sites") {
			t.Errorf("plan scans a table: %q\n%s", line, plan)
		}
	}
}

// The 7-day lateness (GET /api/scheduler) reads the window's runs on their
// creation index and each run's release by key: not every run kept.
func TestPublishLatenessQueryPlan(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := queryPlan(t, s, publishLatenessQuery, "2026-12-01T00:00:00Z", "")
	for _, w := range []string{"SEARCH r USING INDEX schedule_runs_created (created_at>?)", "SEARCH x USING INDEX sqlite_autoindex_releases_1 (id=?)"} {
		if !strings.Contains(plan, w) {
			t.Errorf("plan does not %s:\n%s", w, plan)
		}
	}
}
