package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
)

// CreateToken stores a token with the hash of its secret.
func (s *Store) CreateToken(ctx context.Context, t engine.Token, hash string) error {
	var scopes any
	if t.Scopes != nil {
		var err error
		if scopes, err = jsonText(t.Scopes); err != nil {
			return err
		}
	}
	_, err := s.write.ExecContext(ctx, `INSERT INTO tokens (id, user_id, name, hash, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Name, hash, instant(t.CreatedAt), scopes)
	if err != nil {
		return fmt.Errorf("store: create token: %w", err)
	}
	return nil
}

// TokenUser returns the unrevoked token with this hash and its person.
func (s *Store) TokenUser(ctx context.Context, hash string) (engine.Token, engine.User, error) {
	var t engine.Token
	var created string
	var used, scopes sql.NullString
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+`, t.id, t.name, t.created_at, t.last_used_at, t.scopes
		FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND t.revoked_at IS NULL`, hash),
		&t.ID, &t.Name, &created, &used, &scopes)
	if err != nil {
		return t, u, err
	}
	if err := fromJSON(scopes, &t.Scopes); err != nil {
		return t, u, err
	}
	t.UserID = u.ID
	if t.CreatedAt, err = mustInstant(created); err != nil {
		return t, u, err
	}
	t.LastUsed, err = parseInstant(used)
	return t, u, err
}

// TouchToken records when a token was last used.
func (s *Store) TouchToken(ctx context.Context, id string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE tokens SET last_used_at = ? WHERE id = ?`, instant(at), id); err != nil {
		return fmt.Errorf("store: touch token: %w", err)
	}
	return nil
}

// Tokens lists a person's unrevoked tokens, newest first.
func (s *Store) Tokens(ctx context.Context, userID string) ([]engine.Token, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, name, created_at, last_used_at, scopes FROM tokens
		WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: tokens: %w", err)
	}
	defer rows.Close()
	var out []engine.Token
	for rows.Next() {
		t := engine.Token{UserID: userID}
		var created string
		var used, scopes sql.NullString
		if err := rows.Scan(&t.ID, &t.Name, &created, &used, &scopes); err != nil {
			return nil, fmt.Errorf("store: tokens: %w", err)
		}
		if err := fromJSON(scopes, &t.Scopes); err != nil {
			return nil, err
		}
		if t.CreatedAt, err = mustInstant(created); err != nil {
			return nil, err
		}
		if t.LastUsed, err = parseInstant(used); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeToken revokes the person's token with its audit row. A token already
// revoked is left as it was; one that is not the person's is ErrNotFound.
func (s *Store) RevokeToken(ctx context.Context, userID, id string, at time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var revoked sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM tokens WHERE id = ? AND user_id = ?`, id, userID).Scan(&revoked)
		if err != nil {
			return notFound(err)
		}
		if revoked.Valid {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tokens SET revoked_at = ? WHERE id = ?`, instant(at), id); err != nil {
			return fmt.Errorf("store: revoke token: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

// CreateDeployToken stores a deploy token with the hash of its secret, and
// its audit row.
func (s *Store) CreateDeployToken(ctx context.Context, t engine.DeployToken, hash string, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO deploy_tokens (id, name, hash, created_at) VALUES (?, ?, ?, ?)`,
			t.ID, t.Name, hash, instant(t.CreatedAt))
		if err != nil {
			return fmt.Errorf("store: create deploy token: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

// DeployToken returns the unrevoked deploy token with this hash.
func (s *Store) DeployToken(ctx context.Context, hash string) (engine.DeployToken, error) {
	var t engine.DeployToken
	var created string
	var used sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT id, name, created_at, last_used_at FROM deploy_tokens
		WHERE hash = ? AND revoked_at IS NULL`, hash).Scan(&t.ID, &t.Name, &created, &used)
	if err != nil {
		return t, notFound(err)
	}
	if t.CreatedAt, err = mustInstant(created); err != nil {
		return t, err
	}
	t.LastUsed, err = parseInstant(used)
	return t, err
}

// TouchDeployToken records when a deploy token was last used.
func (s *Store) TouchDeployToken(ctx context.Context, id string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE deploy_tokens SET last_used_at = ? WHERE id = ?`, instant(at), id); err != nil {
		return fmt.Errorf("store: touch deploy token: %w", err)
	}
	return nil
}

// RevokeDeployToken revokes a deploy token that works at a.At, with its
// audit row; ErrNotFound if none.
func (s *Store) RevokeDeployToken(ctx context.Context, id string, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE deploy_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, instant(a.At), id))
		if err != nil {
			return fmt.Errorf("store: revoke deploy token: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return audit(ctx, tx, a)
	})
}
