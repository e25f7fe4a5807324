package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The address checks (on save, approval and run) read by index: working
// copies on nodes_address, versions on node_versions_slug, and no scan of
// nodes or node_versions.
func TestAddressQueryPlans(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"holders", addressHoldersQuery, []any{"site_x", "contentEntry", "welcome", "ent_x"},
			[]string{"nodes_address", "node_versions_slug"}},
		{"clash", addressClashQuery, []any{"site_x", `[{"id":"ent_x","kind":"contentEntry","rev":2}]`, `["ent_x"]`},
			[]string{"SEARCH h USING INDEX node_versions_slug", "SEARCH n USING INDEX sqlite_autoindex_nodes_1"}},
	} {
		plan := queryPlan(t, s, c.query, c.args...)
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: plan does not use %s:\n%s", c.name, w, plan)
			}
		}
		for _, line := range strings.Split(plan, "\n") {
			if strings.HasPrefix(line, "SCAN n") || strings.HasPrefix(line, "SCAN v") || line == "SCAN h" || strings.HasPrefix(line, "SCAN h ") ||
				strings.Contains(line, "SCAN nodes") || strings.Contains(line, "SCAN node_versions") {
				t.Errorf("%s: plan scans a table: %q\n%s", c.name, line, plan)
			}
		}
	}
}
