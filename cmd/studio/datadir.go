package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"studio/store"
)

// markerName is the file Studio leaves in a data folder when it creates the
// folder's database. A folder with the marker and without studio.db has
// lost its database: Studio does not quietly start an empty one there (and
// never seeds the demo, whose password is public, into it).
const markerName = ".studio-database"

// dataFolder is what opening a data folder found.
type dataFolder struct {
	dir string
	// created: this start created the database file.
	created bool
	// heldBefore: the folder had a database before this start (its marker),
	// even if the file is gone now.
	heldBefore bool
}

// openData adds --data and --fresh to the command's flags, parses args and
// opens the folder's database, creating it in a new folder. A folder whose
// database was lost is refused unless --fresh says to start an empty one;
// when *demo (nil: no demo) is set after parsing, such a folder is refused
// even then (demoSeed), before anything is created.
func openData(ctx context.Context, fs *flag.FlagSet, args []string, demo *bool) (*store.Store, dataFolder, error) {
	dir := fs.String("data", "./data", "folder of the database (studio.db)")
	fresh := fs.Bool("fresh", false, "start an empty database in a data folder whose studio.db is missing")
	database := fs.String("database", os.Getenv("STUDIO_DATABASE"),
		"a PostgreSQL database (postgres://user:password@host/name) instead of studio.db in --data; default $STUDIO_DATABASE")
	if err := fs.Parse(args); err != nil {
		return nil, dataFolder{}, err
	}
	f := dataFolder{dir: *dir}
	if *database != "" {
		return openPostgres(ctx, f, *database, demo)
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return nil, f, err
	}
	path, marker := filepath.Join(f.dir, "studio.db"), filepath.Join(f.dir, markerName)
	_, err := os.Stat(marker)
	f.heldBefore = err == nil
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if f.heldBefore && !*fresh {
			return nil, f, fmt.Errorf("the data folder %s held a Studio database, but %s is missing. "+
				"Restore it from a backup (with the server stopped), or start an empty database there with --fresh", f.dir, path)
		}
		f.created = true
	} else if err != nil {
		return nil, f, err
	}
	if demo != nil && *demo {
		if _, err := f.demoSeed(); err != nil {
			return nil, f, err
		}
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, f, err
	}
	if f.created || !f.heldBefore {
		note := "Studio created studio.db in this folder on " + time.Now().UTC().Format(time.RFC3339) + ".\n" +
			"If studio.db goes missing, Studio will not start an empty one here unless it is told --fresh.\n"
		if err := os.WriteFile(marker, []byte(note), 0o600); err != nil {
			st.Close()
			return nil, f, err
		}
	}
	return st, f, nil
}

// openPostgres opens a PostgreSQL database shared by every instance that
// names it. It counts as created while it holds neither a site nor a
// person: the demo may be seeded only then.
func openPostgres(ctx context.Context, f dataFolder, address string, demo *bool) (*store.Store, dataFolder, error) {
	if !store.IsPostgres(address) {
		return nil, f, fmt.Errorf("--database takes a postgres:// URL (SQLite is the file studio.db in --data)")
	}
	st, err := store.Open(ctx, address)
	if err != nil {
		return nil, f, err
	}
	installed, err := st.Installed(ctx)
	f.created = !installed
	if err != nil {
		st.Close()
		return nil, f, err
	}
	return st, f, nil
}

// demoSeed says whether the demo may be seeded here: only into a database
// this start created, in a folder that never held one, since the demo's
// accounts share a public password. A folder that held a database before
// and was started fresh is refused with an error; an existing database is
// simply not seeded (false, nil).
func (f dataFolder) demoSeed() (bool, error) {
	switch {
	case f.created && f.heldBefore:
		return false, fmt.Errorf("not seeding the demo: the data folder %s held a Studio database before, and the demo's "+
			"accounts share a public password. Restore studio.db from a backup, or use a new folder for the demo", f.dir)
	case !f.created:
		return false, nil
	}
	return true, nil
}
