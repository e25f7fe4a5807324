// Package store keeps Studio's state in SQLite (modernc.org/sqlite, pure
// Go): embedded numbered migrations, plain SQL, one transaction per write.
// It implements engine.Store.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/localtime"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open Studio database: a pool for reads and a single-connection
// pool for writes, so the ticker and requests never fight over SQLite's one
// writer lock inside this process.
type Store struct {
	read  *sql.DB
	write *sql.DB
	meter *meter
	// sites is Sites' query, prepared once: the public site asks it on
	// every request, and parsing it cost more than running it.
	sites *sql.Stmt
	// liveSites is LiveSites' query, prepared once for the same reason.
	liveSites *sql.Stmt
}

var _ engine.Store = (*Store)(nil)

// dsn sets pragmas in the DSN so that every pooled connection gets them.
// busy_timeout comes first so the others wait for a lock instead of failing;
// _txlock=immediate takes the write lock at BEGIN, so two processes never
// deadlock upgrading a read to a write.
func dsn(path string, write bool) string {
	q := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)"
	if write {
		q += "&_txlock=immediate"
	}
	return "file:" + filepath.ToSlash(path) + "?" + q
}

// Open opens (creating if needed) the database file at path and migrates it.
func Open(ctx context.Context, path string) (*Store, error) {
	m := &meter{}
	write := openCounted(dsn(path, true), m)
	write.SetMaxOpenConns(1)
	read := openCounted(dsn(path, false), m)
	read.SetMaxOpenConns(4)
	s := &Store{read: read, write: write, meter: m}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	var err error
	if s.sites, err = read.PrepareContext(ctx, sitesQuery); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: prepare: %w", err)
	}
	if s.liveSites, err = read.PrepareContext(ctx, liveSitesQuery); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: prepare: %w", err)
	}
	return s, nil
}

// DB is the write pool, for the session store, which shares the database.
func (s *Store) DB() *sql.DB { return s.write }

// Close closes both pools.
func (s *Store) Close() error {
	var err error
	if s.sites != nil {
		err = s.sites.Close()
	}
	if s.liveSites != nil {
		err = errors.Join(err, s.liveSites.Close())
	}
	return errors.Join(err, s.read.Close(), s.write.Close())
}

// migrate applies every embedded migration newer than the schema version,
// each in its own transaction.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		version, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s: bad name", name)
		}
		script, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = s.tx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(script)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
				version, instant(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %s: %w", name, err)
		}
	}
	return nil
}

// tx runs fn in one write transaction.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// instant formats t in the storage format; the zero time is NULL.
func instant(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return localtime.FormatInstant(t)
}

func parseInstant(s sql.NullString) (*time.Time, error) {
	if !s.Valid || s.String == "" {
		return nil, nil
	}
	t, err := localtime.ParseInstant(s.String)
	if err != nil {
		return nil, fmt.Errorf("store: bad instant %q: %w", s.String, err)
	}
	return &t, nil
}

func mustInstant(s string) (time.Time, error) {
	t, err := localtime.ParseInstant(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: bad instant %q: %w", s, err)
	}
	return t, nil
}

func jsonText(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: encode: %w", err)
	}
	return string(data), nil
}

func fromJSON(s sql.NullString, v any) error {
	if !s.Valid || s.String == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(s.String), v); err != nil {
		return fmt.Errorf("store: decode: %w", err)
	}
	return nil
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return engine.ErrNotFound
	}
	return err
}

// one reports whether a guarded statement changed exactly one row.
func one(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func audit(ctx context.Context, tx *sql.Tx, a engine.AuditEntry) error {
	actor, err := jsonText(a.Actor)
	if err != nil {
		return err
	}
	details, err := jsonText(a.Details)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit (at, site_id, action, actor, release_id, run_id, details)
		VALUES (?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?)`,
		instant(a.At), a.SiteID, a.Action, actor, a.ReleaseID, a.RunID, details)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}
