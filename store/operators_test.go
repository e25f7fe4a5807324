package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/identity"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// TestOperatorsStore (issue 16) runs on both engines: deploy tokens are
// found by their hash until revoked, and the gauges and the 7-day
// lateness read what the scheduler did.
func TestOperatorsStore(t *testing.T) {
	ctx := context.Background()
	b := setup(t)
	people := identity.New(b.eng, b.store, nil)
	secret, tok, err := people.CreateDeployToken(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := people.DeployToken(ctx, secret); err != nil || got.ID != tok.ID || got.Name != "ci" {
		t.Fatalf("DeployToken: %+v %v", got, err)
	}
	if err := people.RevokeDeployToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := people.DeployToken(ctx, secret); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a revoked deploy token: %v", err)
	}
	if err := people.RevokeDeployToken(ctx, tok.ID); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("revoked twice: %v", err)
	}
	// Each change leaves one audit row, on no site (no site's History
	// shows them), by the operator; the refused second revoke leaves none.
	for action, want := range map[string]int{"deploy_token.create": 1, "deploy_token.revoke": 1} {
		if n := b.count(t, `SELECT count(*) FROM audit WHERE action = ? AND site_id = '' AND details LIKE ? AND actor LIKE ?`,
			action, "%"+tok.ID+"%", "%sys_operator%"); n != want {
			t.Errorf("%s: %d audit rows, want %d", action, n, want)
		}
	}

	b.schedule(t, b.editor) // 09:00
	nine := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	b.clock.Set(nine.Add(time.Second))
	g, err := b.sched.Gauges(ctx)
	if err != nil || g.DueBacklog != 1 || g.Releases["scheduled"] != 1 || g.HeartbeatSeen {
		t.Fatalf("before the tick: %+v %v", g, err)
	}
	b.clock.Set(nine.Add(1500 * time.Millisecond))
	if rep, err := b.sched.RunDue(ctx, "node"); err != nil || rep.Published != 1 {
		t.Fatalf("tick: %+v %v", rep, err)
	}
	b.clock.Set(nine.Add(time.Minute))
	g, err = b.sched.Gauges(ctx)
	if err != nil || g.DueBacklog != 0 || g.Releases["published"] != 1 || g.Releases["scheduled"] != 0 ||
		!g.HeartbeatSeen || g.HeartbeatAge != 58500*time.Millisecond {
		t.Fatalf("after the tick: %+v %v", g, err)
	}
	// A Publish now, 59 minutes before its release's time, is no late run.
	n, err := b.nodes.CreateNode(ctx, b.contributor, b.site.ID, release.KindContentEntry,
		content.Body{Title: "Now", Slug: "now", Status: content.StatusDraft, Text: "Now."})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.releases.ScheduleNode(ctx, b.editor, releases.ScheduleInput{SiteID: b.site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
		Date: "2026-11-02", Time: "10:00"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.sched.PublishNow(ctx, b.editor, b.site.ID, r.ID, r.Rev); err != nil || got.State != release.StatePublished {
		t.Fatalf("Publish now: %v %v", got.State, err)
	}
	for _, member := range []string{"", b.editor.ID} {
		week, err := b.sched.LatenessWeek(ctx, member)
		if err != nil || week.Runs != 1 || week.P50 != 1500*time.Millisecond || week.P95 != week.P50 {
			t.Fatalf("LatenessWeek(%q): %+v %v", member, week, err)
		}
	}
	// A person of another site learns nothing of this one's publishes.
	other, err := b.eng.CreateSite(ctx, "Other Gazette", "Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := identity.New(b.eng, b.store, nil).AddUser(ctx, other.ID, "stranger@example.com", "Sam", policy.Editor, "correct horse", "en")
	if err != nil {
		t.Fatal(err)
	}
	if week, err := b.sched.LatenessWeek(ctx, stranger.ID); err != nil || week.Runs != 0 {
		t.Fatalf("LatenessWeek of another site's editor: %+v %v", week, err)
	}
}
