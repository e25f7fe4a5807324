package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for the server's admin connection

	"studio/store"
)

// The conformance suite runs the store's tests (and the tests that drive
// the store through the engine and the ticker) on each engine: SQLite by
// default, PostgreSQL when STUDIO_TEST_DATABASE=postgres. On PostgreSQL
// each test gets a database of its own, copied from one migrated in this
// process, on a throwaway server the process starts (initdb in a temp
// folder, a free port on 127.0.0.1) or on the server STUDIO_TEST_POSTGRES
// names. A test that wants PostgreSQL and cannot have it fails.

// OnPostgres reports whether this run's tests use PostgreSQL.
func OnPostgres() bool { return os.Getenv("STUDIO_TEST_DATABASE") == "postgres" }

// Database returns the address of a new, migrated database for tb, on the
// engine of this run: a SQLite file (Path) or a PostgreSQL URL (Postgres).
func Database(tb testing.TB) string {
	tb.Helper()
	if OnPostgres() {
		return Postgres(tb)
	}
	return Path(tb)
}

// Main runs the package's tests and stops the PostgreSQL server they
// started, if any: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the PostgreSQL server this process's tests started, if any:
// for a TestMain that has more to do than Main.
func Stop() {
	if pg.stop != nil {
		pg.stop()
	}
}

var pg struct {
	once     sync.Once
	admin    *sql.DB // on the server's postgres database
	base     string  // the server's URL without a database name
	template string  // the migrated database the first of each is copied from
	reset    string  // empties a used database back to the template's rows
	stop     func()
	err      error
	n        atomic.Int64

	mu   sync.Mutex
	free []database // databases reset by tests that ended, to be used again
}

// database is a test's database and, once it has been reset, the
// connection its resets go through: kept with it, since a new connection
// costs the server tens of milliseconds of CPU, a third of what a test
// costs it.
type database struct {
	name  string
	reset *sql.DB
}

// Postgres returns the URL of a PostgreSQL database with every migration
// applied and nothing else in it, for tb alone. Copying the template costs
// about 200 ms; emptying a database a test has ended with costs a tenth
// of it, so an ended test's database is reset and given to the next.
func Postgres(tb testing.TB) string {
	tb.Helper()
	pg.once.Do(func() { pg.err = startPostgres() })
	if pg.err != nil {
		tb.Fatalf("storetest: PostgreSQL: %v", pg.err)
	}
	ctx := context.Background()
	pg.mu.Lock()
	var d database
	if n := len(pg.free); n > 0 {
		d, pg.free = pg.free[n-1], pg.free[:n-1]
	}
	pg.mu.Unlock()
	if d.name == "" {
		d.name = fmt.Sprintf("studio_%d_%d", os.Getpid(), pg.n.Add(1))
		if _, err := pg.admin.ExecContext(ctx, `CREATE DATABASE `+d.name+` TEMPLATE `+pg.template); err != nil {
			tb.Fatalf("storetest: create database: %v", err)
		}
	}
	tb.Cleanup(func() {
		if err := d.resetRows(ctx); err == nil {
			pg.mu.Lock()
			pg.free = append(pg.free, d)
			pg.mu.Unlock()
			return
		}
		if _, err := pg.admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+d.name+` WITH (FORCE)`); err != nil {
			tb.Errorf("storetest: drop database: %v", err)
		}
	})
	return pg.base + d.name
}

// PostgresAlone returns the URL of an empty database on a PostgreSQL
// server of tb's own, stopped when tb ends: for a test that measures the
// server as a whole (the WAL it writes), which other test processes
// sharing a server (make test's) would add to.
func PostgresAlone(tb testing.TB) string {
	tb.Helper()
	base, stop, err := startServer()
	if err != nil {
		tb.Fatalf("storetest: PostgreSQL: %v", err)
	}
	tb.Cleanup(stop)
	admin, err := sql.Open("pgx", base+"postgres")
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), `CREATE DATABASE studio`); err != nil {
		tb.Fatalf("storetest: create database: %v", err)
	}
	return base + "studio"
}

// resetRows empties every table of a database a test has used and puts
// back the rows the migrations wrote. A connection the test left inside a
// transaction makes it fail (after a second): the database is then
// dropped instead, its reset connection closed.
func (d *database) resetRows(ctx context.Context) error {
	if d.reset == nil {
		var err error
		if d.reset, err = sql.Open("pgx", pg.base+d.name); err != nil {
			return err
		}
		d.reset.SetMaxOpenConns(1)
		d.reset.SetMaxIdleConns(1)
	}
	_, err := d.reset.ExecContext(ctx, pg.reset)
	if err != nil {
		d.reset.Close()
	}
	return err
}

