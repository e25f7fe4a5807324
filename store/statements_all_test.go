package store_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/store"
	"studio/store/storetest"
)

// oneEngine are the functions whose statements are one engine's own SQL,
// sent as written, never through the other: they are prepared on that
// engine only. A function not named here whose statement one engine
// rejects fails TestEveryStatementCompiles.
var oneEngine = map[string]string{
	"Store.BackupTo":     "SQLite",     // VACUUM INTO: PostgreSQL is backed up with pg_dump
	"Restore":            "SQLite",     // PRAGMA wal_checkpoint, on the restored file
	"Store.DatabaseTime": "PostgreSQL", // clock_timestamp(): SQLite's clock is the machine's
	"Store.announce":     "PostgreSQL", // pg_notify: the instances' wake-ups
}

// unprepared are the built sites whose text is neither the shared SQL nor
// built from a caller's values, and why they need no variants here.
var unprepared = map[string]string{
	"Store.migrate":    "the migrations' scripts, each engine's own, sent verbatim: every test's database runs them",
	"Store.Generation": "generationSQL, each engine's own (PRAGMA data_version, pg_current_snapshot), run by every store's start",
	"Store.listen":     "LISTEN on pgx's own connection, PostgreSQL's own, run by every PostgreSQL store with wake-ups",
}

// builtVariants ask, for each function whose statement is built at run
// time from what it is given, every shape the statement takes, through the
// store's method: each filter on and off, IN lists of one to three. The
// answers do not matter (the database is empty); the texts sent do, and
// each is then prepared on both engines. Each returns how many distinct
// texts its site must have sent.
var builtVariants = map[string]func(ctx context.Context, st *store.Store) int{
	"Store.SiteAudit": func(ctx context.Context, st *store.Store) int {
		patterns := [][]string{nil, {"release.%"}, {"release.%", "node.%"}}
		for _, include := range patterns {
			for _, exclude := range patterns {
				for mask := range 1 << 3 {
					f := nodes.AuditFilter{SiteID: "site_x", Include: include, Exclude: exclude, Limit: 10}
					if mask&1 != 0 {
						f.ActorKind = "agent"
					}
					if mask&2 != 0 {
						f.ReleaseID = "rel_x"
					}
					if mask&4 != 0 {
						f.BeforeID = 7
					}
					st.SiteAudit(ctx, f)
				}
			}
		}
		return 3 * 3 * 1 << 3
	},
	"Store.Runs": func(ctx context.Context, st *store.Store) int {
		for mask := range 1 << 5 {
			f := automations.RunFilter{SiteID: "site_x", Limit: 10}
			if mask&1 != 0 {
				f.AutomationID = "auto_x"
			}
			if mask&2 != 0 {
				f.ReleaseID = "rel_x"
			}
			if mask&4 != 0 {
				f.State = "running"
			}
			if mask&8 != 0 {
				f.Outcome = "did-work"
			}
			if mask&16 != 0 {
				f.Before = &automations.RunPosition{OccurrenceAt: time.Unix(0, 0).UTC(), ID: "run_x"}
			}
			st.Runs(ctx, f)
		}
		return 1 << 5
	},
	"changeRelease": func(ctx context.Context, st *store.Store) int {
		from := []release.State{release.StateScheduled, release.StateAwaitingApproval, release.StateDraft}
		for n := 1; n <= len(from); n++ {
			st.ChangeRelease(ctx, releases.Change{ID: "rel_x", Rev: 1, From: from[:n], To: release.StateCanceled})
		}
		return 3
	},
	"Store.SaveFindings": func(ctx context.Context, st *store.Store) int {
		finding := func(key string) jobs.Finding {
			return jobs.Finding{AutomationID: "auto_x", Key: key, SiteID: "site_x", FirstAt: time.Unix(0, 0), LastAt: time.Unix(0, 0)}
		}
		st.SaveFindings(ctx, jobs.FindingsWrite{AutomationID: "auto_x", RunID: "run_x", Findings: []jobs.Finding{finding("a")}})
		st.SaveFindings(ctx, jobs.FindingsWrite{AutomationID: "auto_x", RunID: "run_x", Findings: []jobs.Finding{finding("a"), finding("b")}})
		return 2
	},
}

// statement is one text the store sends, and where from.
type statement struct {
	text, pos, fn string
}

