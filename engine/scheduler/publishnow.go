package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// TriggerManual is the trigger of a person's manual run (schedule_runs
// .trigger). `studio schedules run-due`, an operator's tick, records the
// same word; a Publish now run is told apart by its occurrence (the moment
// the person asked, not the release's time) and by its audit row.
const TriggerManual = "manual"

// PublishNow is a person's manual run of a release (RFC §8.6 "Publish now",
// §10.6 "Approve and publish now", §13 publish-now), as they last saw it at
// rev. It is the tick's run with three differences: the person claims it,
// whatever its time, from missed, expired or scheduled (publishing a
// scheduled release early is the same explicit act); its occurrence is now
// (run id ids.RunID(release, now), trigger "manual"); and the person is its
// approver and actor.
//
// Rights: a person who may approve the release (releases:publish). An
// expired release nobody approved is approved by this act (§10.6 "Approve
// and publish now"); any earlier approval is replaced by the person's
// (kind person, by them, at now), and the audit row keeps the one it
// replaced.
//
// What it checks, and when:
//   - Before anything is written (a refusal changes nothing): the rev
//     (stale), the state (release_running, bad_state), and then, inside the
//     claim's guarded UPDATE, what a missed or expired release no longer
//     guarantees because its holds were released: the site not paused
//     (site_paused), no other release running (site_busy), no other release
//     holding one of its nodes (scheduled_locked), and every set item's
//     working copy still at the pinned target, or at the draft the release
//     itself put back when it let go (restore_rev: the version right after
//     the target, with that draft's body). Any other working copy means a
//     person edited the node since: publishing the older pinned version
//     would silently drop their edit from the next publish, so it is refused
//     (pinned_changed) and they schedule the current version instead. The
//     claim holds the nodes again, so no edit slips in before the publish.
//   - In the run, exactly as the tick (runClaimed): the approval gate, the
//     conflict check of each item's pinned base against the live snapshot
//     (§6.4: a live version that changed since pinning, by a publish or a
//     rollback, even of a draft, ends the run as conflict, nothing
//     published), composition, dependencies, and one guarded batch.
//
// The snapshot and the outcome record the real time; latenessSeconds is
// counted from the release's original time (0 when published early), and
// the release keeps that time. When it publishes, a node whose draft had
// been put back gets its pinned version again as a new working version, so
// the next ordinary publish does not take it down.
//
// A run that ends without publishing returns the release with a refusal
// naming why (conflict, dependency_missing, publish_now_failed).
func (e *Scheduler) PublishNow(ctx context.Context, u engine.User, siteID, id string, rev int64) (releases.ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.ReleasesPublish); err != nil {
		return releases.ReleaseRow{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return releases.ReleaseRow{}, err
	}
	if can, err := e.e.AbilitiesOfRelease(ctx, u, r); err != nil {
		return releases.ReleaseRow{}, err
	} else if !can.Approves {
		return releases.ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "")
	}
	if err := publishableNow(r, rev); err != nil {
		return releases.ReleaseRow{}, err
	}
	now := e.e.Now()
	by := u.Actor()
	approval := &release.Approval{Kind: "person", By: by, At: now, ExecuteAt: &now}
	runID := ids.RunID(r.ID, now)
	claim := Claim{RunID: runID, SiteID: siteID, ReleaseID: r.ID, Rev: r.Rev, State: r.State, Token: ids.New("lease"),
		LeaseUntil: now.Add(leaseFor), Trigger: TriggerManual, Now: now, Manual: true, Approval: approval}
	ok, err := e.store.ClaimRelease(ctx, claim)
	if err != nil {
		return releases.ReleaseRow{}, err
	}
	if !ok {
		return releases.ReleaseRow{}, e.whyNotClaimed(ctx, r)
	}

	details := map[string]any{"from": r.State, "approval": "given"}
	if r.Approval != nil {
		details["approval"], details["replacedApproval"] = "replaced", r.Approval
	}
	var lateness int64
	if r.ExecuteAt != nil {
		lateness = release.Lateness(*r.ExecuteAt, now)
		details["scheduledFor"] = localtime.FormatInstant(*r.ExecuteAt)
	}
	before := r
	r.State, r.Rev, r.Approval, r.LeaseToken = release.StateRunning, r.Rev+1, approval, claim.Token
	lease := Lease{ReleaseID: r.ID, RunID: runID, Token: claim.Token, Now: now, Until: claim.LeaseUntil}
	stop := e.keepLease(ctx, lease)
	state, o, err := e.runClaimed(ctx, r, claimedRun{id: runID, token: claim.Token, now: now, lateness: lateness,
		by: by, manual: true, details: details, lease: lease})
	stop()
	if errors.Is(err, errLeaseLost) {
		err = nil // the run took so long that its lease lapsed: nothing was written; the person may try again
	}
	if state == "" {
		// The run ended without an outcome (a store error, or the site kept
		// moving). A person's run is not left to the tick, which would carry
		// it out as its own, early or without re-promoting drafts: the
		// release goes back to where it was, and the person may try again.
		if lerr := e.letGoOfManualRun(ctx, before, r.Rev, runID, now, by, err); lerr != nil {
			return releases.ReleaseRow{}, errors.Join(err, lerr)
		}
		if err != nil {
			return releases.ReleaseRow{}, err
		}
	} else if err != nil {
		return releases.ReleaseRow{}, err
	}
	e.e.Poke() // the site's next release no longer waits for this one
	after, err := e.store.Release(ctx, siteID, r.ID)
	if err != nil {
		return releases.ReleaseRow{}, err
	}
	switch {
	case state == release.StatePublished:
		return after, nil
	case state == "": // the site kept moving under the run
		return after, engine.Refuse(engine.CodeStale, "")
	case o != nil && o.Kind == "conflict":
		return after, engine.Refuse(engine.CodeConflict, "") // the outcome names the nodes
	case o != nil && o.Code == engine.CodeDependencyMissing:
		return after, engine.Refuse(engine.CodeDependencyMissing, "")
	}
	return after, engine.Refuse(engine.CodeNotPublishedNow, "")
}

