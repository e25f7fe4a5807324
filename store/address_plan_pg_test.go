package store_test

import (
	"context"
	"strings"
	"testing"

	"studio/store"
	"studio/store/storetest"
)

// TestAddressClashPlanOnPostgres: on PostgreSQL the release's address check
// reads each item's version by its key and calls json_each inlined, whatever
// the history holds. It had hashed every version of every site (a scan that
// grew with the database) and run json_each as a query of its own, STRICT
// SQL functions being never inlined (migration 0035). Always on PostgreSQL.
func TestAddressClashPlanOnPostgres(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		`INSERT INTO sites (id, name, rev, hash, created_at, updated_at) VALUES ('site_p', 'P', 1, 'h', '2026-11-02T05:00:00.000Z', '2026-11-02T05:00:00.000Z')`,
		`INSERT INTO nodes (id, site_id, kind, body, rev, hash, updated_at)
			SELECT 'ent_' || g, 'site_p', 'contentEntry', '{"slug":"s-' || g || '","title":"T"}', 1, 'h', '2026-11-02T05:00:00.000Z'
			FROM generate_series(1, 3000) g`,
		`INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at)
			SELECT id, 1, hash, body, '{}', updated_at FROM nodes WHERE site_id = 'site_p'`,
		`ANALYZE`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	text := explain(t, s, store.AddressClashQuery, "site_p", `[{"id":"ent_7","kind":"contentEntry","rev":1}]`, `["ent_7"]`)
	for _, bad := range []string{"Seq Scan on node_versions", "Seq Scan on nodes", "Function Scan on json_each"} {
		if strings.Contains(text, bad) {
			t.Errorf("the address check's plan has %q:\n%s", bad, text)
		}
	}
}
