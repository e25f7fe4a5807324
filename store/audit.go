package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"studio/engine"
	"studio/engine/nodes"
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

// SiteAudit reads a site's audit rows in f, newest first.
func (s *Store) SiteAudit(ctx context.Context, f nodes.AuditFilter) ([]nodes.AuditRow, error) {
	where, args := []string{"site_id = ?"}, []any{f.SiteID}
	if len(f.Include) > 0 {
		where = append(where, "("+strings.Repeat("action LIKE ? OR ", len(f.Include)-1)+"action LIKE ?)")
		for _, p := range f.Include {
			args = append(args, p)
		}
	}
	for _, p := range f.Exclude {
		where, args = append(where, "action NOT LIKE ?"), append(args, p)
	}
	if f.ActorKind != "" {
		where, args = append(where, "json_extract(actor, '$.kind') = ?"), append(args, f.ActorKind)
	}
	if f.ReleaseID != "" {
		where, args = append(where, "release_id = ?"), append(args, f.ReleaseID)
	}
	if f.BeforeID > 0 {
		where, args = append(where, "id < ?"), append(args, f.BeforeID)
	}
	args = append(args, f.Limit)
	rows, err := s.read.QueryContext(ctx, `SELECT id, at, action, actor, COALESCE(release_id, ''), COALESCE(run_id, ''), details
		FROM audit WHERE `+strings.Join(where, " AND ")+` ORDER BY id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: site audit: %w", err)
	}
	defer rows.Close()
	var out []nodes.AuditRow
	for rows.Next() {
		r := nodes.AuditRow{AuditEntry: engine.AuditEntry{SiteID: f.SiteID}}
		var at, actor string
		var details sql.NullString
		if err := rows.Scan(&r.ID, &at, &r.Action, &actor, &r.ReleaseID, &r.RunID, &details); err != nil {
			return nil, fmt.Errorf("store: site audit: %w", err)
		}
		if err := json.Unmarshal([]byte(actor), &r.Actor); err != nil {
			return nil, fmt.Errorf("store: audit actor: %w", err)
		}
		if err := fromJSON(details, &r.Details); err != nil {
			return nil, err
		}
		if r.At, err = mustInstant(at); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
