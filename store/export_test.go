package store

import (
	"context"
	"database/sql"
	"testing"
)

// AddressClashQuery is addressClashQuery, for the plan test on PostgreSQL
// (an external test: storetest imports this package).
const AddressClashQuery = addressClashQuery

// DueWorkQuery and PublishLatenessQuery are the ticker's and the status's
// reads, for their plan test on PostgreSQL.
const (
	DueWorkQuery         = dueWorkSQL
	PublishLatenessQuery = publishLatenessQuery
)

// WriteHeld runs a write transaction with the lock a publish of siteID
// takes ("" for any other write), closes began once it holds it, and ends
// when release is closed: for the test of who waits for whom.
func (s *Store) WriteHeld(ctx context.Context, siteID string, began chan<- struct{}, release <-chan struct{}) error {
	if siteID != "" {
		ctx = forSite(ctx, siteID)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE instance_facts SET value = value WHERE name = 'none'`); err != nil {
			return err
		}
		close(began)
		<-release
		return nil
	})
}

// ProbeSpace is probeSpace, for its test on both databases.
func (s *Store) ProbeSpace(ctx context.Context) error { return s.probeSpace(ctx) }

// SourceSite is a place in the store's source that sends a statement, with
// every text it sends (sqlsource_test.go).
type SourceSite = sourceSite

// SourceSites are the statements the store's source sends.
func SourceSites(tb testing.TB) []SourceSite { return storeSites(tb, sourceParts()) }

// Record has f told the text of every statement s sends from now on; nil
// stops it.
func (s *Store) Record(f func(q string)) {
	if f == nil {
		s.meter.record.Store(nil)
		return
	}
	s.meter.record.Store(&f)
}

// PostgresSQL is a statement's text as the store sends it to PostgreSQL.
func PostgresSQL(q string) string { return postgresSQL(q) }
