package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/identity"
	"studio/engine/model/release"
	"studio/engine/people"
	"studio/engine/policy"
)

// Members lists a site's members with their role there, by name.
func (s *Store) Members(ctx context.Context, siteID string) ([]people.Member, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+memberColumns+`, m.created_at FROM memberships m
		JOIN users u ON u.id = m.user_id WHERE m.site_id = ? ORDER BY lower(u.name), u.id`, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: members: %w", err)
	}
	defer rows.Close()
	var out []people.Member
	for rows.Next() {
		var joined string
		u, err := scanUser(rows, &joined)
		if err != nil {
			return nil, fmt.Errorf("store: members: %w", err)
		}
		u.SiteID = siteID
		m := people.Member{User: u}
		if m.Joined, err = mustInstant(joined); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetMemberRole changes a member's role with its audit row.
func (s *Store) SetMemberRole(ctx context.Context, siteID, userID string, role policy.Role, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE memberships SET role = ? WHERE site_id = ? AND user_id = ?`, string(role), siteID, userID))
		if err != nil {
			return fmt.Errorf("store: set member role: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return audit(ctx, tx, a)
	})
}

// RemoveMember takes a member off a site, denies the requests of r and
// writes its audit row, in one transaction.
func (s *Store) RemoveMember(ctx context.Context, r people.Removal) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `DELETE FROM memberships WHERE site_id = ? AND user_id = ?`, r.SiteID, r.UserID))
		if err != nil {
			return fmt.Errorf("store: remove member: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		for _, d := range r.Denials {
			if err := decideApproval(ctx, tx, d); err != nil {
				return err
			}
		}
		return audit(ctx, tx, r.Audit)
	})
}

// CreateInvitation writes an invitation, replacing the site's open ones of
// the same email, with its audit row.
func (s *Store) CreateInvitation(ctx context.Context, inv people.Invitation, hash string, a engine.AuditEntry) error {
	by, err := jsonText(inv.By)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE invitations SET revoked_at = ? WHERE site_id = ? AND email = ?
			AND accepted_at IS NULL AND revoked_at IS NULL`, instant(inv.CreatedAt), inv.SiteID, inv.Email); err != nil {
			return fmt.Errorf("store: create invitation: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO invitations (id, site_id, email, role, hash, created_by, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, inv.ID, inv.SiteID, inv.Email, string(inv.Role), hash, by,
			instant(inv.CreatedAt), instant(inv.ExpiresAt)); err != nil {
			return fmt.Errorf("store: create invitation: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

const invitationColumns = `id, site_id, email, role, created_by, created_at, expires_at`

// openAt is the condition of an invitation open at the instant argument.
const openAt = `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`

func scanInvitation(row interface{ Scan(...any) error }) (people.Invitation, error) {
	var inv people.Invitation
	var role, created, expires string
	var by sql.NullString
	if err := row.Scan(&inv.ID, &inv.SiteID, &inv.Email, &role, &by, &created, &expires); err != nil {
		return inv, notFound(err)
	}
	inv.Role = policy.Role(role)
	if err := fromJSON(by, &inv.By); err != nil {
		return inv, err
	}
	var err error
	if inv.CreatedAt, err = mustInstant(created); err != nil {
		return inv, err
	}
	inv.ExpiresAt, err = mustInstant(expires)
	return inv, err
}

// Invitations lists a site's invitations open at now, newest first.
func (s *Store) Invitations(ctx context.Context, siteID string, now time.Time) ([]people.Invitation, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE site_id = ? AND `+openAt+` ORDER BY created_at DESC, id`, siteID, instant(now))
	if err != nil {
		return nil, fmt.Errorf("store: invitations: %w", err)
	}
	defer rows.Close()
	var out []people.Invitation
	for rows.Next() {
		inv, err := scanInvitation(rows)
		if err != nil {
			return nil, fmt.Errorf("store: invitations: %w", err)
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// RevokeInvitation revokes a site's open invitation with its audit row.
func (s *Store) RevokeInvitation(ctx context.Context, siteID, id string, at time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE invitations SET revoked_at = ? WHERE site_id = ? AND id = ? AND `+openAt,
			instant(at), siteID, id, instant(at)))
		if err != nil {
			return fmt.Errorf("store: revoke invitation: %w", err)
		}
		if !ok {
			return engine.ErrNotFound
		}
		return audit(ctx, tx, a)
	})
}

// OpenInvitation is the invitation with hash, open at now.
func (s *Store) OpenInvitation(ctx context.Context, hash string, now time.Time) (people.Invitation, error) {
	return scanInvitation(s.read.QueryRowContext(ctx, `SELECT `+invitationColumns+` FROM invitations
		WHERE hash = ? AND `+openAt, hash, instant(now)))
}

// AcceptInvitation spends an invitation and writes the membership (and the
// new account), with the audit row, in one transaction.
func (s *Store) AcceptInvitation(ctx context.Context, a people.Acceptance) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE invitations SET accepted_at = ? WHERE id = ? AND `+openAt,
			instant(a.At), a.Invitation.ID, instant(a.At)))
		if err != nil {
			return fmt.Errorf("store: accept invitation: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if a.NewHash != "" {
			if err := createUser(ctx, tx, a.User, a.NewHash, a.At); err != nil {
				return fmt.Errorf("store: accept invitation: %w", err)
			}
		} else if _, err := tx.ExecContext(ctx, `INSERT INTO memberships (site_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, a.User.SiteID, a.User.ID, string(a.User.Role), instant(a.At)); err != nil {
			return fmt.Errorf("store: accept invitation: %w", err)
		}
		return audit(ctx, tx, a.Audit)
	})
}

