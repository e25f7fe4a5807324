package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/agents"
)

const agentKeyColumns = `k.id, k.site_id, k.name, k.owner_id, COALESCE(u.name, ''), k.mode, k.scopes, COALESCE(k.automation_id, ''),
	k.created_at, k.revoked_at, k.last_used_at`

func scanAgentKey(row interface{ Scan(...any) error }, extra ...any) (agents.Key, error) {
	var k agents.Key
	var created string
	var scopes sql.NullString
	var revoked, used sql.NullString
	dest := append([]any{&k.ID, &k.SiteID, &k.Name, &k.OwnerID, &k.OwnerName, &k.Mode, &scopes, &k.AutomationID,
		&created, &revoked, &used}, extra...)
	if err := row.Scan(dest...); err != nil {
		return k, notFound(err)
	}
	if err := fromJSON(scopes, &k.Scopes); err != nil {
		return k, err
	}
	var err error
	if k.CreatedAt, err = mustInstant(created); err != nil {
		return k, err
	}
	if k.RevokedAt, err = parseInstant(revoked); err != nil {
		return k, err
	}
	k.LastUsedAt, err = parseInstant(used)
	return k, err
}

// CreateAgentKey stores an agent key with the hash of its secret and its
// audit row; an automation's previous live key is revoked first.
func (s *Store) CreateAgentKey(ctx context.Context, k agents.Key, hash string, a engine.AuditEntry) error {
	scopes, err := jsonText(k.Scopes)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if k.AutomationID != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE agent_keys SET revoked_at = ? WHERE automation_id = ? AND revoked_at IS NULL`,
				instant(k.CreatedAt), k.AutomationID); err != nil {
				return fmt.Errorf("store: revoke automation key: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO agent_keys (id, site_id, name, owner_id, mode, scopes, hash, automation_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?)`,
			k.ID, k.SiteID, k.Name, k.OwnerID, string(k.Mode), scopes, hash, k.AutomationID, instant(k.CreatedAt)); err != nil {
			return fmt.Errorf("store: create agent key: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

// AgentKey reads one key of a site, revoked or not.
func (s *Store) AgentKey(ctx context.Context, siteID, id string) (agents.Key, error) {
	return scanAgentKey(s.read.QueryRowContext(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys k LEFT JOIN users u ON u.id = k.owner_id
		WHERE k.site_id = ? AND k.id = ?`, siteID, id))
}

// AgentKeyHash reads a live key and the hash of its secret.
func (s *Store) AgentKeyHash(ctx context.Context, id string) (agents.Key, string, error) {
	var hash string
	k, err := scanAgentKey(s.read.QueryRowContext(ctx, `SELECT `+agentKeyColumns+`, k.hash FROM agent_keys k LEFT JOIN users u ON u.id = k.owner_id
		WHERE k.id = ? AND k.revoked_at IS NULL`, id), &hash)
	return k, hash, err
}

// AgentKeys lists a site's keys (ownerID's only, when set), newest first.
func (s *Store) AgentKeys(ctx context.Context, siteID, ownerID string) ([]agents.Key, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys k LEFT JOIN users u ON u.id = k.owner_id
		WHERE k.site_id = ? AND (? = '' OR k.owner_id = ?) ORDER BY k.created_at DESC, k.id`, siteID, ownerID, ownerID)
	if err != nil {
		return nil, fmt.Errorf("store: agent keys: %w", err)
	}
	defer rows.Close()
	var out []agents.Key
	for rows.Next() {
		k, err := scanAgentKey(rows)
		if err != nil {
			return nil, fmt.Errorf("store: agent keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// TouchAgentKey records when a key was last used.
func (s *Store) TouchAgentKey(ctx context.Context, id string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE agent_keys SET last_used_at = ? WHERE id = ?`, instant(at), id); err != nil {
		return fmt.Errorf("store: touch agent key: %w", err)
	}
	return nil
}

// RevokeAgentKey revokes a key with its audit row and, with brk, makes its
// automation broken in the same transaction.
func (s *Store) RevokeAgentKey(ctx context.Context, siteID, id string, at time.Time, a engine.AuditEntry, brk *agents.Break) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE agent_keys SET revoked_at = ? WHERE site_id = ? AND id = ? AND revoked_at IS NULL`,
			instant(at), siteID, id))
		if err != nil {
			return fmt.Errorf("store: revoke agent key: %w", err)
		}
		if !ok {
			return nil // revoked already (or gone): nothing to do
		}
		if err := audit(ctx, tx, a); err != nil {
			return err
		}
		if brk == nil {
			return nil
		}
		config, err := configText(brk.Automation.Config)
		if err != nil {
			return err
		}
		if err := updateAutomation(ctx, tx, brk.Automation, config, nil, brk.FromRev, brk.KillRun); err != nil {
			return err
		}
		return audit(ctx, tx, brk.Audit)
	})
}
