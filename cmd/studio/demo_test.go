package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/calendar"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/identity"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
)

func init() {
	// The browser tests walk a newcomer's path from an empty calendar and
	// add the schedules they need themselves; TestDemoSchedules seeds the
	// demo's own.
	demoSchedules = false
}

// TestDemoSchedules: `studio demo` and the first `make run` give the
// calendar life over the coming weeks: two automations, ten releases (two
// waiting for approval), an embargo and a take-down, none of them due now.
func TestDemoSchedules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "studio.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC) // Monday, 08:00 in Istanbul
	eng := releases.New(engine.New(st, fakeclock.New(now), nil), st)
	if seeded, err := seedDemo(ctx, eng, st); err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	sites, err := eng.Sites(ctx)
	must(t, err)
	site := sites[0]
	var users []engine.User
	people := identity.New(eng, st, nil)
	for _, u := range demoUsers {
		found, err := people.SignIn(ctx, identity.SignInTry{Email: u.email, Password: demoPassword})
		must(t, err)
		found, err = people.OnSite(ctx, found, site.ID)
		must(t, err)
		users = append(users, found)
	}
	// The README's first steps: the contributor may ask for either draft
	// (own-level scopes reach only their own nodes, §10.1).
	list, err := nodes.New(eng, st).Nodes(ctx, engine.Reader(site.ID), site.ID)
	must(t, err)
	drafts := 0
	for _, n := range list {
		if n.Body.Status == content.StatusDraft && n.Kind == release.KindContentEntry {
			drafts++
			if !eng.NodeAbilities(users[2], n).Schedule {
				t.Errorf("the demo contributor may not schedule the draft %q", n.Body.Title)
			}
		}
	}
	if drafts < 2 {
		t.Errorf("the demo has %d draft articles, want the two the README names", drafts)
	}
	must(t, seedDemoSchedules(ctx, eng, st, site, users[0], users[1], users[2]))

	automations, err := st.Automations(ctx, site.ID)
	if err != nil || len(automations) != 2 {
		t.Fatalf("automations %v, %v", automations, err)
	}
	// The demo site is Turkish first, so its automations have Turkish names.
	names := map[string]bool{}
	for _, a := range automations {
		names[a.Name] = true
	}
	for _, want := range []string{"Kırık bağlantı taraması", "Eskimiş içerik taraması"} {
		if !names[want] {
			t.Errorf("no demo automation named %q (names: %v)", want, names)
		}
	}
	loc, err := localtime.LoadZone(site.TimeZone)
	must(t, err)
	from, _ := localtime.Resolve(localtime.Wall{Year: 2026, Month: 11, Day: 2}, loc)
	page, err := calendar.New(st, nil, fakeclock.New(now), nil).Calendar(ctx, users[1], calendar.CalendarQuery{SiteID: site.ID, From: from, To: from.AddDate(0, 0, 31)})
	must(t, err)
	kinds, waiting := map[string]int{}, 0
	for _, it := range page.Items {
		kinds[it.Kind]++
		if it.Approval == calendar.ApprovalPending {
			waiting++
		}
		if !it.At.After(now) && it.Kind != calendar.ItemAutomation {
			t.Errorf("%s (%s) is not in the future", it.Title, it.At)
		}
	}
	// Publishes: seven articles and the report; a release of two; the
	// campaign taken down; the report's embargo; 30 daily reviews (not
	// this morning's: it was before the automation) and four Monday sweeps.
	want := map[string]int{calendar.ItemPublish: 8, calendar.ItemRelease: 1, calendar.ItemExpiry: 1, calendar.ItemEmbargo: 1,
		calendar.ItemAutomation: 30 + 4}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s items, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if waiting != 2 {
		t.Errorf("%d waiting for approval, want 2", waiting)
	}
	if rep, err := scheduler.New(eng, st, nil).RunDue(ctx, "test"); err != nil || rep.Ran != 0 {
		t.Errorf("the seeded schedules ran at once: %+v %v", rep, err)
	}
}
