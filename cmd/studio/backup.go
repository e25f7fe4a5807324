package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"studio/store"
)

// backupCmd is `studio backup --to FILE`: a consistent copy of the data
// folder's database, made while Studio runs. On PostgreSQL it says how to
// use pg_dump instead.
func backupCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	to := fs.String("to", "", "the backup file to write (it must not exist yet)")
	dir := fs.String("data", "./data", "the data folder whose studio.db is copied")
	database := fs.String("database", os.Getenv("STUDIO_DATABASE"), "a PostgreSQL database: then this says how to back it up with pg_dump")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *database != "" {
		return fmt.Errorf("%w: pg_dump --format=custom --file FILE \"$STUDIO_DATABASE\", and to restore, into a new empty database: "+
			"pg_restore --no-owner --dbname NEW_DATABASE_URL FILE", store.ErrBackupByServer)
	}
	if *to == "" {
		return errors.New("give the backup file: --to FILE")
	}
	if _, err := os.Stat(*to); err == nil {
		return fmt.Errorf("%s exists already: a backup never overwrites a file", *to)
	}
	path := filepath.Join(*dir, "studio.db")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no Studio database to back up in %s: %w", *dir, err)
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	began := time.Now()
	if err := st.BackupTo(ctx, *to); err != nil {
		return err
	}
	info, err := os.Stat(*to)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Backed up %s to %s (%d KB in %s). Restore it into a new folder with\n  studio restore --from %s --data NEW_FOLDER\n",
		path, *to, info.Size()/1024, time.Since(began).Round(time.Millisecond), *to)
	return nil
}

// restoreCmd is `studio restore --from FILE --data DIR`: a backup becomes
// the database of a folder that has none, once store.Restore has checked
// it.
func restoreCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	from := fs.String("from", "", "the backup file (studio backup --to)")
	dir := fs.String("data", "", "the data folder to restore into; it must hold no studio.db")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || *dir == "" {
		return errors.New("usage: studio restore --from FILE --data FOLDER")
	}
	path := filepath.Join(*dir, "studio.db")
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	if err := store.Restore(ctx, *from, path); err != nil {
		return err
	}
	note := "Studio restored studio.db here from " + *from + " on " + time.Now().UTC().Format(time.RFC3339) + ".\n"
	if err := os.WriteFile(filepath.Join(*dir, markerName), []byte(note), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Restored %s into %s. Start Studio on it with\n  studio serve --data %s\n", *from, path, *dir)
	return nil
}