// publishableNow refuses what Publish now never starts, before anything is
// read besides the release: a rev the person did not see, a release being
// published, or one in a state that has no manual run.
func publishableNow(r releases.ReleaseRow, rev int64) error {
	switch {
	case r.Rev != rev:
		return engine.Refuse(engine.CodeStale, "")
	case r.State == release.StateRunning:
		return engine.Refuse(engine.CodeRunning, "")
	case !release.CanPublishNow(r.State):
		return engine.Refuse(engine.CodeBadState, "")
	}
	return nil
}

// whyNotClaimed names the reason a manual run's claim changed nothing, from
// fresh reads, in the order the claim checks them. The claim's guard is the
// rule; this only picks the sentence.
func (e *Scheduler) whyNotClaimed(ctx context.Context, seen releases.ReleaseRow) error {
	r, err := e.store.Release(ctx, seen.SiteID, seen.ID)
	if err != nil {
		return err
	}
	if err := publishableNow(r, seen.Rev); err != nil {
		return err
	}
	set, err := e.store.ScheduleSettings(ctx, r.SiteID)
	if err != nil {
		return err
	}
	if set.Paused {
		return engine.Refuse(engine.CodeSitePaused, "")
	}
	held, err := e.store.HeldNodes(ctx, r.SiteID, "")
	if err != nil {
		return err
	}
	for _, it := range r.Items {
		if h, ok := held[it.NodeID]; ok && h.ReleaseID != r.ID {
			return releases.LockedBy(&h)
		}
	}
	for _, it := range r.Items {
		if it.Op != release.OpSet || it.Target == nil {
			continue
		}
		n, err := e.store.Node(ctx, r.SiteID, it.NodeID)
		if errors.Is(err, engine.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		asLeft, err := e.e.AsLeft(ctx, it, n)
		if err != nil {
			return err
		}
		if !asLeft {
			return &engine.Error{Code: engine.CodePinnedChanged, Args: map[string]any{"Title": n.Body.Title}}
		}
	}
	return engine.Refuse(engine.CodeSiteBusy, "")
}

// letGoOfManualRun puts a release a person's run claimed back in the state
// it was claimed from (with its approval), records the run as failed and
// audits why. Guarded on the claimed rev: if anything else changed the
// release meanwhile, that change stands.
func (e *Scheduler) letGoOfManualRun(ctx context.Context, before releases.ReleaseRow, claimedRev int64, runID string,
	now time.Time, by release.Actor, cause error) error {
	reason := "site_moved"
	if cause != nil {
		reason = cause.Error()
	}
	err := e.store.ChangeRelease(ctx, releases.Change{ID: before.ID, Rev: claimedRev, From: []release.State{release.StateRunning},
		To: before.State, Approval: before.Approval,
		Run: &releases.RunRecord{ID: runID, SiteID: before.SiteID, SubjectID: before.ID, OccurrenceAt: now, State: "failed",
			Trigger: TriggerManual},
		Audit: engine.AuditEntry{Action: "release.publish_now_failed", Actor: by, SiteID: before.SiteID, ReleaseID: before.ID,
			RunID: runID, At: now, Details: map[string]any{"reason": reason, "backTo": before.State}}}.Settled())
	if errors.Is(err, engine.ErrConflict) {
		return nil
	}
	return err
}
