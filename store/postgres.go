package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL is the second engine, for several Studio instances sharing one
// database. The store reaches it through pgx's database/sql driver (pgx
// stdlib), not pgx's native interface: the store is database/sql code
// written once for both engines, and the statement meter and the SQL
// rewriting (pgsql.go) sit below database/sql, in the connector.

// IsPostgres reports whether a database address names a PostgreSQL database
// (a postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(address string) bool {
	return strings.HasPrefix(address, "postgres://") || strings.HasPrefix(address, "postgresql://")
}

// Postgres reports whether the store is on PostgreSQL: for the wiring that
// picks a library's PostgreSQL flavour (the session store), never for rules.
func (s *Store) Postgres() bool { return s.pg }

// generationSQL is Generation's number on PostgreSQL: the next transaction
// id, which moves when any transaction that wrote commits or aborts (on
// any database of the server: a change elsewhere only costs a re-read).
const generationSQL = `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`

func openPostgres(ctx context.Context, address string) (*Store, error) {
	config, err := pgx.ParseConfig(address)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	m := &meter{}
	pool := func(write bool, conns int) *sql.DB {
		db := sql.OpenDB(connector{base: stdlib.GetConnector(*config), meter: m, write: write, pg: true})
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		return db
	}
	// The same shape as on SQLite: one connection writes (and, within this
	// process, waits its turn there rather than at the write lock).
	s := &Store{read: pool(false, 8), write: pool(true, 1), watch: pool(false, 1), meter: m, pg: true,
		wake: newWakeups(config)}
	if err := s.write.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %s: %w", redacted(config), err)
	}
	if err := s.start(ctx, generationSQL); err != nil {
		return nil, err
	}
	return s, nil
}

// redacted names the database without its password, for messages.
func redacted(c *pgx.ConnConfig) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}
