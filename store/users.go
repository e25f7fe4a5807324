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

// CreateUser inserts an account and, when u.SiteID is set, its membership
// of that site with u.Role.
func (s *Store) CreateUser(ctx context.Context, u engine.User, passwordHash string, now time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error { return createUser(ctx, tx, u, passwordHash, now) })
	if err != nil {
		return fmt.Errorf("store: create user: %w", err)
	}
	return nil
}

func createUser(ctx context.Context, db execer, u engine.User, passwordHash string, now time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO users (id, email, name, password_hash, lang, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, u.ID, u.Email, u.Name, passwordHash, u.Lang, instant(now))
	if err != nil || u.SiteID == "" {
		return err
	}
	return addMember(ctx, db, u.SiteID, u.ID, u.Role, now)
}

// AddMember gives the account userID role on the site siteID.
func (s *Store) AddMember(ctx context.Context, siteID, userID string, role policy.Role, now time.Time) error {
	if err := addMember(ctx, s.write, siteID, userID, role, now); err != nil {
		return fmt.Errorf("store: add member: %w", err)
	}
	return nil
}

func addMember(ctx context.Context, db execer, siteID, userID string, role policy.Role, now time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO memberships (site_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`,
		siteID, userID, string(role), instant(now))
	return err
}

// roleRank orders roles from the highest (policy.Roles' order), for the
// highest role a person holds on any site.
const roleRank = `CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'editor' THEN 2 WHEN 'author' THEN 3 ELSE 4 END`

// highestRole is the subquery of the highest role the account u holds on
// any site, NULL for none.
const highestRole = `(SELECT m.role FROM memberships m WHERE m.user_id = u.id ORDER BY ` + roleRank + ` LIMIT 1)`

// accountColumns read an account of the users table named u, with its
// highest role (an account read without a site).
const accountColumns = `u.id, u.email, u.name, COALESCE(` + highestRole + `, ''), u.lang`

// memberColumns read an account of u on the site of the membership m.
const memberColumns = `u.id, u.email, u.name, m.role, u.lang`

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
	var epoch int64
	u, err := scanUser(s.read.QueryRowContext(ctx,
		`SELECT `+accountColumns+`, u.password_hash, u.session_epoch FROM users u WHERE u.email = ?`, email), &hash, &epoch)
	u.SessionEpoch = epoch
	return u, hash, err
}

// UserByID returns the account with id, with the highest role it holds.
func (s *Store) UserByID(ctx context.Context, id string) (engine.User, error) {
	var epoch int64
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+`, u.session_epoch FROM users u WHERE u.id = ?`, id), &epoch)
	u.SessionEpoch = epoch
	return u, err
}

// SetUserProfile changes an account's name and language, with its audit row.
func (s *Store) SetUserProfile(ctx context.Context, id, name, lang string, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE users SET name = ?, lang = ? WHERE id = ?`, name, lang, id))
		if err != nil {
			return fmt.Errorf("store: set profile: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return audit(ctx, tx, a)
	})
}

// EndSessions ends an account's sessions, and sets its password hash
// when e.Hash is not "", with the audit row, in one transaction: the live
// sessions but e.Keep are marked ended and counted, and the epoch moves
// on, so every session signed in before has ended.
func (s *Store) EndSessions(ctx context.Context, e identity.SessionsEnd) (identity.Ended, error) {
	var out identity.Ended
	err := s.tx(ctx, func(tx *sql.Tx) error {
		n, err := endLiveSessions(ctx, tx, e.UserID, e.Keep, e.At, e.Since)
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, `UPDATE users SET session_epoch = session_epoch + 1,
			password_hash = CASE WHEN ? = '' THEN password_hash ELSE ? END WHERE id = ? RETURNING session_epoch`,
			e.Hash, e.Hash, e.UserID).Scan(&out.Epoch)
		if err != nil {
			return fmt.Errorf("store: end sessions: %w", notFound(err))
		}
		if e.Hash != "" { // a new password: a reset link made before it no longer works
			if _, err := tx.ExecContext(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`,
				instant(e.At), e.UserID); err != nil {
				return fmt.Errorf("store: end sessions: %w", err)
			}
		}
		out.Sessions = n
		return audit(ctx, tx, e.Audit(out))
	})
	return out, err
}

// endLiveSessions marks the account's live sessions (not ended, at its
// epoch now, seen since since) but keep ended at at, and counts them.
func endLiveSessions(ctx context.Context, tx *sql.Tx, userID, keep string, at, since time.Time) (int, error) {
	res, err := tx.ExecContext(ctx, `UPDATE user_sessions SET ended_at = ? WHERE user_id = ? AND id <> ? AND ended_at IS NULL
		AND seen_at >= ? AND epoch = (SELECT session_epoch FROM users WHERE id = ?)`, instant(at), userID, keep, instant(since), userID)
	if err != nil {
		return 0, fmt.Errorf("store: end sessions: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// MemberByID returns the account with id as a member of siteID, with their
// role there; engine.ErrNotFound when there is no such account or it is
// not a member of the site.
func (s *Store) MemberByID(ctx context.Context, siteID, id string) (engine.User, error) {
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+memberColumns+` FROM memberships m
		JOIN users u ON u.id = m.user_id WHERE m.site_id = ? AND m.user_id = ?`, siteID, id))
	u.SiteID = siteID
	return u, err
}

// Memberships lists the sites the person id is a member of, with their
// role on each, in the sites' order of creation.
func (s *Store) Memberships(ctx context.Context, id string) ([]engine.Membership, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT m.site_id, s.name, m.role FROM memberships m JOIN sites s ON s.id = m.site_id
		WHERE m.user_id = ? ORDER BY s.created_at, s.id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: memberships: %w", err)
	}
	defer rows.Close()
	var out []engine.Membership
	for rows.Next() {
		var m engine.Membership
		var role string
		if err := rows.Scan(&m.SiteID, &m.SiteName, &role); err != nil {
			return nil, fmt.Errorf("store: memberships: %w", err)
		}
		m.Role = policy.Role(role)
		out = append(out, m)
	}
	return out, rows.Err()
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
