// Package calendarfixture fills a Studio database with the load of the
// calendar's performance bar (issue 5): 10,000 releases over a year and 50
// automations. Benchmarks of the engine and of the pages share it.
package calendarfixture

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/localtime"
)

// Seed writes releases releases into site, timed over the year from now,
// and 50 automations with mixed rules (10 hourly, 20 daily, 20 weekly),
// plus a few hundred gates. Releases are written straight into the tables
// in one transaction: the engine's limit of 200 open releases a site (§6.1
// step 7) would refuse this many, and the calendar only reads them. One in
// twenty awaits approval with a waiting request; one in twenty-five has two
// items, one of them also in the next release (an overlap).
func Seed(ctx context.Context, db *sql.DB, eng *engine.Engine, autos *automations.Automations, site engine.Site, editor engine.User, now time.Time, releases int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var failed error
	exec := func(q string, args ...any) {
		if failed != nil {
			return
		}
		if _, err := tx.Exec(q, args...); err != nil {
			failed = err
		}
	}
	ins := func(t time.Time) string { return localtime.FormatInstant(t) }
	by := fmt.Sprintf(`{"kind":"person","id":%q,"name":%q}`, editor.ID, editor.Name)
	approval := fmt.Sprintf(`{"kind":"person","by":{"kind":"person","id":%q,"name":%q},"at":%q}`, editor.ID, editor.Name, ins(now))
	step := 365 * 24 * time.Hour / time.Duration(releases)
	node := func(id, kind, title string, gate string) {
		body := fmt.Sprintf(`{"title":%q,"slug":%q,"status":"draft"%s}`, title, id, gate)
		exec(`INSERT INTO nodes (id, site_id, kind, body, rev, hash, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)`,
			id, site.ID, kind, body, "sha256-"+id, ins(now))
		exec(`INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at) VALUES (?, 1, ?, ?, ?, ?)`,
			id, "sha256-"+id, body, editor.ID, ins(now))
	}
	item := func(rel, nodeID, kind string) {
		exec(`INSERT INTO release_items (release_id, site_id, node_id, op, node_kind, target_rev, target_hash, deps, held)
			VALUES (?, ?, ?, 'set', ?, 1, ?, '[]', 1)`, rel, site.ID, nodeID, kind, "sha256-"+nodeID)
	}
	for i := range releases {
		at := now.Add(time.Hour + time.Duration(i)*step).Truncate(time.Minute)
		rel, nodeID := fmt.Sprintf("rel_bench%06d", i), fmt.Sprintf("ent_bench%06d", i)
		kind := "contentEntry"
		if i%3 == 0 {
			kind = "page"
		}
		gate := ""
		if i%40 == 0 { // an embargo a day before its release, an expiry a week after
			gate = fmt.Sprintf(`,"availability":{"from":%q,"until":%q}`,
				at.Add(-24*time.Hour).Format(time.RFC3339), at.Add(7*24*time.Hour).Format(time.RFC3339))
		}
		node(nodeID, kind, fmt.Sprintf("Article %d", i), gate)
		state, appr := "scheduled", any(approval)
		if i%20 == 7 {
			state, appr = "awaiting_approval", nil
		}
		exec(`INSERT INTO releases (id, site_id, title, state, hash, when_kind, execute_at, time_zone, approval, created_by,
			rev, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'at', ?, ?, ?, ?, 1, ?, ?)`,
			rel, site.ID, fmt.Sprintf("Article %d", i), state, hashOf(rel), ins(at), site.TimeZone, appr, by, ins(now), ins(now))
		item(rel, nodeID, kind)
		if i%25 == 3 && i+1 < releases { // a second item, shared with the next release
			item(rel, fmt.Sprintf("ent_bench%06d", i+1), "contentEntry")
		}
		if state == "awaiting_approval" {
			exec(`INSERT INTO approvals (id, site_id, release_id, state_hash, args_hash, execute_at, requested_by, status, created_at)
				VALUES (?, ?, ?, ?, 'args', ?, ?, 'waiting', ?)`, "apr_"+rel, site.ID, rel, hashOf(rel), ins(at), by, ins(now))
			exec(`UPDATE releases SET request_id = ? WHERE id = ?`, "apr_"+rel, rel)
		}
	}
	if failed != nil {
		tx.Rollback()
		return failed
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	rules := []struct {
		n          int
		name, rule string
	}{
		{10, "Hourly check", "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=7"},
		{20, "Daily review", "FREQ=DAILY;BYHOUR=6;BYMINUTE=30"},
		{20, "Weekly sweep", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0"},
	}
	for _, r := range rules {
		for i := range r.n {
			if _, err := autos.CreateAutomation(ctx, editor, site.ID, fmt.Sprintf("%s %d", r.name, i),
				"builtin:broken-links", r.rule, "2026-11-01T00:00"); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashOf is a release hash of rl1's shape for a release the fixture made:
// the calendar only reads it, and the API's answers carry it (§4.2).
func hashOf(releaseID string) string {
	return fmt.Sprintf("rl1:%x", sha256.Sum256([]byte(releaseID)))
}
