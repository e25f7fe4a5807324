// Package storetest gives tests a fresh database with every migration
// applied: a SQLite file copied from one migrated in this process (under
// -race, parsing the migrations for every test's database was the largest
// single cost of the suite), or a PostgreSQL database (postgres.go).
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"studio/store"
)

var migrated struct {
	once  sync.Once
	bytes []byte
	err   error
}

// Path returns the path of a new database file in tb's temp dir, with
// every migration applied and nothing else in it.
func Path(tb testing.TB) string {
	tb.Helper()
	migrated.once.Do(func() { migrated.bytes, migrated.err = migrate() })
	if migrated.err != nil {
		tb.Fatal(migrated.err)
	}
	path := filepath.Join(tb.TempDir(), "studio.db")
	if err := os.WriteFile(path, migrated.bytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// migrate opens a store (which migrates it) and copies it with VACUUM INTO,
// a consistent file of its own whatever is still in the write-ahead log.
func migrate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "studio-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "migrating.db"))
	if err != nil {
		return nil, err
	}
	copied := filepath.Join(dir, "migrated.db")
	_, err = st.DB().ExecContext(ctx, `VACUUM INTO ?`, copied)
	st.Close()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(copied)
}
