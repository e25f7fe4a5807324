package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"sync/atomic"

	"modernc.org/sqlite"
)

// meter counts the statements a Store sends to its database, so tests can hold
// each scheduler path to a statement budget (DESIGN: TickBudget, §8.1).
//
// It also counts the writes of this store's write pool (every commit and
// every statement outside a transaction, which commits on its own): the
// in-process half of Generation.
type meter struct {
	n, writes atomic.Int64
	// record, when set (by a test), is told the text of every statement
	// sent: TestEveryStatementCompiles's variants of a built statement.
	record atomic.Pointer[func(q string)]
}

// sent counts a statement and tells record its text.
func (m *meter) sent(q string) {
	m.n.Add(1)
	if f := m.record.Load(); f != nil {
		(*f)(q)
	}
}

// Statements is how many statements this store has sent so far.
func (s *Store) Statements() int64 { return s.meter.n.Load() }

// connector opens connections of its engine's driver, wrapped so that
// every statement — executed directly or through a prepared statement —
// is counted, and on PostgreSQL rewritten from the store's SQL (pgsql.go).
type connector struct {
	base  driver.Connector
	meter *meter
	write bool // the write pool: count its commits in meter.writes
	pg    bool // PostgreSQL: rewrite statements; a write transaction takes the write lock
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cc := &countedConn{engineConn: conn.(engineConn), meter: c.meter, write: c.write, pg: c.pg}
	if !c.pg { // pgx keeps its own cache of prepared statements
		cc.stmts = map[string]*cachedStmt{}
	}
	return cc, nil
}

func (c connector) Driver() driver.Driver { return c.base.Driver() }

// engineConn is what the connections of both drivers (modernc's and pgx's
// stdlib) implement.
type engineConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
}

type countedConn struct {
	engineConn
	meter *meter
	write bool
	pg    bool
	// stmts are this SQLite connection's statements, prepared once and
	// kept by their text: parsing the scheduler's larger statements cost
	// as much as running them (a publish spent 40% of its time in the
	// parser). database/sql uses a connection in one goroutine at a time.
	stmts map[string]*cachedStmt
}

// cachedStmt is a kept statement; busy while its rows are open, when the
// same text asked again (a query inside another's rows) is prepared anew.
type cachedStmt struct {
	driver.Stmt
	busy bool
}

// maxCachedStmts bounds a connection's statements: the store's texts are
// constants, but a few are built (IN lists), and those should not pile up.
const maxCachedStmts = 256

// cached is q's kept statement, prepared now if it is new; nil when q is
// not kept (PostgreSQL, a migration's script) or is busy.
func (c *countedConn) cached(ctx context.Context, q string) *cachedStmt {
	if c.stmts == nil || ctx.Value(verbatim{}) != nil {
		return nil
	}
	if st, ok := c.stmts[q]; ok {
		if st.busy {
			return nil
		}
		return st
	}
	if strings.Contains(strings.TrimRight(q, "; \t\n"), ";") { // a script: several statements
		return nil
	}
	prepared, err := c.engineConn.PrepareContext(ctx, q)
	if err != nil {
		return nil // the uncached way reports it
	}
	if len(c.stmts) >= maxCachedStmts {
		c.closeStmts(false)
	}
	st := &cachedStmt{Stmt: prepared}
	c.stmts[q] = st
	return st
}

// closeStmts finalizes the kept statements; all of them (the connection
// closes) or those whose rows are not open, which must stay usable.
func (c *countedConn) closeStmts(all bool) {
	for q, st := range c.stmts {
		if st.busy && !all {
			continue
		}
		st.Close()
		delete(c.stmts, q)
	}
}

// Close finalizes the kept statements before the connection.
func (c *countedConn) Close() error {
	c.closeStmts(true)
	return c.engineConn.Close()
}

// IsValid asks the driver when it can tell (modernc can); a connection
// that cannot is valid until it fails.
func (c *countedConn) IsValid() bool {
	v, ok := c.engineConn.(driver.Validator)
	return !ok || v.IsValid()
}

// CheckNamedValue lets pgx convert arguments itself, as it does unwrapped,
// but for booleans: they are the integers 1 and 0 in both engines, as
// SQLite stores them (a column is INTEGER, a test is "= 1").
func (c *countedConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok && c.pg {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
	}
	if ch, ok := c.engineConn.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// sql is q as this connection's engine runs it.
func (c *countedConn) sql(ctx context.Context, q string) string {
	if c.pg && ctx.Value(verbatim{}) == nil {
		return postgresSQL(q)
	}
	return q
}

func (c *countedConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (res driver.Result, err error) {
	c.meter.sent(q)
	if st := c.cached(ctx, q); st != nil {
		res, err = st.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	} else {
		res, err = c.engineConn.ExecContext(ctx, c.sql(ctx, q), args)
	}
	if c.write {
		c.meter.writes.Add(1) // after the statement: a reader that sees the count sees its effect
	}
	return res, err
}

func (c *countedConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.meter.sent(q)
	st := c.cached(ctx, q)
	if st == nil {
		return c.engineConn.QueryContext(ctx, c.sql(ctx, q), args)
	}
	rows, err := st.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	st.busy = true
	return &cachedRows{Rows: rows, st: st}, nil
}

// cachedRows frees their statement for the next use when closed.
type cachedRows struct {
	driver.Rows
	st *cachedStmt
}

func (r *cachedRows) Close() error {
	r.st.busy = false
	return r.Rows.Close()
}

// BeginTx counts BEGIN, and the transaction counts its COMMIT or
// ROLLBACK: each is a statement SQLite runs, and a round trip on a server.
func (c *countedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.meter.n.Add(1)
	tx, err := c.engineConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	if c.pg && c.write {
		// One writer at a time, as on SQLite (whose immediate transactions
		// take its write lock at BEGIN): the store's guarded read-then-write
		// transactions were written for that (but for a site's publish,
		// writeLock). Part of BEGIN, not counted.
		q, args := writeLock(ctx)
		if _, err := c.engineConn.ExecContext(ctx, q, args); err != nil {
			tx.Rollback()
			return nil, err
		}
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
	st, err := c.engineConn.PrepareContext(ctx, c.sql(ctx, q))
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
	return sql.OpenDB(connector{base: sqliteConnector(dsn), meter: m, write: write})
}

// sqliteConnector opens modernc connections to one DSN.
type sqliteConnector string

func (dsn sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite.Driver{}).Open(string(dsn))
}

func (dsn sqliteConnector) Driver() driver.Driver { return &sqlite.Driver{} }
