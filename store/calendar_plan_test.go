package store

import (
	"context"
	"path/filepath"
	"strings"
	"studio/engine/calendar"
	"testing"
	"time"
)

// queryPlan is SQLite's plan of query, one line per step.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n")
}

// The calendar's statements read by index: a site's releases by time on
// releases_site_at (not its state-first releases_site), gates on the
// expression indexes, automation runs on schedule_runs_site_at and the
// skipped runs on schedule_runs_skipped, and never a scan of a whole table.
func TestCalendarQueryPlans(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rq := calendar.CalendarReleaseQuery{SiteID: "site_x", From: from, To: from.AddDate(0, 0, 31)}
	type statement struct {
		name, query string
		args        []any
		want        []string
	}
	var cases []statement
	for _, c := range []struct {
		name string
		q    calendar.CalendarReleaseQuery
		want []string
	}{
		{"releases", rq, []string{"releases_site_at", "approvals_one_waiting", "release_items_node"}},
		{"releases brief", calendar.CalendarReleaseQuery{SiteID: rq.SiteID, From: rq.From, To: rq.To, Brief: true},
			[]string{"releases_site_at"}},
		{"releases after", calendar.CalendarReleaseQuery{SiteID: rq.SiteID, From: rq.From, To: rq.To, AfterAt: from,
			AfterID: "rel_x", Limit: 250}, []string{"releases_site_at (site_id=? AND (execute_at,id)>(?,?)"}},
		{"releases by id", calendar.CalendarReleaseQuery{SiteID: rq.SiteID, From: rq.From, To: rq.To, IDs: []string{"rel_x"}},
			[]string{"SEARCH r USING INDEX sqlite_autoindex_releases_1 (id=?)"}},
	} {
		query, args, err := calendarReleasesSQL(c.q)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, statement{c.name, query, args, c.want})
	}
	cases = append(cases, statement{"gates", calendarGates, []any{"site_x", 1, 2}, []string{"nodes_gate_from", "nodes_gate_until"}})
	cases = append(cases, statement{"runs", calendarRuns, []any{"site_x", instant(rq.From), instant(rq.To)},
		[]string{"schedule_runs_site_at (site_id=? AND occurrence_at>? AND occurrence_at<?)", "schedule_runs_skipped (site_id=? AND ended_at>?)"}})
	for _, c := range cases {
		plan := queryPlan(t, s, c.query, c.args...)
		t.Logf("%s:\n%s", c.name, plan)
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: the plan does not use %s:\n%s", c.name, w, plan)
			}
		}
		for _, line := range strings.Split(plan, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "USING") &&
				!strings.HasPrefix(line, "SCAN json_each") {
				t.Errorf("%s: a full scan: %q", c.name, line)
			}
		}
	}
}

// storedInstant reads exactly what localtime.ParseInstant reads.
func TestStoredInstant(t *testing.T) {
	for _, s := range []string{"2026-11-02T06:00:00.000Z", "2026-02-28T23:59:59.999Z", "2028-02-29T00:00:00.001Z",
		"2026-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-11-02T24:00:00.000Z",
		"2026-11-02T06:00:00Z", "2026-11-02T06:00:00.000+03:00", "2026-1x-02T06:00:00.000Z", ""} {
		got, err := storedInstant(s)
		want, wantErr := mustInstant(s)
		if (err == nil) != (wantErr == nil) || !got.Equal(want) || (err == nil && got.Location() != time.UTC) {
			t.Errorf("%q: %v %v, want %v %v", s, got, err, want, wantErr)
		}
	}
}
