package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/engine/settings"
)

// admin adds an Administrator to the bundle (with a dummy password hash:
// nobody signs in here).
func (b *bundle) admin(t *testing.T) engine.User {
	t.Helper()
	u := engine.User{ID: ids.New("user"), Email: "admin@example.com", Name: "Ada", Role: policy.Admin, SiteID: b.site.ID, Lang: "en"}
	if err := b.store.CreateUser(context.Background(), u, "not-a-bcrypt-hash", start); err != nil {
		t.Fatal(err)
	}
	return u
}

func (b *bundle) pause(t *testing.T, u engine.User) {
	t.Helper()
	ctx := context.Background()
	s, err := b.releases.ScheduleSettings(ctx, engine.Reader(b.site.ID), b.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.New(b.eng, b.store).SetKillSwitch(ctx, u, b.site.ID, true, "Hold everything", s.Rev); err != nil {
		t.Fatal(err)
	}
}

func TestScheduleSettingsRows(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	s, err := b.store.ScheduleSettings(ctx, b.site.ID)
	if err != nil || s.Rev != 0 || s.Paused || s.DailyWriteCap != 200 || s.SiteID != b.site.ID {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	by := b.editor.Actor()
	at := start.Add(time.Minute)
	next := s
	next.Paused, next.PausedBy, next.PausedAt, next.PausedReason = true, &by, &at, "Why"
	next.Rev, next.UpdatedAt, next.UpdatedBy = 1, at, &by
	audit := engine.AuditEntry{Action: "site.schedules_pause", Actor: by, SiteID: b.site.ID, At: at}
	if err := b.store.SaveScheduleSettings(ctx, next, 0, audit); err != nil {
		t.Fatal(err)
	}
	// A second writer who also saw the defaults loses.
	if err := b.store.SaveScheduleSettings(ctx, next, 0, audit); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("second insert at rev 0: %v, want ErrConflict", err)
	}
	got, err := b.store.ScheduleSettings(ctx, b.site.ID)
	if err != nil || !got.Paused || got.Rev != 1 || got.PausedReason != "Why" || got.PausedBy == nil || got.PausedBy.ID != by.ID ||
		got.PausedAt == nil || !got.PausedAt.Equal(at) || !got.UpdatedAt.Equal(at) || got.UpdatedBy == nil || got.UpdatedBy.Name != by.Name {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	resumed := got
	resumed.Paused, resumed.PausedBy, resumed.PausedAt, resumed.PausedReason, resumed.Rev = false, nil, nil, "", 2
	if err := b.store.SaveScheduleSettings(ctx, resumed, 1, audit); err != nil {
		t.Fatal(err)
	}
	if err := b.store.SaveScheduleSettings(ctx, resumed, 1, audit); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("update at an old rev: %v, want ErrConflict", err)
	}
	got, _ = b.store.ScheduleSettings(ctx, b.site.ID)
	if got.Paused || got.PausedBy != nil || got.PausedAt != nil || got.PausedReason != "" || got.Rev != 2 {
		t.Fatalf("after resuming: %+v", got)
	}
	if n := b.count(t, `SELECT count(*) FROM audit WHERE action = 'site.schedules_pause'`); n != 2 {
		t.Fatalf("audit rows = %d, want one per write that went through", n)
	}
}

func TestDueReleasesOfAPausedSite(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	r := b.schedule(t, b.editor) // 06:00Z
	at := r.When.At

	// Another site's release, half an hour later, not paused.
	other, err := b.eng.CreateSite(ctx, "Other", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	there := b.editor // an Editor there too
	there.SiteID = other.ID
	n, err := b.nodes.CreateNode(ctx, there, other.ID, release.KindContentEntry,
		content.Body{Title: "Elsewhere", Slug: "elsewhere", Status: content.StatusDraft, Text: "News."})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.releases.ScheduleNode(ctx, there, releases.ScheduleInput{SiteID: other.ID, NodeID: n.ID, ExpectedRev: n.Rev,
		Date: "2026-11-02", Time: "09:30"})
	if err != nil {
		t.Fatal(err)
	}

	due := func(until time.Time) []releases.ReleaseRow {
		t.Helper()
		rows, err := b.store.DueReleases(ctx, until, 10)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	if rows := due(at); len(rows) != 1 || rows[0].ID != r.ID || rows[0].SitePaused {
		t.Fatalf("not paused: %+v", rows)
	}
	b.pause(t, b.admin(t))
	// Paused: not due at its time, nor within the hour; due at the end of
	// its late limit, flagged, after the other site's release.
	for _, until := range []time.Time{at, at.Add(30 * time.Minute), at.Add(time.Hour - time.Millisecond)} {
		for _, row := range due(until) {
			if row.ID == r.ID {
				t.Fatalf("the paused site's release is due by %s", until.Format(time.RFC3339Nano))
			}
		}
	}
	rows := due(at.Add(time.Hour))
	if len(rows) != 2 || rows[0].ID != r2.ID || rows[0].SitePaused || rows[1].ID != r.ID || !rows[1].SitePaused {
		t.Fatalf("due by 07:00Z: %+v, want the other site's release, then the paused one", rowIDs(rows))
	}
}

func rowIDs(rows []releases.ReleaseRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// TestStatementsWhilePaused holds the kill switch's tick paths to the
// budgets of statements_test.go: reading the switch costs no statement.
func TestStatementsWhilePaused(t *testing.T) {
	measure := func(t *testing.T, b *bundle) int64 {
		t.Helper()
		before := b.store.Statements()
		b.tick(t)
		return b.store.Statements() - before
	}
	cases := []struct {
		name   string
		budget int64
		run    func(t *testing.T) int64
	}{
		{"IdleTickPaused", 1, func(t *testing.T) int64 {
			b := setup(t)
			b.pause(t, b.admin(t))
			b.tick(t)
			b.clock.Advance(time.Minute)
			return measure(t, b)
		}},
		{"ReleaseWaiting", 1, func(t *testing.T) int64 {
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.pause(t, b.admin(t))
			b.clock.Set(r.When.At.Add(-time.Minute))
			b.tick(t)
			b.clock.Set(r.When.At)
			return measure(t, b)
		}},
		{"ReleaseAtTheEndOfItsHour", 1, func(t *testing.T) int64 { // read, and not claimed
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.pause(t, b.admin(t))
			b.clock.Set(r.When.At.Add(59 * time.Minute))
			b.tick(t)
			b.clock.Set(r.When.At.Add(time.Hour))
			return measure(t, b)
		}},
		{"ReleaseMissedWhilePaused", 10, func(t *testing.T) int64 {
			b := setup(t)
			r := b.schedule(t, b.editor)
			b.pause(t, b.admin(t))
			b.clock.Set(r.When.At.Add(2 * time.Hour))
			return measure(t, b)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.run(t)
			t.Logf("%s: %d statements (budget %d)", c.name, got, c.budget)
			if got > c.budget {
				t.Errorf("%s took %d statements, budget %d", c.name, got, c.budget)
			}
		})
	}
}
