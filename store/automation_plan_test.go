package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDueWorkQueryPlan: the idle tick's one statement reads the
// automations by automations_due (never a scan of the table, however many
// are configured), the system jobs by their key, and the releases as
// DueReleases does.
func TestDueWorkQueryPlan(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := queryPlan(t, s, dueWorkSQL, "+3600 seconds", "2026-11-02T06:00:00.000Z", "2026-11-02T06:00:00.000Z",
		"2026-11-02T05:00:00.000Z", "site_M", 51, "site_M")
	t.Log(plan)
	if !strings.Contains(plan, "SEARCH au USING INDEX automations_due") {
		t.Errorf("the automations are not read by automations_due:\n%s", plan)
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "SCAN au") || strings.Contains(line, "SCAN releases") {
			t.Errorf("a scan of the automations: %q", line)
		}
	}
}
