package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/oauth"
)

// CreateOAuthClient stores a registered client.
func (s *Store) CreateOAuthClient(ctx context.Context, c oauth.Client) error {
	uris, err := jsonText(c.RedirectURIs)
	if err != nil {
		return err
	}
	if _, err := s.write.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)`,
		c.ID, c.Name, uris, instant(c.CreatedAt)); err != nil {
		return fmt.Errorf("store: create oauth client: %w", err)
	}
	return nil
}

// OAuthClient reads a registered client.
func (s *Store) OAuthClient(ctx context.Context, id string) (oauth.Client, error) {
	c := oauth.Client{ID: id}
	var uris sql.NullString
	var created string
	if err := s.read.QueryRowContext(ctx, `SELECT name, redirect_uris, created_at FROM oauth_clients WHERE id = ?`, id).
		Scan(&c.Name, &uris, &created); err != nil {
		return c, notFound(err)
	}
	if err := fromJSON(uris, &c.RedirectURIs); err != nil {
		return c, err
	}
	var err error
	c.CreatedAt, err = mustInstant(created)
	return c, err
}

// CreateOAuthCode stores a code by its hash with its audit row, and
// deletes the codes that expired before it was made.
func (s *Store) CreateOAuthCode(ctx context.Context, hash string, c oauth.Code, a engine.AuditEntry) error {
	scopes, err := jsonText(c.Scopes)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_codes WHERE expires_at < ?`, instant(a.At)); err != nil {
			return fmt.Errorf("store: forget expired oauth codes: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_codes (hash, client_id, site_id, user_id, redirect_uri, challenge, mode, scopes, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, hash, c.ClientID, c.SiteID, c.UserID, c.RedirectURI, c.Challenge, string(c.Mode), scopes,
			instant(c.ExpiresAt)); err != nil {
			return fmt.Errorf("store: create oauth code: %w", err)
		}
		return audit(ctx, tx, a)
	})
}

// TakeOAuthCode reads a code and marks it taken, in one transaction.
func (s *Store) TakeOAuthCode(ctx context.Context, hash string, at time.Time) (oauth.Code, bool, error) {
	var c oauth.Code
	first := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var scopes, taken sql.NullString
		var expires string
		if err := tx.QueryRowContext(ctx, `SELECT client_id, site_id, user_id, redirect_uri, challenge, mode, scopes, expires_at, taken_at,
			COALESCE(key_id, '') FROM oauth_codes WHERE hash = ?`, hash).Scan(&c.ClientID, &c.SiteID, &c.UserID, &c.RedirectURI,
			&c.Challenge, &c.Mode, &scopes, &expires, &taken, &c.KeyID); err != nil {
			return notFound(err)
		}
		if err := fromJSON(scopes, &c.Scopes); err != nil {
			return err
		}
		var err error
		if c.ExpiresAt, err = mustInstant(expires); err != nil {
			return err
		}
		if taken.Valid {
			return nil
		}
		first = true
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET taken_at = ? WHERE hash = ?`, instant(at), hash); err != nil {
			return fmt.Errorf("store: take oauth code: %w", err)
		}
		return nil
	})
	return c, first, err
}

// SetOAuthCodeKey records the key a code was exchanged for.
func (s *Store) SetOAuthCodeKey(ctx context.Context, hash, keyID string) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE oauth_codes SET key_id = ? WHERE hash = ?`, keyID, hash); err != nil {
		return fmt.Errorf("store: oauth code key: %w", err)
	}
	return nil
}
