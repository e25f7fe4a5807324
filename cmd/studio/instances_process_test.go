package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// TestTwoInstancesShareOnePostgreSQLProcess starts two `studio serve` processes on
// one PostgreSQL database, as two instances behind a load balancer: the
// first seeds the demo, the second finds it (and seeds nothing). The second
// runs on a machine whose clock is 30 s fast (STUDIO_TEST_CLOCK_SKEW) and says
// so. A release already due when they start is published once by one of
// them; a release due at a coming minute is published once, and not before
// that minute, whichever instance runs it: the due check and the never-early
// guard follow the database's clock. Both public sites serve both.
func TestTwoInstancesShareOnePostgreSQLProcess(t *testing.T) {
	t.Parallel() // it mostly waits for a minute to come
	bin := buildBinary(t)
	db, st := seededDatabase(t, bin, true)

	// Made on a clock three minutes behind: due on the real clock the
	// instances use when they start, and they catch up as they start.
	clock := fakeclock.New(time.Now().Add(-3 * time.Minute))
	eng := releases.New(engine.New(st, clock, nil), st)
	site, editor := demoEditor(t, eng, st)
	due := scheduleArticle(t, eng, st, site, editor, "due-at-start", clock.Now().Add(2*time.Minute))
	// The first whole minute at least 31 s away on the real clock: the fast
	// machine, trusting its own clock, would run it 30 s early.
	minute := time.Now().Add(31 * time.Second).Truncate(time.Minute).Add(time.Minute)
	clock.Set(minute.Add(-90 * time.Second)) // a lead the engine accepts
	coming := scheduleArticle(t, eng, st, site, editor, "coming-minute", minute)

	var urls []string
	for i := range 2 {
		// Each instance has a data folder of its own: only the database is shared.
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--demo", "--data", t.TempDir(), "--database", db[3])
		if i == 1 {
			cmd.Env = append(os.Environ(), "STUDIO_TEST_CLOCK_SKEW=30s")
		}
		url, banner, _ := startServe(t, cmd)
		if strings.Contains(banner, "Seeded") {
			t.Errorf("instance %d seeded the demo into a database that held it:\n%s", i+1, banner)
		}
		if fast := strings.Contains(banner, "This machine's clock is 3") && strings.Contains(banner, "s ahead of the database's"); fast != (i == 1) {
			t.Errorf("instance %d's banner on the clocks (30 s fast: %v):\n%s", i+1, i == 1, banner)
		}
		urls = append(urls, url)
	}
	waitPublished(t, st, site.ID, due.ID, time.Now().Add(30*time.Second), "not published 30 s after two instances started")
	waitPublished(t, st, site.ID, coming.ID, minute.Add(30*time.Second), "not published 30 s after its minute")
	if seen := time.Now(); seen.Before(minute) {
		t.Fatalf("release %s was published by %s, before its minute %s", coming.ID, seen.Format(time.StampMilli), minute.Format(time.StampMilli))
	}
	for _, r := range []release.Release{due, coming} {
		if state := checkOnce(t, eng, st, site.ID, r.ID); state != release.StatePublished {
			t.Fatalf("release %s", state)
		}
	}
	for i, url := range urls {
		for _, slug := range []string{"due-at-start", "coming-minute"} {
			if code, body := get(t, url+"/posts/"+slug); code != 200 || !strings.Contains(body, "Article "+slug) {
				t.Errorf("instance %d serves the published %s: %d", i+1, slug, code)
			}
		}
	}
}
