package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/policy"
)

// CreateUser inserts an account.
func (s *Store) CreateUser(ctx context.Context, u engine.User, passwordHash string, now time.Time) error {
	if err := createUser(ctx, s.write, u, passwordHash, now); err != nil {
		return fmt.Errorf("store: create user: %w", err)
	}
	return nil
}

func createUser(ctx context.Context, db execer, u engine.User, passwordHash string, now time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO users (id, email, name, role, password_hash, lang, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, u.ID, u.Email, u.Name, string(u.Role), passwordHash, u.Lang, instant(now))
	return err
}

const userColumns = `id, email, name, role, lang`

func scanUser(row interface{ Scan(...any) error }, extra ...any) (engine.User, error) {
	var u engine.User
	var role string
	err := row.Scan(append([]any{&u.ID, &u.Email, &u.Name, &role, &u.Lang}, extra...)...)
	u.Role = policy.Role(role)
	return u, notFound(err)
}

// UserByEmail returns the account with email (any case) and its password hash.
func (s *Store) UserByEmail(ctx context.Context, email string) (engine.User, string, error) {
	var hash string
	u, err := scanUser(s.read.QueryRowContext(ctx,
		`SELECT `+userColumns+`, password_hash FROM users WHERE email = ?`, email), &hash)
	return u, hash, err
}

// UserByID returns the account with id.
func (s *Store) UserByID(ctx context.Context, id string) (engine.User, error) {
	return scanUser(s.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// SetUserLang remembers a person's language.
func (s *Store) SetUserLang(ctx context.Context, id, lang string) error {
	ok, err := one(s.write.ExecContext(ctx, `UPDATE users SET lang = ? WHERE id = ?`, lang, id))
	if err == nil && !ok {
		return engine.ErrNotFound
	}
	return err
}

// AppendAudit writes one audit row on its own (a failed sign-in).
func (s *Store) AppendAudit(ctx context.Context, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return audit(ctx, tx, a) })
}