// TestEveryStatementCompiles prepares every statement the store sends on
// SQLite and, in the PostgreSQL conformance run
// (STUDIO_TEST_DATABASE=postgres), rewritten, on PostgreSQL as well. The
// statements are found in the store's source (store.SourceSites: every
// text passed to a database/sql call, with every value its parts take),
// and a statement built at run time is asked in each of its shapes
// (builtVariants). Preparing compiles without running: SQLite resolves
// every table, column and function; PostgreSQL parses, resolves and types
// the parameters, as pgx does before it runs any statement (it prepares
// each one it sends). A statement one engine rejects fails here even if no
// test runs it.
//
// The PostgreSQL half runs in the conformance run only: the plain run needs
// no PostgreSQL server, and `make test` has both runs.
func TestEveryStatementCompiles(t *testing.T) {
	ctx := context.Background()
	var stmts []statement
	seen := map[string]bool{}
	add := func(s statement) {
		if !seen[s.text] {
			seen[s.text] = true
			stmts = append(stmts, s)
		}
	}
	sites := store.SourceSites(t)
	built := map[string]string{}
	for _, site := range sites {
		switch {
		case site.Why == "":
			for _, text := range site.Texts {
				add(statement{text, site.Pos, site.Func})
			}
		case unprepared[site.Func] != "":
		case builtVariants[site.Func] != nil:
			built[site.Func] = site.Pos
		default:
			t.Errorf("%s (%s): the statement is built at run time (from %s): add its shapes to builtVariants", site.Pos, site.Func, site.Why)
		}
	}
	for fn := range builtVariants {
		if built[fn] == "" {
			t.Errorf("builtVariants[%q]: no site of the store's source is built there any longer", fn)
		}
	}
	if len(sites) < 200 {
		t.Fatalf("the store's source sends %d statements: the parser lost them", len(sites))
	}

	sqlite := open(t, storetest.Path(t))
	for fn, ask := range builtVariants {
		var mu sync.Mutex
		texts := map[string]bool{}
		sqlite.Record(func(q string) {
			mu.Lock()
			defer mu.Unlock()
			texts[q] = true
		})
		want := ask(ctx, sqlite)
		sqlite.Record(nil)
		// The site's own texts among all those sent: those that no other
		// site sends as written.
		n := 0
		for q := range texts {
			if !seen[q] && !isFrame(q) {
				add(statement{q, built[fn], fn})
				n++
			}
		}
		if n != want {
			t.Errorf("builtVariants[%q] sent %d shapes of its statement, want %d", fn, n, want)
		}
	}

	engines := []struct {
		name string
		st   *store.Store
	}{{"SQLite", sqlite}}
	if storetest.OnPostgres() {
		engines = append(engines, struct {
			name string
			st   *store.Store
		}{"PostgreSQL", open(t, storetest.Postgres(t))})
	}
	for _, e := range engines {
		// One connection, with the temporary tables the store makes
		// (Retain's) made first, as the statements after them find them.
		conn, err := e.st.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, s := range stmts {
			if strings.HasPrefix(s.text, "CREATE TEMP TABLE") {
				if _, err := conn.ExecContext(ctx, s.text); err != nil {
					t.Errorf("%s (%s): %s: %v", s.pos, s.fn, e.name, err)
				}
			}
		}
		for _, s := range stmts {
			if only := oneEngine[s.fn]; only != "" && only != e.name {
				continue
			}
			text := s.text
			p, err := conn.PrepareContext(ctx, text)
			if err != nil {
				if e.name == "PostgreSQL" {
					text = store.PostgresSQL(text)
				}
				t.Errorf("%s (%s): %s does not take it: %v\n%s", s.pos, s.fn, e.name, err, text)
				continue
			}
			p.Close()
		}
		t.Logf("%s prepared %d statements", e.name, len(stmts))
	}
	for fn, only := range oneEngine {
		if !slices.ContainsFunc(sites, func(s store.SourceSite) bool { return s.Func == fn }) {
			t.Errorf("oneEngine[%q] (%s): the store's source has no such function", fn, only)
		}
	}
}

// isFrame tells the statements every write sends around its own (the
// liveness probe's and the like) from a built site's: they are sites of
// their own in the source.
func isFrame(q string) bool {
	return strings.HasPrefix(strings.TrimSpace(q), "PRAGMA")
}

func open(t *testing.T, address string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
