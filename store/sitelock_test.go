package store_test

import (
	"context"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
	"studio/store/storetest"
)

// TestTickWritesTakeTheirSiteLock: on PostgreSQL the tick's publish
// (ApplyRelease) and its claim (ClaimRelease) of one site's release go
// ahead while another instance publishes another site, and wait while it
// publishes the same site. Without forSite either would take the write
// lock exclusively and wait for the other site's publish, and the test
// fails (TestWhoWaitsForAWrite tests the locks themselves). Always on
// PostgreSQL: on SQLite every write waits.
func TestTickWritesTakeTheirSiteLock(t *testing.T) {
	ctx := context.Background()
	b := setupOn(t, storetest.Postgres(t))
	other, err := store.Open(ctx, b.path) // another instance
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// hold has the other instance publish siteID until the returned func.
	hold := func(siteID string) (free func()) {
		began, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- other.WriteHeld(ctx, siteID, began, release) }()
		select {
		case <-began:
		case err := <-done:
			t.Fatalf("the other instance's publish: %v", err)
		}
		return func() {
			close(release)
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	releaseAt := func(slug, hhmm string) release.Release {
		n, err := b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry,
			content.Body{Title: slug, Slug: slug, Status: content.StatusDraft, Text: "Text."})
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.releases.ScheduleNode(ctx, b.editor, releases.ScheduleInput{SiteID: b.site.ID, NodeID: n.ID,
			ExpectedRev: n.Rev, Date: "2026-11-02", Time: hhmm})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// publishedWithin says whether id is published within d, read without
	// a lock while the tick runs.
	publishedWithin := func(id string, d time.Duration) bool {
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b.release(t, id).State == release.StatePublished {
				return true
			}
		}
		return false
	}
	tick := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := b.sched.RunDue(ctx, "node")
			done <- err
		}()
		return done
	}
	same, beside, claimed := releaseAt("same-site", "09:00"), releaseAt("beside", "09:30"), releaseAt("claimed", "10:00")
	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC) // 09:00 in Istanbul

	// The same site: the tick's publish waits for the other instance's.
	b.clock.Set(nine.Add(time.Second))
	free := hold(b.site.ID)
	done := tick()
	if publishedWithin(same.ID, 300*time.Millisecond) {
		t.Error("the tick published while another instance was publishing the same site")
	}
	free()
	if err := <-done; err != nil || b.release(t, same.ID).State != release.StatePublished {
		t.Fatalf("after the other publish: %v, %s", err, b.release(t, same.ID).State)
	}

	// Another site: it publishes meanwhile (the tick's heartbeat, another
	// write, then waits for the other instance).
	b.clock.Set(nine.Add(30*time.Minute + time.Second))
	free = hold("site_other")
	done = tick()
	if !publishedWithin(beside.ID, 10*time.Second) {
		t.Error("the tick's publish waited for another site's")
	}
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// The claim too.
	now := nine.Add(time.Hour + time.Second)
	b.clock.Set(now)
	r := b.release(t, claimed.ID)
	claim := scheduler.Claim{RunID: ids.RunID(r.ID, *r.ExecuteAt), SiteID: b.site.ID, ReleaseID: r.ID, Rev: r.Rev,
		State: r.State, ExecuteAt: *r.ExecuteAt, Token: "lease_test", LeaseUntil: now.Add(45 * time.Second), Trigger: "node", Now: now}
	free = hold("site_other")
	asked := make(chan error, 1)
	go func() {
		ok, err := b.store.ClaimRelease(ctx, claim)
		if err == nil && !ok {
			t.Error("the claim was refused")
		}
		asked <- err
	}()
	select {
	case err := <-asked:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the claim waited for another site's publish")
		free()
		<-asked
		return
	}
	free()
}
