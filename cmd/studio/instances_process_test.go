package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/localtime"
	"studio/engine/release"
)

// TestTwoInstancesShareOnePostgreSQL starts two `studio serve` processes on
// one PostgreSQL database, as two instances behind a load balancer: the
// first seeds the demo, the second finds it (and seeds nothing), a release
// already due when they start is published once by one of them, and both
// public sites serve it.
func TestTwoInstancesShareOnePostgreSQL(t *testing.T) {
	bin := buildBinary(t)
	ctx := context.Background()
	db, st := seededDatabase(t, bin, true)

	// Made on a clock three minutes behind: due on the real clock the
	// instances use when they start, and they catch up as they start.
	clock := fakeclock.New(time.Now().Add(-3 * time.Minute))
	eng := engine.New(st, clock, nil)
	site, editor := demoEditor(t, eng, st)
	n, err := eng.CreateNode(ctx, editor, site.ID, release.KindContentEntry,
		content.Body{Title: "Two instances", Slug: "two-instances", Status: content.StatusDraft, Text: "Once."})
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := localtime.LoadZone(site.TimeZone)
	at := clock.Now().Add(2 * time.Minute).In(loc)
	r, err := eng.ScheduleNode(ctx, editor, engine.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
		Date: at.Format("2006-01-02"), Time: at.Format("15:04")})
	if err != nil {
		t.Fatal(err)
	}

	var urls []string
	for i := range 2 {
		// Each instance has a data folder of its own: only the database is shared.
		url, banner, _ := startServe(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--demo",
			"--data", t.TempDir(), "--database", db[3]))
		if strings.Contains(banner, "Seeded") {
			t.Errorf("instance %d seeded the demo into a database that held it:\n%s", i+1, banner)
		}
		urls = append(urls, url)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, err := st.Release(ctx, site.ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == release.StatePublished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("release %s is %s 30 s after two instances started", r.ID, got.State)
		}
	}
	if state := checkOnce(t, eng, st, site.ID, r.ID); state != release.StatePublished {
		t.Fatalf("release %s", state)
	}
	for i, url := range urls {
		if code, body := get(t, url+"/posts/two-instances"); code != 200 || !strings.Contains(body, "Two instances") {
			t.Errorf("instance %d serves the published article: %d", i+1, code)
		}
	}
}
