package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestKeptStatementsNest: a connection keeps its prepared statements by
// text, and a statement asked again while its own rows are still open
// (a query inside another's rows, on the one connection of a
// transaction) is prepared anew, so neither answer is disturbed, and one
// whose rows are open is never let go to make room; a statement kept from
// before sees the rows written since.
func TestKeptStatementsNest(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT value FROM json_each(?) ORDER BY value`
	outer, err := tx.QueryContext(ctx, q, `[1, 2, 3]`)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var v int
		if err := outer.Scan(&v); err != nil {
			t.Fatal(err)
		}
		var inner int
		if err := tx.QueryRowContext(ctx, q, `[10]`).Scan(&inner); err != nil || inner != 10 {
			t.Fatalf("the same statement inside its own rows: %d %v", inner, err)
		}
		// More new statements than a connection keeps: the ones it lets go
		// are never the outer rows'.
		for i := range maxCachedStmts + 10 {
			if err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d + ?`, i), v).Scan(&inner); err != nil || inner != i+v {
				t.Fatalf("statement %d inside the rows: %d %v", i, inner, err)
			}
		}
		got = append(got, v)
	}
	if err := outer.Close(); err != nil || len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("the outer rows: %v %v", got, err)
	}
	count := func() int {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM instance_facts`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	if _, err := tx.ExecContext(ctx, `INSERT INTO instance_facts (name, value, updated_at) VALUES ('x', 'y', 'z')`); err != nil {
		t.Fatal(err)
	}
	if after := count(); after != before+1 {
		t.Fatalf("a kept count statement reads %d after an insert, want %d", after, before+1)
	}
}
