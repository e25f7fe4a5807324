package store

import (
	"context"
	"errors"
	"fmt"
)

// ErrBackupByServer refuses a backup on PostgreSQL: its server's own tools
// (pg_dump, or the server's base backups) make consistent copies there.
var ErrBackupByServer = errors.New("a PostgreSQL database is backed up with pg_dump")

// BackupTo writes a consistent copy of the database to path, a file that
// must not exist yet, while Studio runs: SQLite's VACUUM INTO reads the
// database in one transaction, so the copy is one moment's state and the
// writers go on meanwhile. The copy is compact and needs no WAL beside it.
func (s *Store) BackupTo(ctx context.Context, path string) error {
	if s.pg {
		return ErrBackupByServer
	}
	if _, err := s.read.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("store: backup to %s: %w", path, err)
	}
	return nil
}
