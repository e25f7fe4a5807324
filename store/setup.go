package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/setup"
)

const anyoneQuery = `SELECT EXISTS (SELECT 1 FROM sites) OR EXISTS (SELECT 1 FROM users)`

// Installed reports whether the database holds a site or a person: the
// first-run setup is only offered on one that holds neither.
func (s *Store) Installed(ctx context.Context) (bool, error) {
	var installed bool // an integer on SQLite, a boolean on PostgreSQL: both scan
	if err := s.read.QueryRowContext(ctx, anyoneQuery).Scan(&installed); err != nil {
		return false, fmt.Errorf("store: installed: %w", err)
	}
	return installed, nil
}

// HasPeople reports whether the database holds a person.
func (s *Store) HasPeople(ctx context.Context) (bool, error) {
	var people bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&people); err != nil {
		return false, fmt.Errorf("store: has people: %w", err)
	}
	return people, nil
}

// Install writes the first site and its Owner, with the audit row, in one
// transaction, and only into a database that holds no site and no person:
// otherwise setup.ErrInstalled, and nothing is written. Two setups at
// once cannot both pass, as the write lock orders them.
func (s *Store) Install(ctx context.Context, site engine.Site, owner engine.User, passwordHash string, entry engine.AuditEntry, now time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var installed bool
		if err := tx.QueryRowContext(ctx, anyoneQuery).Scan(&installed); err != nil {
			return fmt.Errorf("store: install: %w", err)
		}
		if installed {
			return setup.ErrInstalled
		}
		if err := createSite(ctx, tx, site, now); err != nil {
			return fmt.Errorf("store: install: site: %w", err)
		}
		if err := createUser(ctx, tx, owner, passwordHash, now); err != nil {
			return fmt.Errorf("store: install: owner: %w", err)
		}
		return audit(ctx, tx, entry)
	})
}

// AddSite writes a new site, ownerID's Owner membership of it (none for
// ""), and its audit row, in one transaction.
func (s *Store) AddSite(ctx context.Context, site engine.Site, ownerID string, entry engine.AuditEntry, now time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := createSite(ctx, tx, site, now); err != nil {
			return fmt.Errorf("store: add site: %w", err)
		}
		if ownerID != "" {
			if err := addMember(ctx, tx, site.ID, ownerID, policy.Owner, now); err != nil {
				return fmt.Errorf("store: add site: owner: %w", err)
			}
		}
		return audit(ctx, tx, entry)
	})
}
