package store

import (
	"context"
	"database/sql"
	"fmt"

	"studio/engine"
)

// PreviewSecret returns the database's preview key, storing fresh as the
// key when there is none yet: the insert and the read are one transaction,
// so two processes racing on a new database end up with the same key.
func (s *Store) PreviewSecret(ctx context.Context, fresh []byte) ([]byte, error) {
	var key []byte
	if err := s.read.QueryRowContext(ctx, `SELECT secret FROM preview_secret WHERE id = 1`).Scan(&key); err == nil && len(key) > 0 {
		return key, nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO preview_secret (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT secret FROM preview_secret WHERE id = 1`).Scan(&key)
	})
	if err != nil {
		return nil, fmt.Errorf("store: preview secret: %w", err)
	}
	return key, nil
}

// NodeSite is the site of the node id, deleted or not.
func (s *Store) NodeSite(ctx context.Context, id string) (string, error) {
	var site string
	err := notFound(s.read.QueryRowContext(ctx, `SELECT site_id FROM nodes WHERE id = ?`, id).Scan(&site))
	if err != nil && err != engine.ErrNotFound {
		return "", fmt.Errorf("store: node site: %w", err)
	}
	return site, err
}