func startPostgres() error {
	pg.base = os.Getenv("STUDIO_TEST_POSTGRES")
	if pg.base == "" {
		var err error
		if pg.base, pg.stop, err = startServer(); err != nil {
			return err
		}
	}
	var err error
	if pg.admin, err = sql.Open("pgx", pg.base+"postgres"); err != nil {
		return err
	}
	pg.template = fmt.Sprintf("studio_%d_template", os.Getpid())
	ctx := context.Background()
	if _, err := pg.admin.ExecContext(ctx, `CREATE DATABASE `+pg.template); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	st, err := store.Open(ctx, pg.base+pg.template)
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	if pg.reset, err = resetSQL(ctx, pg.base+pg.template); err != nil {
		return fmt.Errorf("template: %w", err)
	}
	return nil
}

// resetSQL is the script that brings a database made from the template
// back to it: every table emptied (children before the tables their
// foreign keys name; DELETE, as the tables of a test are small, where
// TRUNCATE would make new files for every table and index), the identity
// counters restarted, then the rows the template holds (the migrations'
// versions, the system jobs) written again as they are there.
func resetSQL(ctx context.Context, template string) (string, error) {
	db, err := sql.Open("pgx", template)
	if err != nil {
		return "", err
	}
	defer db.Close()
	tables, err := column[string](ctx, db, `SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
	if err != nil {
		return "", err
	}
	edges, err := column[string](ctx, db, `SELECT conrelid::regclass::text || ' ' || confrelid::regclass::text
		FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid`)
	if err != nil {
		return "", err
	}
	sequences, err := column[string](ctx, db, `SELECT sequencename::text FROM pg_sequences WHERE schemaname = 'public'`)
	if err != nil {
		return "", err
	}
	script := "SET lock_timeout = '1s';\n"
	for left := tables; len(left) > 0; {
		var next []string
		for _, t := range left {
			referenced := false
			for _, e := range edges {
				child, parent, _ := strings.Cut(e, " ")
				referenced = referenced || parent == t && slices.Contains(left, child)
			}
			if referenced {
				next = append(next, t)
			} else {
				script += "DELETE FROM " + t + ";\n"
			}
		}
		if len(next) == len(left) {
			return "", fmt.Errorf("foreign keys in a cycle among %v", left)
		}
		left = next
	}
	for _, q := range sequences {
		script += "ALTER SEQUENCE " + q + " RESTART;\n"
	}
	for _, t := range tables {
		var data sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT json_agg(t)::text FROM `+t+` t`).Scan(&data); err != nil {
			return "", err
		}
		if data.Valid {
			script += "INSERT INTO " + t + " SELECT * FROM json_populate_recordset(NULL::" + t + ", '" +
				strings.ReplaceAll(data.String, "'", "''") + "');\n"
		}
	}
	return script, nil
}

// column is the first column of a query's rows.
func column[T any](ctx context.Context, db *sql.DB, q string) ([]T, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// startServer starts a throwaway PostgreSQL server for this process, as
// the user postgres when the process runs as root (the server refuses
// root), and returns its URL up to the database name.
// StartServer starts a throwaway PostgreSQL server (initdb in a temp
// folder, a free port on 127.0.0.1) and returns its URL without a
// database name, for STUDIO_TEST_POSTGRES, and a function that stops it
// and removes its files: for a run of several test processes that share
// one server (internal/testpg).
func StartServer() (url string, stop func(), err error) { return startServer() }

func startServer() (string, func(), error) {
	bin, err := postgresBin()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "studio-pg-")
	if err != nil {
		return "", nil, err
	}
	cred, err := serverUser(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	server := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=400")
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	server.Stdout, server.Stderr = logFile, logFile
	// Pdeathsig: a test process that dies takes its server with it.
	server.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := server.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	stop := func() {
		server.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			server.Process.Kill()
			<-exited
		}
		logFile.Close()
		os.RemoveAll(dir)
	}
	// Over its Unix socket: a test opens many short-lived connections.
	base := fmt.Sprintf("postgres://postgres@%s:%d/", url.PathEscape(dir), port)
	admin, err := sql.Open("pgx", base+"postgres")
	if err != nil {
		stop()
		return "", nil, err
	}
	defer admin.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			exited <- err
			stop()
			return "", nil, fmt.Errorf("postgres exited (%v): %s", err, log)
		default:
		}
		if err = admin.Ping(); err == nil {
			return base, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("postgres did not start in 30 s: %w", err)
		}
	}
}

// postgresBin is the folder of PostgreSQL's server programs: pg_config's
// answer, else the newest of Debian's /usr/lib/postgresql/*/bin.
func postgresBin() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := string(out[:len(out)-1])
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("no PostgreSQL server programs (initdb) found: install PostgreSQL (Debian: postgresql) or set STUDIO_TEST_POSTGRES to a server's URL ending in /")
}

// serverUser is who runs the server: this process's user, or, for root,
// postgres, given dir.
func serverUser(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the server needs the user postgres: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
