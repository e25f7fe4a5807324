package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

type sqliteCoded int

func (c sqliteCoded) Error() string { return fmt.Sprintf("sqlite %d", int(c)) }
func (c sqliteCoded) Code() int     { return int(c) }

// TestIsDiskFull: the three ways a write says it found no space, and what
// is not one.
func TestIsDiskFull(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("store: commit: %w", sqliteCoded(13)), true}, // SQLITE_FULL
		{&os.PathError{Op: "write", Path: "studio.db-wal", Err: syscall.ENOSPC}, true},
		{&pgconn.PgError{Code: "53100", Message: "could not extend file"}, true}, // disk_full
		{sqliteCoded(8), false}, // SQLITE_READONLY
		{sqliteCoded(5), false}, // SQLITE_BUSY
		{&pgconn.PgError{Code: "25006"}, false},
		{errors.New("database or disk is full"), false}, // words alone are no code
		{nil, false},
	} {
		if got := isDiskFull(c.err); got != c.want {
			t.Errorf("isDiskFull(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
