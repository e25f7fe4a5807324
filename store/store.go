// Package store keeps Studio's state in SQLite (modernc.org/sqlite, pure
// Go), or in PostgreSQL for several instances (postgres.go): embedded
// numbered migrations, plain SQL written once for both, one transaction
// per write. It implements engine.Store and every use-case family's narrow
// Store (services.Store is their union).
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/scheduler"
)

// Store is an open Studio database: a pool for reads and a single-connection
// pool for writes, so the ticker and requests never fight over SQLite's one
// writer lock inside this process.
type Store struct {
	read  *sql.DB
	write *sql.DB
	meter *meter
	// watch is one connection that only asks Generation's number, with
	// generationSQL; gen is what Generation last answered. (Every
	// connection keeps its statements prepared: meter.go on SQLite, pgx's
	// own cache on PostgreSQL.)
	watch         *sql.DB
	generationSQL string
	gen           generation
	live          liveness
	// pending keeps PendingCount's answers while nothing commits.
	pending pendingCounts
	// pg: the database is PostgreSQL (postgres.go), not a SQLite file.
	pg bool
	// wake carries wake-ups between the instances on one PostgreSQL
	// database (wakeups.go); nil on SQLite.
	wake *wakeups
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

// Open opens the database at path and migrates it: a SQLite file (created
// if needed), or a PostgreSQL database when path is a postgres:// URL.
func Open(ctx context.Context, path string) (*Store, error) {
	if IsPostgres(path) {
		return openPostgres(ctx, path)
	}
	m := &meter{}
	write := openCounted(dsn(path, true), m, true)
	write.SetMaxOpenConns(1)
	read := openCounted(dsn(path, false), m, false)
	read.SetMaxOpenConns(4)
	read.SetMaxIdleConns(4) // a closed connection loses the statements it kept
	watch := openCounted(dsn(path, false), m, false)
	watch.SetMaxOpenConns(1)
	s := &Store{read: read, write: write, watch: watch, meter: m}
	if err := s.start(ctx, `PRAGMA data_version`); err != nil {
		return nil, err
	}
	// The file as opened, to notice later that the path names another
	// file or none (see Liveness).
	var err error
	if s.live.opened, err = os.Stat(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	s.live.path = path
	return s, nil
}

// start migrates the database: generationSQL is the query for
// Generation's number. It closes s when it fails.
func (s *Store) start(ctx context.Context, generationSQL string) error {
	s.generationSQL = generationSQL
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return err
	}
	// A first write probe: a read-only database opens without complaint
	// and fails only when written.
	s.live.problem = s.probe(ctx, nil)
	s.live.checked = time.Now()
	return nil
}

// DB is the write pool, for the session store, which shares the database.
func (s *Store) DB() *sql.DB { return s.write }

// Close closes the pools.
func (s *Store) Close() error {
	return errors.Join(s.read.Close(), s.write.Close(), s.watch.Close())
}

// Pools are the store's connection pools by name, for the metrics' pool
// statistics; nothing else may use them.
func (s *Store) Pools() map[string]*sql.DB {
	return map[string]*sql.DB{"read": s.read, "write": s.write}
}

// migrate applies every migration newer than the schema version, each in
// its own transaction.
func (s *Store) migrate(ctx context.Context) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	list, err := migrationList(s.pg)
	if err != nil {
		return err
	}
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	for _, m := range list {
		if applied[m.version] {
			continue
		}
		err = s.tx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(context.WithValue(ctx, verbatim{}, true), m.script); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
				m.version, instant(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %s: %w", m.name, err)
		}
	}
	return nil
}

// appliedMigrations reads the versions already applied, so that a start on
// a migrated database costs one query; each migration still checks its own
// version inside its transaction, for two processes starting at once.
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	rows, err := s.write.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("store: migrations table: %w", err)
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// tx runs fn in one write transaction. It refuses to write into a database
// file that is no longer at its path (what is written there is lost), and
// notes a read-only database for Liveness.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := s.Liveness(ctx); errors.Is(err, scheduler.ErrDatabaseGone) {
		return err
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return s.noteWrite(fmt.Errorf("store: begin: %w", err))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.noteWrite(err)
	}
	if err := tx.Commit(); err != nil {
		return s.noteWrite(fmt.Errorf("store: commit: %w", err))
	}
	return s.noteWrite(nil)
}

// liveCheckEvery is how often Liveness probes a write while the database
// was found read-only.
const liveCheckEvery = 3 * time.Second

// liveness is what Liveness knows about the database file.
type liveness struct {
	mu      sync.Mutex
	path    string
	opened  os.FileInfo // the file at path when it was opened
	checked time.Time   // when a write was last probed (the process's clock)
	problem error       // nil, or wrapping scheduler.ErrDatabaseGone or ErrDatabaseReadOnly
}

