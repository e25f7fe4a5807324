package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"studio/engine"
)

// ReleaseHistory lists the audit rows of one release, oldest first.
func (s *Store) ReleaseHistory(ctx context.Context, releaseID string) ([]engine.AuditEntry, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT at, COALESCE(site_id, ''), action, actor, COALESCE(run_id, ''), details
		FROM audit WHERE release_id = ? ORDER BY at, id`, releaseID)
	if err != nil {
		return nil, fmt.Errorf("store: release history: %w", err)
	}
	defer rows.Close()
	var out []engine.AuditEntry
	for rows.Next() {
		var a engine.AuditEntry
		var at, actor string
		var details sql.NullString
		if err := rows.Scan(&at, &a.SiteID, &a.Action, &actor, &a.RunID, &details); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(actor), &a.Actor); err != nil {
			return nil, fmt.Errorf("store: audit actor: %w", err)
		}
		if err := fromJSON(details, &a.Details); err != nil {
			return nil, err
		}
		if a.At, err = mustInstant(at); err != nil {
			return nil, err
		}
		a.ReleaseID = releaseID
		out = append(out, a)
	}
	return out, rows.Err()
}