// CreatePasswordReset writes a reset link, ending the account's open ones.
func (s *Store) CreatePasswordReset(ctx context.Context, r people.PasswordReset, hash string, a engine.AuditEntry) error {
	by, err := jsonText(r.By)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`,
			instant(r.CreatedAt), r.UserID); err != nil {
			return fmt.Errorf("store: create password reset: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO password_resets (id, user_id, hash, created_by, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)`, r.ID, r.UserID, hash, by, instant(r.CreatedAt), instant(r.ExpiresAt)); err != nil {
			return fmt.Errorf("store: create password reset: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

const resetOpen = `r.hash = ? AND r.used_at IS NULL AND r.expires_at > ?`

// OpenPasswordReset is the account of an open reset link, and who made it.
func (s *Store) OpenPasswordReset(ctx context.Context, hash string, now time.Time) (engine.User, release.Actor, error) {
	var by release.Actor
	var byText sql.NullString
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+`, r.created_by FROM password_resets r
		JOIN users u ON u.id = r.user_id WHERE `+resetOpen, hash, instant(now)), &byText)
	if err != nil {
		return engine.User{}, by, err
	}
	if err := fromJSON(byText, &by); err != nil {
		return engine.User{}, by, fmt.Errorf("store: open password reset: %w", err)
	}
	return u, by, nil
}

// UsePasswordReset spends a reset link and sets the account's password,
// ending its sessions and revoking its tokens and its own agent keys, with
// the audit row, in one transaction.
func (s *Store) UsePasswordReset(ctx context.Context, r people.ResetUse) (engine.User, identity.Ended, error) {
	var u engine.User
	var ended identity.Ended
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var userID string
		err := tx.QueryRowContext(ctx, `UPDATE password_resets SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?
			RETURNING user_id`, instant(r.At), r.Hash, instant(r.At)).Scan(&userID)
		if err != nil {
			return notFound(err)
		}
		ended = identity.Ended{Tokens: []string{}, AgentKeys: []identity.RevokedKey{}}
		if ended.Sessions, err = endLiveSessions(ctx, tx, userID, "", r.At, r.Since); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `UPDATE users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE id = ?
			RETURNING session_epoch`, r.PasswordHash, userID).Scan(&ended.Epoch); err != nil {
			return fmt.Errorf("store: use password reset: %w", err)
		}
		err = eachRow(ctx, tx, func(rows *sql.Rows) error {
			var id string
			err := rows.Scan(&id)
			ended.Tokens = append(ended.Tokens, id)
			return err
		}, `UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING id`, instant(r.At), userID)
		if err != nil {
			return fmt.Errorf("store: use password reset: %w", err)
		}
		err = eachRow(ctx, tx, func(rows *sql.Rows) error {
			var k identity.RevokedKey
			err := rows.Scan(&k.ID, &k.SiteID)
			ended.AgentKeys = append(ended.AgentKeys, k)
			return err
		}, `UPDATE agent_keys SET revoked_at = ? WHERE owner_id = ? AND revoked_at IS NULL AND automation_id IS NULL
			RETURNING id, site_id`, instant(r.At), userID)
		if err != nil {
			return fmt.Errorf("store: use password reset: %w", err)
		}
		// The order RETURNING gives is the engine's own: the row reads alike
		// on both.
		slices.Sort(ended.Tokens)
		slices.SortFunc(ended.AgentKeys, func(a, b identity.RevokedKey) int { return strings.Compare(a.ID, b.ID) })
		if u, err = scanUser(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM users u WHERE u.id = ?`, userID)); err != nil {
			return err
		}
		u.SessionEpoch = ended.Epoch
		return audit(ctx, tx, r.Audit(ended))
	})
	return u, ended, err
}

// eachRow runs query in tx and calls scan on each row it answers.
func eachRow(ctx context.Context, tx *sql.Tx, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := scan(rows); err != nil {
			return errors.Join(err, rows.Close())
		}
	}
	return errors.Join(rows.Err(), rows.Close())
}

// MemberSites reads, for every member of siteID, every site they are a
// member of with their role there, in one statement.
func (s *Store) MemberSites(ctx context.Context, siteID string) (people.Sites, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT m.user_id, m.site_id, m.role FROM memberships m
		WHERE m.user_id IN (SELECT user_id FROM memberships WHERE site_id = ?) ORDER BY m.user_id, m.site_id`, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: member sites: %w", err)
	}
	defer rows.Close()
	out := people.Sites{}
	for rows.Next() {
		var userID, role string
		var m engine.Membership
		if err := rows.Scan(&userID, &m.SiteID, &role); err != nil {
			return nil, fmt.Errorf("store: member sites: %w", err)
		}
		m.Role = policy.Role(role)
		out[userID] = append(out[userID], m)
	}
	return out, rows.Err()
}
