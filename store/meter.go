package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"

	"modernc.org/sqlite"
)

// meter counts the statements a Store sends to SQLite, so tests can hold
// each scheduler path to a statement budget (DESIGN: TickBudget, §8.1).
//
// It also counts the writes of this store's write pool (every commit and
// every statement outside a transaction, which commits on its own): the
// in-process half of Generation.
type meter struct{ n, writes atomic.Int64 }

// Statements is how many statements this store has sent so far.
func (s *Store) Statements() int64 { return s.meter.n.Load() }

// connector opens modernc connections wrapped so that every statement —
// executed directly or through a prepared statement — is counted.
type connector struct {
	dsn   string
	meter *meter
	write bool // the write pool: count its commits in meter.writes
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := (&sqlite.Driver{}).Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &countedConn{conn.(sqliteConn), c.meter, c.write}, nil
}

func (c connector) Driver() driver.Driver { return &sqlite.Driver{} }

// sqliteConn is what modernc's connection implements.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type countedConn struct {
	sqliteConn
	meter *meter
	write bool
}

func (c *countedConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.meter.n.Add(1)
	res, err := c.sqliteConn.ExecContext(ctx, q, args)
	if c.write {
		c.meter.writes.Add(1) // after the statement: a reader that sees the count sees its effect
	}
	return res, err
}

func (c *countedConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.meter.n.Add(1)
	return c.sqliteConn.QueryContext(ctx, q, args)
}

// BeginTx counts BEGIN, and the transaction counts its COMMIT or
// ROLLBACK: each is a statement SQLite runs, and a round trip on a server.
func (c *countedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.meter.n.Add(1)
	tx, err := c.sqliteConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countedTx{tx, c.meter, c.write}, nil
}

type countedTx struct {
	driver.Tx
	meter *meter
	write bool
}

func (t countedTx) Commit() error {
	t.meter.n.Add(1)
	err := t.Tx.Commit()
	if t.write {
		t.meter.writes.Add(1)
	}
	return err
}

func (t countedTx) Rollback() error {
	t.meter.n.Add(1)
	return t.Tx.Rollback()
}

func (c *countedConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	st, err := c.sqliteConn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &countedStmt{st, c.meter}, nil
}

func (c *countedConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

// countedStmt counts each execution of a prepared statement.
type countedStmt struct {
	driver.Stmt
	meter *meter
}

func (s *countedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.meter.n.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *countedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.meter.n.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func openCounted(dsn string, m *meter, write bool) *sql.DB {
	return sql.OpenDB(connector{dsn, m, write})
}
