package main

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/store"
	"studio/store/storetest"
)

// TestKilledTickersPublishOnceProcess runs real `studio schedules run-due`
// processes against one database while a release is due, kills them with
// SIGKILL at random moments (before, during or after their tick), and checks
// that the release is published at most once, never half, and that a later
// tick finishes whatever a killed one left: never twice, nothing lost.
//
// It runs on both engines: on PostgreSQL the processes share a database
// of a throwaway server (store/storetest) as several instances would.
func TestKilledTickersPublishOnceProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			killTickers(t, bin, engine == "PostgreSQL")
		})
	}
}

func killTickers(t *testing.T, bin string, postgres bool) {
	ctx := context.Background()
	db, st := seededDatabase(t, bin, postgres)
	runDue := append([]string{"schedules", "run-due"}, db...)

	// Releases are made on a clock three minutes behind, so that their minute
	// has already come on the real clock the processes use.
	clock := fakeclock.New(time.Now().Add(-3 * time.Minute))
	eng := releases.New(engine.New(st, clock, nil), st)
	site, editor := demoEditor(t, eng, st)
	loc, _ := localtime.LoadZone(site.TimeZone)
	rng := rand.New(rand.NewPCG(7, 11))

	const rounds = 20
	outcomes := map[string]int{}
	for round := range rounds {
		n, err := nodes.New(eng, st).CreateNode(ctx, editor, site.ID, release.KindContentEntry,
			content.Body{Title: "Crash test", Slug: "crash-" + string(rune('a'+round)), Status: content.StatusDraft})
		if err != nil {
			t.Fatal(err)
		}
		at := clock.Now().Add(2 * time.Minute).In(loc) // whole minutes: 1–2 min ahead
		r, err := eng.ScheduleNode(ctx, editor, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: at.Format("2006-01-02"), Time: at.Format("15:04")})
		if err != nil {
			t.Fatal(err)
		}

		var wg sync.WaitGroup
		for range 3 {
			cmd := exec.Command(bin, runDue...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			delay := time.Duration(20+rng.IntN(300)) * time.Millisecond // a run takes ~80 ms alone
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(delay)
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
			}()
		}
		wg.Wait()

		state := checkOnce(t, eng, st, site.ID, r.ID)
		outcomes[string(state)]++
		if state != release.StatePublished {
			if state == release.StateRunning {
				// A killed tick holds the lease; let it lapse as ten minutes would.
				if _, err := st.DB().Exec(`UPDATE releases SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = ?`, r.ID); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := exec.Command(bin, runDue...).CombinedOutput(); err != nil {
				t.Fatalf("run-due: %v %s", err, out)
			}
			if got := checkOnce(t, eng, st, site.ID, r.ID); got != release.StatePublished {
				t.Fatalf("round %d: after recovery the release is %s", round, got)
			}
		}
	}
	t.Logf("states right after the kills, over %d rounds: %v", rounds, outcomes)
}

// waitPublished waits until the release is published, failing the test,
// with what, if it is not by deadline.
func waitPublished(t *testing.T, st *store.Store, siteID, id string, deadline time.Time, what string) {
	t.Helper()
	for {
		got, err := st.Release(context.Background(), siteID, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == release.StatePublished {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("release %s is %s: %s", id, got.State, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkOnce asserts that a release's effect exists at most once and only
// together with its published state; it returns the state.
func checkOnce(t *testing.T, eng *releases.Releases, st *store.Store, siteID, id string) release.State {
	t.Helper()
	r, err := eng.Release(context.Background(), engine.Reader(siteID), siteID, id)
	if err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var n int
		if err := st.DB().QueryRow(q, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	snaps := count(`SELECT count(*) FROM snapshots WHERE json_extract(metadata, '$."studio.release"') = ?`)
	audits := count(`SELECT count(*) FROM audit WHERE action = 'release.publish' AND release_id = ?`)
	runs := count(`SELECT count(*) FROM schedule_runs WHERE subject_id = ? AND state = 'succeeded'`)
	want := 0
	if r.State == release.StatePublished {
		want = 1
	}
	if snaps != want || audits != want || runs != want {
		t.Fatalf("release %s is %s with %d snapshots, %d publish audits, %d succeeded runs (want %d each)",
			id, r.State, snaps, audits, runs, want)
	}
	return r.State
}

// seededData seeds the demo into a new data folder with the binary, as an
// operator would, and opens its database for the test (closed at its end).
func seededData(t *testing.T, bin string) (string, *store.Store) {
	t.Helper()
	db, st := seededDatabase(t, bin, false)
	return db[1], st
}

// demoEditor is the demo's site and its Editor, acting on it.
func demoEditor(t *testing.T, eng *releases.Releases, st *store.Store) (engine.Site, engine.User) {
	t.Helper()
	ctx := context.Background()
	sites, err := eng.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	editor, _, err := st.UserByEmail(ctx, "editor@demo.test")
	if err != nil {
		t.Fatal(err)
	}
	editor.SiteID = sites[0].ID
	return sites[0], editor
}

// seededDatabase seeds the demo with the binary, as an operator would, into
// a new data folder or a new PostgreSQL database, and returns the flags
// that name it to the binary and the store opened on it for the test.
func seededDatabase(t *testing.T, bin string, postgres bool) ([]string, *store.Store) {
	t.Helper()
	db, address := []string{"--data", t.TempDir()}, ""
	if postgres {
		address = storetest.Postgres(t)
		db = append(db, "--database", address)
	} else {
		address = filepath.Join(db[1], "studio.db")
	}
	if out, err := exec.Command(bin, append([]string{"demo"}, db...)...).CombinedOutput(); err != nil {
		t.Fatalf("demo: %v %s", err, out)
	}
	st, err := store.Open(context.Background(), address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return db, st
}

// scheduleArticle makes a draft article with slug on site and schedules it
// for the minute of at in the site's zone (the engine's clock must be a
// minute or more before it).
func scheduleArticle(t *testing.T, eng *releases.Releases, st *store.Store, site engine.Site, editor engine.User, slug string, at time.Time) release.Release {
	t.Helper()
	ctx := context.Background()
	n, err := nodes.New(eng, st).CreateNode(ctx, editor, site.ID, release.KindContentEntry,
		content.Body{Title: "Article " + slug, Slug: slug, Status: content.StatusDraft, Text: "Once."})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := localtime.LoadZone(site.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	at = at.In(loc)
	r, err := eng.ScheduleNode(ctx, editor, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
		Date: at.Format("2006-01-02"), Time: at.Format("15:04")})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
