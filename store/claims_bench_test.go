package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"studio/store/storetest"
)

// BenchmarkClaim (issue 16) measures two ways for several instances on one
// PostgreSQL database to claim due work, at the SQL level, three claimers
// (each its own connection, as instances) taking 1,000 due rows:
//
//   - leases: what Studio does. A claimer reads due rows and claims each
//     with a guarded UPDATE (… AND state = 'due'), in a write transaction
//     behind the one advisory lock every Studio write takes; a claim
//     another got first changes no row (a conflict, counted).
//   - skip-locked: each claim is SELECT … FOR UPDATE SKIP LOCKED LIMIT 1
//     and its UPDATE in one transaction, without the advisory lock.
//
// ns/op is the time to claim all 1,000 rows.
func BenchmarkClaim(b *testing.B) {
	const rows, claimers = 1000, 3
	address := storetest.Postgres(b)
	ctx := context.Background()
	open := func() *sql.DB {
		db, err := sql.Open("pgx", address)
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		b.Cleanup(func() { db.Close() })
		return db
	}
	admin := open()
	must := func(_ sql.Result, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(admin.ExecContext(ctx, `CREATE TABLE claim_bench (id INT PRIMARY KEY, state TEXT NOT NULL, token TEXT)`))
	b.Cleanup(func() { admin.ExecContext(ctx, `DROP TABLE claim_bench`) })
	reset := func() {
		must(admin.ExecContext(ctx, `TRUNCATE claim_bench`))
		must(admin.ExecContext(ctx, `INSERT INTO claim_bench SELECT g, 'due', NULL FROM generate_series(1, $1) g`, rows))
	}
	dbs := make([]*sql.DB, claimers)
	for i := range dbs {
		dbs[i] = open()
	}

	leases := func(db *sql.DB, me string, conflicts *atomic.Int64) error {
		for {
			var due []int
			rs, err := db.QueryContext(ctx, `SELECT id FROM claim_bench WHERE state = 'due' ORDER BY id LIMIT 50`)
			if err != nil {
				return err
			}
			for rs.Next() {
				var id int
				if err := rs.Scan(&id); err != nil {
					return err
				}
				due = append(due, id)
			}
			rs.Close()
			if len(due) == 0 {
				return nil
			}
			for _, id := range due {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(91754604586863)`); err != nil {
					tx.Rollback()
					return err
				}
				res, err := tx.ExecContext(ctx, `UPDATE claim_bench SET state = 'claimed', token = $1 WHERE id = $2 AND state = 'due'`, me, id)
				if err != nil {
					tx.Rollback()
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 {
					conflicts.Add(1)
				}
				if err := tx.Commit(); err != nil {
					return err
				}
			}
		}
	}
	skipLocked := func(db *sql.DB, me string, _ *atomic.Int64) error {
		for {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			var id int
			err = tx.QueryRowContext(ctx, `SELECT id FROM claim_bench WHERE state = 'due' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&id)
			if err == sql.ErrNoRows {
				return tx.Rollback()
			}
			if err == nil {
				_, err = tx.ExecContext(ctx, `UPDATE claim_bench SET state = 'claimed', token = $1 WHERE id = $2`, me, id)
			}
			if err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		}
	}

	for _, way := range []struct {
		name  string
		claim func(*sql.DB, string, *atomic.Int64) error
	}{{"leases", leases}, {"skip-locked", skipLocked}} {
		b.Run(way.name, func(b *testing.B) {
			var conflicts atomic.Int64
			for b.Loop() {
				b.StopTimer()
				reset()
				b.StartTimer()
				var wg sync.WaitGroup
				errs := make([]error, claimers)
				for i, db := range dbs {
					wg.Add(1)
					go func() { defer wg.Done(); errs[i] = way.claim(db, fmt.Sprint("claimer-", i), &conflicts) }()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			var claimed, owners int
			if err := admin.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT token) FROM claim_bench WHERE state = 'claimed'`).Scan(&claimed, &owners); err != nil {
				b.Fatal(err)
			}
			if claimed != rows {
				b.Fatalf("%d of %d rows claimed", claimed, rows)
			}
			b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflicts/op")
			b.ReportMetric(float64(owners), "claimers-with-work")
		})
	}
}
