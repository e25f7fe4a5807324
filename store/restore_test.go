package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/store"
)

// TestRestore: only a Studio database with a site is restored; a text
// file and a Studio database without a site are refused, leaving neither
// the database nor the staging copy behind. Nothing is restored where a
// database or its WAL is, nor from the staging copy itself. A good backup
// becomes the database, whole in its one file, and opens with its site.
// (SQLite only: PostgreSQL is restored with pg_restore.)
func TestRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(name string) *store.Store {
		t.Helper()
		st, err := store.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	empty := open("empty.db") // the schema, and no site
	empty.Close()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := open("source.db")
	site, err := engine.New(src, fakeclock.New(start), nil).CreateSite(ctx, "Demo Gazette", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, "backup.db")
	if err := src.BackupTo(ctx, backup); err != nil {
		t.Fatal(err)
	}
	src.Close()

	target := filepath.Join(t.TempDir(), "studio.db")
	for _, bad := range []string{text, filepath.Join(dir, "empty.db")} {
		if err := store.Restore(ctx, bad, target); !errors.Is(err, store.ErrNotABackup) {
			t.Errorf("restore of %s: %v, want ErrNotABackup", filepath.Base(bad), err)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(target), "*")); len(left) != 0 {
			t.Errorf("a refused restore left %v", left)
		}
	}
	// The WAL of a database moved away while open would be replayed onto
	// the restored one: refused, as is restoring over a database.
	if err := os.WriteFile(target+"-wal", []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(ctx, backup, target); !errors.Is(err, store.ErrRestoreTarget) {
		t.Errorf("restore beside an old WAL: %v, want ErrRestoreTarget", err)
	}
	if err := os.Remove(target + "-wal"); err != nil {
		t.Fatal(err)
	}
	// A copy a restore cut short left is never taken for its own staging
	// copy (which Restore removes first).
	leftover := target + ".restoring"
	if err := os.WriteFile(leftover, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(ctx, leftover, target); err == nil {
		t.Error("a restore from its own staging copy went ahead")
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Errorf("the restore removed its source: %v", err)
	}
	if err := os.Remove(leftover); err != nil {
		t.Fatal(err)
	}

	if err := store.Restore(ctx, backup, target); err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(ctx, backup, target); !errors.Is(err, store.ErrRestoreTarget) {
		t.Errorf("restore over the restored database: %v, want ErrRestoreTarget", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(target), "*")); len(left) != 1 {
		t.Errorf("after the restore the folder holds %v, want studio.db alone", left)
	}
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.Site(ctx, site.ID); err != nil || got.Name != "Demo Gazette" {
		t.Fatalf("the restored site: %+v %v", got, err)
	}
}
