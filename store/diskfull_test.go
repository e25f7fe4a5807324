package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/scheduler"
	"studio/store/storetest"
)

// TestDiskFullIsNotedAndClears: a write that fails for lack of space
// (SQLite's SQLITE_FULL, made honestly by capping the file's page count at
// its size) is noted for Liveness as ErrDiskFull with when it began, while
// an update that finds room on a page it has does not end the note; once
// there is room again, the next write that goes through ends it at once,
// and without one the periodic probe does.
func TestDiskFullIsNotedAndClears(t *testing.T) {
	// On SQLite in both runs: a full disk is made with SQLite's
	// max_page_count; PostgreSQL's disk_full (53100) is classified by the
	// same note, which its unit test checks.
	b := setupOn(t, storetest.Path(t))
	ctx := context.Background()
	if err := b.store.Liveness(ctx); err != nil {
		t.Fatalf("before: %v", err)
	}
	big := content.Body{Title: "Long read", Slug: "long-read", Status: content.StatusDraft, Text: strings.Repeat("Words. ", 12000)}
	full := func() {
		t.Helper()
		if _, err := b.store.DB().Exec(`PRAGMA max_page_count = 1`); err != nil { // clamped to the file's size
			t.Fatal(err)
		}
	}
	room := func() {
		t.Helper()
		if _, err := b.store.DB().Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
			t.Fatal(err)
		}
	}
	full()
	if _, err := b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry, big); err == nil {
		t.Fatal("an 84 kB draft was written into a full database")
	}
	err := b.store.Liveness(ctx)
	var df *scheduler.DiskFullError
	if !errors.Is(err, scheduler.ErrDiskFull) || !errors.As(err, &df) || df.Since.IsZero() {
		t.Fatalf("after SQLITE_FULL: %v, want ErrDiskFull with its time", err)
	}
	// The heartbeat updates its one row in place: it goes through, and
	// proves nothing about room for the next draft.
	if err := b.store.WriteHeartbeat(ctx, scheduler.Heartbeat{At: start, NextWakeAt: start, Trigger: "node"}); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	if err := b.store.Liveness(ctx); !errors.Is(err, scheduler.ErrDiskFull) {
		t.Fatalf("after an update in place: %v, want the full disk still noted", err)
	}
	room()
	if _, err := b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry, big); err != nil {
		t.Fatalf("with room again: %v", err)
	}
	if err := b.store.Liveness(ctx); err != nil {
		t.Fatalf("after a write with room: %v, want nil at once", err)
	}
}

// TestProbeSpaceLeavesNothing: the space probe writes its 64 KiB row and
// deletes it in one transaction, on SQLite and PostgreSQL alike.
func TestProbeSpaceLeavesNothing(t *testing.T) {
	b := setup(t)
	for range 2 {
		if err := b.store.ProbeSpace(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := b.store.DB().QueryRow(`SELECT count(*) FROM storage_probe`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("storage_probe rows = %d (%v), want 0", n, err)
	}
}
