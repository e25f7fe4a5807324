package store

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The migrations are one numbered list for both engines. A version is a
// file in migrations/, in SQL both engines run, or with its PostgreSQL
// spelling beside it in migrations/postgres/ under the same name. The
// first file there (0032) is the whole schema as SQLite's first 32
// versions built it: PostgreSQL databases begin at it.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

type migration struct {
	version int
	name    string
	script  string
}

// migrationList is the list in order for one engine.
func migrationList(pg bool) ([]migration, error) {
	shared, err := migrationFiles("migrations")
	if err != nil {
		return nil, err
	}
	if !pg {
		return shared, nil
	}
	own, err := migrationFiles("migrations/postgres")
	if err != nil || len(own) == 0 {
		return nil, fmt.Errorf("store: no PostgreSQL migrations: %v", err)
	}
	byVersion := map[int]migration{}
	for _, m := range shared {
		if m.version > own[0].version {
			byVersion[m.version] = m
		}
	}
	for _, m := range own {
		byVersion[m.version] = m
	}
	list := make([]migration, 0, len(byVersion))
	for _, m := range byVersion {
		list = append(list, m)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].version < list[j].version })
	return list, nil
}

func migrationFiles(dir string) ([]migration, error) {
	names, err := fs.Glob(migrations, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	list := make([]migration, 0, len(names))
	for _, name := range names {
		version, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("store: migration %s: bad name", name)
		}
		script, err := migrations.ReadFile(name)
		if err != nil {
			return nil, err
		}
		list = append(list, migration{version, name, string(script)})
	}
	return list, nil
}