// Liveness is nil while the database file at the path is the file this
// store opened (same device and inode) and takes writes. It looks at the
// file on every call (a stat, no statement); a file found gone stays gone,
// since another file at the path is not the one this process has written
// to. Read-only is what the last write said (the probe at Open, the
// heartbeat, any transaction); while it holds, a write is probed again at
// most every three seconds, so a database made writable again is noticed.
func (s *Store) Liveness(ctx context.Context) error {
	l := &s.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened == nil || errors.Is(l.problem, scheduler.ErrDatabaseGone) {
		return l.problem
	}
	// The file is looked at every time (a stat costs microseconds), so a
	// request right after it went says so, not the failed read it causes;
	// only the write probe of a read-only database waits its turn.
	if fi, err := os.Stat(l.path); err != nil || !os.SameFile(fi, l.opened) {
		l.problem = fmt.Errorf("store: %s: %w", l.path, scheduler.ErrDatabaseGone)
		return l.problem
	}
	if l.problem != nil && time.Since(l.checked) >= liveCheckEvery {
		l.checked = time.Now()
		l.problem = s.probe(ctx, l.problem)
	}
	return l.problem
}

// probe asks whether the database takes writes again, prev being the
// problem noted so far. A full disk is asked with probeSpace, a write that
// needs new space; otherwise a delete that matches no row, which still
// opens a write transaction, which a read-only database refuses. Another
// failure (a busy lock, a cancelled request) says nothing about the file:
// a full disk stays noted, anything else is dropped.
func (s *Store) probe(ctx context.Context, prev error) error {
	if errors.Is(prev, scheduler.ErrDiskFull) {
		switch err := s.probeSpace(ctx); {
		case err == nil:
			return nil
		case isReadOnly(err):
			return fmt.Errorf("store: %w: %v", scheduler.ErrDatabaseReadOnly, err)
		}
		return prev // still full (since its first failure), or nothing learnt
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version < 0`)
	switch {
	case isReadOnly(err):
		return fmt.Errorf("store: %w: %v", scheduler.ErrDatabaseReadOnly, err)
	case isDiskFull(err):
		return &scheduler.DiskFullError{Since: time.Now(), Err: err}
	}
	return nil
}

// probeBytes is the size of probeSpace's row: sixteen of SQLite's 4 KiB
// pages, more than a write that finds a page free somewhere needs.
const probeBytes = 64 << 10

// probeSpace writes a row of probeBytes into storage_probe and deletes it,
// in one committed transaction: it fails for lack of space where a write
// that needs new pages fails (SQLite's page count limit, a full disk under
// the WAL or PostgreSQL's data files), while an update of a row on a page
// that exists may still go through.
func (s *Store) probeSpace(ctx context.Context) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// Random bytes: PostgreSQL compresses a run of zeros to almost nothing,
	// and the probe would pass on a full disk.
	filler := make([]byte, probeBytes)
	rand.Read(filler)
	if _, err := tx.ExecContext(ctx, `INSERT INTO storage_probe (id, filler) VALUES (1, ?)`, filler); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM storage_probe WHERE id = 1`); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// noteWrite records what a write said about the database: refused because
// it is read-only or for lack of space, or taken. A write taken ends a
// read-only note at once; a full disk's note ends only when probeSpace
// goes through too (asked at once): a small update finds room on a page it
// already has where the next insert finds none. It returns err.
func (s *Store) noteWrite(err error) error {
	l := &s.live
	ro, full := isReadOnly(err), isDiskFull(err)
	if err != nil && !ro && !full {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case errors.Is(l.problem, scheduler.ErrDatabaseGone):
	case ro && l.problem == nil:
		l.problem = fmt.Errorf("store: %w: %v", scheduler.ErrDatabaseReadOnly, err)
	case full && !errors.Is(l.problem, scheduler.ErrDiskFull):
		l.problem, l.checked = &scheduler.DiskFullError{Since: time.Now(), Err: err}, time.Now()
	case err == nil && errors.Is(l.problem, scheduler.ErrDatabaseReadOnly):
		l.problem = nil
	case err == nil && errors.Is(l.problem, scheduler.ErrDiskFull):
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l.problem, l.checked = s.probe(ctx, l.problem), time.Now()
		cancel()
	}
	return err
}

// isReadOnly reports SQLite's SQLITE_READONLY (8), with any extended code,
// or PostgreSQL's read_only_sql_transaction (a standby, or a database set
// read-only).
func isReadOnly(err error) bool {
	var coded interface{ Code() int }
	var pgErr *pgconn.PgError
	return err != nil && (errors.As(err, &coded) && coded.Code()&0xff == 8 ||
		errors.As(err, &pgErr) && pgErr.Code == "25006")
}

// isDiskFull reports a write that failed for lack of space: SQLite's
// SQLITE_FULL (13, "database or disk is full", also its page count limit),
// the system's ENOSPC, or PostgreSQL's disk_full (53100).
func isDiskFull(err error) bool {
	var coded interface{ Code() int }
	var pgErr *pgconn.PgError
	return err != nil && (errors.As(err, &coded) && coded.Code()&0xff == 13 || errors.Is(err, syscall.ENOSPC) ||
		errors.As(err, &pgErr) && pgErr.Code == "53100")
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
	a = engine.AuditScope(ctx, a)
	actor, err := jsonText(a.Actor)
	if err != nil {
		return err
	}
	details, err := jsonText(a.Details)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit (at, site_id, action, actor, release_id, run_id, automation_id, details)
		VALUES (?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), ?)`,
		instant(a.At), a.SiteID, a.Action, actor, a.ReleaseID, a.RunID, a.AutomationID, details)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}
