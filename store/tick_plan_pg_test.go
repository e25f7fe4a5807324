package store_test

import (
	"context"
	"strings"
	"testing"

	"studio/store"
	"studio/store/storetest"
)

// TestTickPlansOnPostgres: on PostgreSQL, where the INDEXED BY hints of the
// SQLite statements are dropped, the tick's one read (DueWork) and the
// status's 7-day lateness read by index whatever the history holds. With
// 20,000 releases done, their runs and 5,000 automations, neither scans
// releases, schedule_runs or automations; without releases_due,
// schedule_runs_created and automations_due each would (checked). SQLite's
// plans have tests of their own. Always on PostgreSQL.
func TestTickPlansOnPostgres(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		`INSERT INTO sites (id, name, rev, hash, created_at, updated_at)
			SELECT 'site_' || g, 'S', 1, 'h', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM generate_series(1, 20) g`,
		// Ten months of history: published releases and their runs.
		`INSERT INTO releases (id, site_id, state, hash, execute_at, created_by, rev, created_at, updated_at)
			SELECT 'rel_' || g, 'site_' || (g % 20 + 1), 'published', 'h',
			  to_char(timestamp '2026-01-01' + g * interval '20 minutes', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
			  '{}', 2, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
			FROM generate_series(1, 20000) g`,
		`INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state, attempt, started_at, ended_at, rev, created_at, updated_at)
			SELECT 'run_' || id, site_id, 'release', id, execute_at, 'succeeded', 1, execute_at, execute_at, 1, execute_at, execute_at
			FROM releases`,
		// What is coming: a few scheduled, one running.
		`INSERT INTO releases (id, site_id, state, hash, execute_at, lease_until, created_by, rev, created_at, updated_at)
			SELECT 'rel_next_' || g, 'site_' || g, CASE WHEN g = 1 THEN 'running' ELSE 'scheduled' END, 'h',
			  '2026-11-02T06:00:00.000Z', CASE WHEN g = 1 THEN '2026-11-02T06:00:45.000Z' END,
			  '{}', 1, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'
			FROM generate_series(1, 5) g`,
		// Automations by the thousand, most of them ended.
		`INSERT INTO automations (id, site_id, name, job, start_local, time_zone, state, created_by, origin, rev, created_at, updated_at, due_at)
			SELECT 'aut_' || g, 'site_' || (g % 20 + 1), 'A', 'builtin:broken-links', '2026-01-01T07:00', 'Europe/Istanbul',
			  CASE WHEN g % 10 = 0 THEN 'active' ELSE 'ended' END, '{}', 'person', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
			  CASE WHEN g % 10 = 0 THEN to_char(timestamp '2026-11-03' + g * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
			FROM generate_series(1, 5000) g`,
		`ANALYZE`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, query string
		args        []any
	}{
		{"DueWork", store.DueWorkQuery, []any{"+3600 seconds", "2026-11-02T06:01:00.000Z", "2026-11-02T06:01:00.000Z",
			"2026-11-02T05:01:00.000Z", "site_7", 51, "site_7"}},
		{"PublishLateness, an operator", store.PublishLatenessQuery, []any{"2026-10-26T06:00:00.000Z", ""}},
		{"PublishLateness, a person", store.PublishLatenessQuery, []any{"2026-10-26T06:00:00.000Z", "usr_x"}},
	} {
		plan := explain(t, s, c.query, c.args...)
		for _, table := range []string{"releases", "schedule_runs", "automations"} {
			if strings.Contains(plan, "Seq Scan on "+table) {
				t.Errorf("%s scans %s:\n%s", c.name, table, plan)
			}
		}
	}
}

// explain is PostgreSQL's plan of query, one line per node.
func explain(t *testing.T, s *store.Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(), "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
