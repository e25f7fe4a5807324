package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/policy"
)

// CreateSession writes a new session row and drops the account's rows
// not seen since before, in one transaction.
func (s *Store) CreateSession(ctx context.Context, x identity.Session, before time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_sessions WHERE user_id = ? AND seen_at < ?`, x.UserID, instant(before)); err != nil {
			return fmt.Errorf("store: create session: %w", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO user_sessions (id, user_id, epoch, browser, os, created_at, seen_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, x.ID, x.UserID, x.Epoch, x.Browser, x.OS, instant(x.Created), instant(x.Seen))
		if err != nil {
			return fmt.Errorf("store: create session: %w", err)
		}
		return nil
	})
}

const sessionColumns = `x.id, x.user_id, x.epoch, x.browser, x.os, x.created_at, x.seen_at, x.ended_at IS NOT NULL`

func scanSession(row interface{ Scan(...any) error }, extra ...any) (identity.Session, error) {
	var x identity.Session
	var created, seen string
	if err := row.Scan(append([]any{&x.ID, &x.UserID, &x.Epoch, &x.Browser, &x.OS, &created, &seen, &x.Ended}, extra...)...); err != nil {
		return x, notFound(err)
	}
	var err error
	if x.Created, err = mustInstant(created); err == nil {
		x.Seen, err = mustInstant(seen)
	}
	return x, err
}

// SessionOf reads the account and its session sid in one statement.
func (s *Store) SessionOf(ctx context.Context, userID, sid string) (engine.User, identity.Session, error) {
	var u engine.User
	var role string
	x, err := scanSession(s.read.QueryRowContext(ctx, `SELECT `+sessionColumns+`, `+accountColumns+`, u.session_epoch
		FROM user_sessions x JOIN users u ON u.id = x.user_id WHERE x.id = ? AND x.user_id = ?`, sid, userID),
		&u.ID, &u.Email, &u.Name, &role, &u.Lang, &u.SessionEpoch)
	u.Role = policy.Role(role)
	return u, x, err
}

// TouchSession sets the session's seen_at.
func (s *Store) TouchSession(ctx context.Context, sid string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE user_sessions SET seen_at = ? WHERE id = ?`, instant(at), sid); err != nil {
		return fmt.Errorf("store: touch session: %w", err)
	}
	return nil
}

// Sessions lists the account's sessions not ended, at epoch, seen since
// since, the last seen first.
func (s *Store) Sessions(ctx context.Context, userID string, epoch int64, since time.Time) ([]identity.Session, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+sessionColumns+` FROM user_sessions x
		WHERE x.user_id = ? AND x.epoch = ? AND x.ended_at IS NULL AND x.seen_at >= ? ORDER BY x.seen_at DESC, x.id`,
		userID, epoch, instant(since))
	if err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	defer rows.Close()
	var out []identity.Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: sessions: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// EndSession ends the account's session sid, with its audit row, in one
// transaction; ErrNotFound when it has no such session not ended.
func (s *Store) EndSession(ctx context.Context, userID, sid string, at time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE user_sessions SET ended_at = ? WHERE id = ? AND user_id = ? AND ended_at IS NULL`,
			instant(at), sid, userID))
		if err != nil {
			return fmt.Errorf("store: end session: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return audit(ctx, tx, a)
	})
}

// SetSessionEpoch moves the account's session sid to epoch.
func (s *Store) SetSessionEpoch(ctx context.Context, userID, sid string, epoch int64) error {
	ok, err := one(s.write.ExecContext(ctx, `UPDATE user_sessions SET epoch = ? WHERE id = ? AND user_id = ? AND ended_at IS NULL`,
		epoch, sid, userID))
	if err != nil {
		return fmt.Errorf("store: session epoch: %w", err)
	}
	if !ok {
		return engine.ErrNotFound
	}
	return nil
}
