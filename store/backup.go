package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrBackupByServer refuses a backup on PostgreSQL: its server's own tools
// (pg_dump, or the server's base backups) make consistent copies there.
var ErrBackupByServer = errors.New("a PostgreSQL database is backed up with pg_dump")

// ErrNotABackup refuses to restore a file that is no Studio database, or
// one that holds no site.
var ErrNotABackup = errors.New("not a Studio backup")

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

// ErrRestoreTarget refuses a restore into a place that holds a database:
// path itself, or the WAL files of one moved away while it was open, which
// SQLite would replay onto the restored file.
var ErrRestoreTarget = errors.New("the folder holds a database")

// Restore makes the backup file from the SQLite database at path, which
// must not exist. The copy is checked first, beside path: it must open as a
// Studio database (which brings an older backup's schema up to date) and
// hold a site. Only then, whole in its main file, is it linked in as path,
// which fails if something took that name meanwhile: path is either the
// checked database or what was there, never a mix.
func Restore(ctx context.Context, from, path string) error {
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Lstat(f); err == nil {
			return fmt.Errorf("%w: %s exists (stop Studio and move it away first)", ErrRestoreTarget, f)
		}
	}
	staging := path + ".restoring"
	if same(from, staging) {
		return fmt.Errorf("%s is the copy a restore cut short left: copy it elsewhere and restore from there", from)
	}
	clean := func() { // also what a restore cut short left
		for _, f := range []string{staging, staging + "-wal", staging + "-shm"} {
			os.Remove(f)
		}
	}
	clean()
	defer clean()
	if err := copyFile(from, staging); err != nil {
		return err
	}
	st, err := Open(ctx, staging)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotABackup, from, err)
	}
	installed, err := st.Installed(ctx)
	if err == nil {
		_, err = st.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	st.Close()
	if err != nil {
		return err
	}
	if !installed {
		return fmt.Errorf("%w: %s holds no Studio site", ErrNotABackup, from)
	}
	if err := os.Link(staging, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// same says whether a and b name one existing file.
func same(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// copyFile copies src to dst, which must not exist, and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
