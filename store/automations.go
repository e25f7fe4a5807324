package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/release"
)

// CreateAutomation inserts an automation and its audit row in one
// transaction.
func (s *Store) CreateAutomation(ctx context.Context, a automations.Automation, entry engine.AuditEntry) error {
	createdBy, err := jsonText(a.CreatedBy)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO automations (id, site_id, name, job, rule, start_local, time_zone, state,
			created_by, origin, rev, created_at, updated_at) VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.SiteID, a.Name, a.Job, a.Rule, a.StartLocal, a.TimeZone, a.State, createdBy, a.Origin, a.Rev,
			instant(a.CreatedAt), instant(a.UpdatedAt))
		if err != nil {
			return fmt.Errorf("store: insert automation: %w", err)
		}
		return audit(ctx, tx, entry)
	})
}

// Automations lists a site's automations, oldest first: one statement on
// automations_site.
func (s *Store) Automations(ctx context.Context, siteID string) ([]automations.Automation, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, site_id, name, job, COALESCE(rule, ''), start_local, time_zone, state,
		created_by, origin, rev, created_at, updated_at FROM automations WHERE site_id = ? ORDER BY created_at, id`, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: automations: %w", err)
	}
	defer rows.Close()
	var out []automations.Automation
	creators := map[string]release.Actor{} // a site has few creators: each is decoded once
	for rows.Next() {
		var a automations.Automation
		var createdBy, created, updated string
		if err := rows.Scan(&a.ID, &a.SiteID, &a.Name, &a.Job, &a.Rule, &a.StartLocal, &a.TimeZone, &a.State,
			&createdBy, &a.Origin, &a.Rev, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: automations: %w", err)
		}
		actor, ok := creators[createdBy]
		if !ok {
			if err := json.Unmarshal([]byte(createdBy), &actor); err != nil {
				return nil, fmt.Errorf("store: automation %s creator: %w", a.ID, err)
			}
			creators[createdBy] = actor
		}
		a.CreatedBy = actor
		if a.CreatedAt, err = mustInstant(created); err != nil {
			return nil, err
		}
		if a.UpdatedAt, err = mustInstant(updated); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
