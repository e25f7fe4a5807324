package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// TestAutoApprovalHolds: an auto approval is checked again when its
// release runs (§10.6): it holds while the window is open and the key, as
// it acts now, is still the auto-mode key with releases:publish over the
// low-risk items; otherwise it names why not.
func TestAutoApprovalHolds(t *testing.T) {
	b := newBundle(t)
	ctx := context.Background()
	r := b.Release(t, b.Schedule(t, b.Editor, b.Article, "2026-11-02", "12:00").ID)
	now := b.Clock.Now()
	ends := now.Add(policy.AutoWindow)
	key := b.Editor
	key.Agent = &engine.AgentCall{KeyID: "agk_desk", KeyName: "Desk", Mode: policy.ModeAuto}
	r.Approval = &release.Approval{Kind: release.ApprovalAuto, By: key.Actor(), At: now, KeyID: "agk_desk", WindowEnds: &ends}

	check := func(what string, u *engine.User, r releases.ReleaseRow, at time.Time, want string) {
		t.Helper()
		got, err := b.Releases.AutoApprovalHolds(ctx, u, r, at)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", what, got, err, want)
		}
	}
	check("the key in auto, in the window", &key, r, now, "")
	check("at the window's end", &key, r, ends, "")
	check("after it", &key, r, ends.Add(time.Second), releases.ReasonAutoWindowEnded)
	check("revoked (no key user)", nil, r, now, releases.ReasonCreatorRemoved)
	other := key
	other.Agent = &engine.AgentCall{KeyID: "agk_other", Mode: policy.ModeAuto}
	check("another key", &other, r, now, releases.ReasonCreatorRemoved)
	edits := key
	edits.Agent = &engine.AgentCall{KeyID: "agk_desk", Mode: policy.ModeEdits}
	check("its mode lowered to edits", &edits, r, now, releases.ReasonCreatorRemoved)
	narrowed := key
	narrowed.Scopes = []policy.Scope{policy.SchedulesRead, policy.SchedulesWrite}
	check("without releases:publish", &narrowed, r, now, releases.ReasonCreatorRemoved)
	removal := r
	removal.Items = []release.Item{{Op: release.OpRemove, NodeID: b.Article.ID, NodeKind: release.KindContentEntry}}
	check("a removal is never low-risk", &key, removal, now, releases.ReasonCreatorRemoved)
	reduce := r
	ap := *r.Approval
	ap.Reduce = true
	reduce.Approval = &ap
	check("a reduce approval in edits", &edits, reduce, now, "")
	person := r
	person.Approval = &release.Approval{Kind: release.ApprovalPerson, By: b.Editor.Actor(), At: now}
	check("not an auto approval", &key, person, now, releases.ReasonCreatorRemoved)
}
