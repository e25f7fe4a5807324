package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"studio/engine"
	"studio/engine/identity"
	"studio/engine/releases"
	"studio/store"
	"testing"
)

// `studio schedules list` names every release still to happen and every
// automation with its next run (--json for scripts); `status` counts the
// automations too.
func TestSchedulesListAndStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	if err := run(ctx, []string{"demo", "--data", data}, nil, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	// The tests' demo leaves the calendar empty (demo_test.go): fill it as
	// `make run`'s does.
	st, err := store.Open(ctx, filepath.Join(data, "studio.db"))
	must(t, err)
	eng := releases.New(engine.New(st, systemClock{}, nil), st)
	sites, err := eng.Sites(ctx)
	must(t, err)
	var users []engine.User
	for _, u := range demoUsers {
		people := identity.New(eng, st, nil)
		found, err := people.SignIn(ctx, identity.SignInTry{Email: u.email, Password: demoPassword})
		must(t, err)
		found, err = people.OnSite(ctx, found, sites[0].ID)
		must(t, err)
		users = append(users, found)
	}
	must(t, seedDemoSchedules(ctx, eng, st, sites[0], users[0], users[1], users[2]))
	must(t, st.Close())
	var out strings.Builder
	if err := run(ctx, []string{"schedules", "list", "--json", "--data", data}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Sites []struct {
			Name        string
			Releases    []struct{ ID, State, ExecuteAt string }
			Automations []struct {
				ID, Job, State, NextRunAt string
			}
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(got.Sites) != 1 || got.Sites[0].Name != "Demo Gazette" {
		t.Fatalf("sites %+v", got.Sites)
	}
	s := got.Sites[0]
	waiting := 0
	for _, r := range s.Releases {
		if r.State == "awaiting_approval" {
			waiting++
		}
		if r.ExecuteAt == "" {
			t.Errorf("release %s has no time", r.ID)
		}
	}
	if len(s.Releases) != 10 || waiting != 2 {
		t.Errorf("%d releases, %d waiting; want the demo's 10, 2 waiting", len(s.Releases), waiting)
	}
	jobs := map[string]bool{}
	for _, a := range s.Automations {
		if a.State != "active" || a.NextRunAt == "" {
			t.Errorf("automation %+v, want active with a next run", a)
		}
		jobs[a.Job] = true
	}
	if len(s.Automations) != 2 || !jobs["builtin:broken-links"] || !jobs["builtin:stale-content"] {
		t.Errorf("automations %+v, want the demo's two", s.Automations)
	}

	out.Reset()
	if err := run(ctx, []string{"schedules", "list", "--data", data}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	if text := out.String(); !strings.Contains(text, "releases not finished: 10") || !strings.Contains(text, "Kırık bağlantı taraması (builtin:broken-links)") {
		t.Errorf("text list:\n%s", text)
	}
	out.Reset()
	if err := run(ctx, []string{"schedules", "status", "--data", data}, nil, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "automations: 2 active, 0 paused, stopped or ended; next run ") {
		t.Errorf("status:\n%s", out.String())
	}
}
