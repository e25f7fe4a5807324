package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// What one release run does (claim, run, publish or fail, §6.3): the tick's
// run of a due release (runRelease) and a person's manual run (PublishNow)
// share runClaimed. Effects are the store's guarded writes; the rules that
// stay the engine's (who may approve, live addresses) are asked of it.

// A lease is short and renewed every 15 seconds while its run
// works (keepLease), so a crashed or frozen ticker's claim is taken over by
// the next tick 45 seconds after its last renewal at most, and holds its
// site up no longer (ClaimRelease): a release due in the same minute as a
// dead run is still published within a minute of its time.
const leaseFor = 45 * time.Second

// RunTally counts what release runs reached (§8.1); a tick adds up its
// runs' in its report.
type RunTally struct {
	Ran       int // releases that reached a terminal state
	Published int // of which published
	Late      int // published after their minute
	Failed    int // conflict, failed, missed or expired
	// Lateness is how long after its time each published release went
	// live, to the millisecond (the metrics' histogram; 0 when on time).
	Lateness []time.Duration
}

// runRelease takes one due release as far as it can at now, the way the
// tick does (claim, run, publish or fail, §6.3), adding what it reached to
// rep. again is when the scheduler should look at it once more (zero when
// it is done with it). RunDue decides when; this decides what.
func (e *Scheduler) runRelease(ctx context.Context, r releases.ReleaseRow, now time.Time, trigger string, rep *RunTally) (again time.Time, err error) {
	if r.ExecuteAt == nil {
		return time.Time{}, nil
	}
	at := *r.ExecuteAt

	// Never early (§9.1): the wall-clock time is resolved again with today's
	// tzdata; a later instant moves the release, an earlier one is ignored.
	// A waiting request is not expired early either.
	if r.State != release.StateRunning && r.When != nil && r.When.LocalTime != "" {
		if later, moved := recompute(r); moved {
			audit := engine.AuditEntry{Action: "release.reschedule", Actor: engine.Scheduler, SiteID: r.SiteID, ReleaseID: r.ID, At: now,
				Details: map[string]any{"from": localtime.FormatInstant(at), "to": localtime.FormatInstant(later), "adjusted": "tzdata"}}
			if err := e.store.Reschedule(ctx, r.ID, r.Rev, later, audit); err != nil && !errors.Is(err, engine.ErrConflict) {
				return time.Time{}, err
			}
			if later.After(now) {
				return later, nil
			}
			r.Rev++
			at = later
		}
	}

	runID := ids.RunID(r.ID, at)
	lateness := release.Lateness(at, now)

	// Without a claim, a guarded state change is the whole effect: a request
	// nobody approved by its time expires (D5); an occurrence more than an
	// hour late is missed and recorded as a run (§8.6).
	end := func(to release.State, o *release.Outcome, run *releases.RunRecord) (time.Time, error) {
		audit := engine.AuditEntry{Action: "release." + string(to), Actor: engine.Scheduler, SiteID: r.SiteID, ReleaseID: r.ID, At: now,
			Details: onBehalfOf(r, map[string]any{"outcome": o})}
		if run != nil {
			audit.RunID = run.ID
		}
		err := e.store.ChangeRelease(ctx, releases.Change{ID: r.ID, Rev: r.Rev, From: []release.State{r.State}, To: to, Outcome: o, Run: run,
			Audit: audit}.Settled())
		if errors.Is(err, engine.ErrConflict) {
			return time.Time{}, nil // someone else changed it first
		}
		if err == nil {
			rep.Ran++
			rep.Failed++
		}
		return time.Time{}, err
	}
	if r.State == release.StateAwaitingApproval {
		return end(release.StateExpired, &release.Outcome{Kind: "expired", At: now, Reason: "unapproved"}, nil)
	}
	if release.IsMissed(at, now) {
		return end(release.StateMissed, &release.Outcome{Kind: "missed", At: now, LatenessSeconds: &lateness},
			&releases.RunRecord{ID: runID, SiteID: r.SiteID, SubjectID: r.ID, OccurrenceAt: at, State: "missed", Trigger: trigger, Lateness: lateness})
	}
	// A running release whose time has not come is a person's early
	// Publish now that died with its process: it goes back to scheduled
	// and runs at its time, never early (S2).
	if r.State == release.StateRunning && at.After(now) {
		err := e.store.ChangeRelease(ctx, releases.Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateRunning},
			To: release.StateScheduled, Approval: r.Approval,
			Audit: engine.AuditEntry{Action: "release.reclaimed", Actor: engine.Scheduler, SiteID: r.SiteID, ReleaseID: r.ID, At: now}}.Settled())
		if err != nil && !errors.Is(err, engine.ErrConflict) {
			return time.Time{}, err
		}
		return at, nil
	}
	// The site's kill switch is on (§11.6 item 2): the release is not
	// claimed. It waits; if the site resumes within the hour it runs then
	// (late), otherwise the branch above makes it missed. Look again when
	// that hour is over.
	if r.SitePaused {
		return at.Add(release.LateLimit + time.Millisecond), nil
	}

	claim := Claim{RunID: runID, SiteID: r.SiteID, ReleaseID: r.ID, Rev: r.Rev, State: r.State,
		OldToken: r.LeaseToken, ExecuteAt: at, Token: ids.New("lease"), LeaseUntil: now.Add(leaseFor),
		Trigger: trigger, Now: now}
	if r.State == release.StateScheduled {
		published, refused := e.publishAtOnce(ctx, r, claim, lateness)
		if published {
			rep.reached(release.StatePublished, now.Sub(at))
			return time.Time{}, nil
		}
		if refused { // as ClaimRelease would be, below
			return now, nil
		}
	}
	ok, err := e.store.ClaimRelease(ctx, claim)
	if err != nil {
		return time.Time{}, err
	}
	if !ok { // another tick has it, or an earlier release of the site is running
		return now, nil
	}
	lease := Lease{ReleaseID: r.ID, RunID: runID, Token: claim.Token, Now: now, Until: claim.LeaseUntil}
	stop := e.keepLease(ctx, lease)
	state, _, err := e.runClaimed(ctx, r, claimedRun{id: runID, token: claim.Token, now: now, lateness: lateness, by: engine.Scheduler,
		lease: lease})
	stop()
	if errors.Is(err, errLeaseLost) { // another ticker has it now; nothing was written
		return time.Time{}, nil
	}
	if err != nil && ctx.Err() != nil { // the process is stopping mid-run
		e.handBack(lease)
		return time.Time{}, ctx.Err()
	}
	if err != nil { // a read or a write failed: nothing was published
		return e.retryLater(ctx, r, claim, err)
	}
	if state == "" {
		return now, nil // the site kept moving: the claim stays for the next tick
	}
	rep.reached(state, now.Sub(at))
	return time.Time{}, nil
}

// reached counts a run that reached state, late after its time.
func (t *RunTally) reached(state release.State, late time.Duration) {
	t.Ran++
	if state != release.StatePublished {
		t.Failed++
		return
	}
	t.Published++
	t.Lateness = append(t.Lateness, max(late, 0))
	if late >= time.Minute {
		t.Late++
	}
}

// retryLater keeps the claim of a run whose try failed with a transient
// error (a store error, a timeout) and brings the next try forward from the
// lease's end to the back-off: 30 s, 1, 2, 5, then 10 minutes (§8.8). The
// retries end when the run is more than an hour late: the next tick finds
// it missed. If even this write fails, the lease lapses on its own.
func (e *Scheduler) retryLater(ctx context.Context, r releases.ReleaseRow, c Claim, cause error) (time.Time, error) {
	var at time.Time
	err := e.store.RetryLater(ctx, Retry{ReleaseID: r.ID, RunID: c.RunID, Token: c.Token, Error: cause.Error(), Now: c.Now,
		Delay: func(attempt int) time.Duration {
			d := release.RetryDelay(attempt)
			at = c.Now.Add(d)
			return d
		}})
	if err != nil {
		return time.Time{}, errors.Join(cause, err)
	}
	return at, cause
}

// publishAtOnce publishes a scheduled release in one transaction with its
// claim (Apply.Claim), when the run's gates and reads find nothing in its
// way: the common run costs one write and leaves no moment between claim
// and effect for a crash to fall into. A claim that is refused (another
// ticker won it) is refused, with nothing written. Anything else (a gate
// or a read that fails the run, an error, a site that moved) is neither,
// with nothing written, and the run takes the claimed way, which reads
// again under a lease and records what it reaches.
func (e *Scheduler) publishAtOnce(ctx context.Context, r releases.ReleaseRow, claim Claim, lateness int64) (published, refused bool) {
	c := claimedRun{id: claim.RunID, now: claim.Now, lateness: lateness, by: engine.Scheduler}
	end, apply, err := e.plan(ctx, r, c)
	if err != nil || end != nil {
		return false, false
	}
	apply.Claim = &claim
	ok, err := e.store.ApplyRelease(ctx, apply)
	if errors.Is(err, ErrNotClaimable) {
		return false, true
	}
	return err == nil && ok, false
}

// claimedRun is one run of a release under a lease this process holds: the
// tick's, or a person's manual run (Publish now).
type claimedRun struct {
	id       string
	token    string
	now      time.Time
	lateness int64         // from the release's time; 0 when not late
	by       release.Actor // Scheduler, or the person of a manual run
	// manual marks a person's Publish now: its audit rows say so, the
	// snapshot and the outcome carry the person, and promoted drafts the
	// release had put back are promoted again when it publishes.
	manual  bool
	details map[string]any // added to the run's audit row
	// lease is renewed right before the run's effect: a run whose lease
	// lapsed (its process was frozen) or was taken over stops there.
	lease Lease
}

// runClaimed takes a claimed release through §6.3, the same way for the tick
// and for a person's Publish now: the gates of the run (§10.6), then reads
// (the live snapshot, conflicts, composition, dependencies), then one
// guarded batch; if the site moved between the reads and the write, it reads
// and tries once more. It returns the state the release reached and its
// outcome, or "" when the site kept moving and the claim stays for the next
// tick. A state with an error is a terminal state whose write failed.
func (e *Scheduler) runClaimed(ctx context.Context, r releases.ReleaseRow, c claimedRun) (release.State, *release.Outcome, error) {
	now, runID := c.now, c.id
	finish := func(end ending) (release.State, *release.Outcome, error) {
		if err := e.holdLease(ctx, c.lease); err != nil {
			return "", nil, err
		}
		o := end.outcome
		if c.manual {
			o.By = &c.by
		}
		details := map[string]any{"outcome": o}
		if !c.manual {
			details = onBehalfOf(r, details)
		}
		return end.state, &o, e.store.FinishRelease(ctx, Finish{ReleaseID: r.ID, RunID: runID, Token: c.token,
			State: end.state, RunState: end.runState, Outcome: o, Lateness: c.lateness, Now: now,
			Audit: c.audit(r, "release."+string(end.state), details)})
	}

	// Gates and reads, then one guarded write; if the site moved in
	// between, read and try once more; a second miss leaves the claim to
	// the next tick (§6.3).
	for attempt := 0; attempt < 2; attempt++ {
		end, apply, err := e.plan(ctx, r, c)
		if err != nil {
			return "", nil, err
		}
		if end != nil {
			return finish(*end)
		}
		if err := e.holdLease(ctx, c.lease); err != nil {
			return "", nil, err
		}
		ok, err := e.store.ApplyRelease(ctx, apply)
		if err != nil {
			return "", nil, err
		}
		if ok {
			return release.StatePublished, &apply.Outcome, nil
		}
	}
	return "", nil, nil // the site kept moving
}

// ending is how a run ends without publishing: the release's state, the
// run's, and the outcome.
type ending struct {
	state    release.State
	runState string
	outcome  release.Outcome
}

// audit is the audit row of the run's action on r.
func (c claimedRun) audit(r releases.ReleaseRow, action string, details map[string]any) engine.AuditEntry {
	if c.manual {
		details["trigger"] = TriggerManual
		for k, v := range c.details {
			details[k] = v
		}
	}
	return engine.AuditEntry{Action: action, Actor: c.by, SiteID: r.SiteID, ReleaseID: r.ID, RunID: c.id, At: c.now, Details: details}
}

// plan is a run's gates and reads (§6.3 steps 2–5, §10.6): nodes deleted
// since pinning, the approval, then the site as it is with the live refs
// of the release's items, conflicts, composition, dependencies and live
// addresses. It returns how the run ends if one of them fails it, else the
// guarded batch that publishes it (Apply.Claim unset).
func (e *Scheduler) plan(ctx context.Context, r releases.ReleaseRow, c claimedRun) (*ending, Apply, error) {
	now, runID := c.now, c.id
	fail := func(state release.State, runState string, o release.Outcome) (*ending, Apply, error) {
		return &ending{state, runState, o}, Apply{}, nil
	}
	// A node deleted since pinning cancels the release, by the system:
	// there is nothing left to publish as approved.
	if len(r.GoneNodes) > 0 {
		return fail(release.StateCanceled, "skipped", release.Outcome{Kind: "canceled", At: now, RunID: runID,
			By: &engine.Scheduler, Reason: "node_gone", Message: r.GoneNodes[0]})
	}
	reason, ok, err := e.approvalHolds(ctx, r)
	if err != nil {
		return nil, Apply{}, err
	}
	if !ok {
		return fail(release.StateExpired, "failed", release.Outcome{Kind: "expired", At: now, RunID: runID, Reason: reason})
	}
	// Only the refs of the items and of what they reference: on them,
	// conflicts, composition and dependencies answer as on the whole live
	// snapshot (release.TestDiffProperties), and the snapshot is written as
	// the change they make.
	site, live, err := e.store.LiveRefs(ctx, r.SiteID, release.Touched(r.Items))
	if errors.Is(err, engine.ErrNotFound) {
		return fail(release.StateCanceled, "skipped", release.Outcome{Kind: "canceled", At: now, RunID: runID, By: &engine.Scheduler, Reason: "site_gone"})
	}
	if err != nil {
		return nil, Apply{}, err
	}
	if found := release.Conflicts(live, r.Items); len(found) > 0 {
		return fail(release.StateConflict, "failed", release.Outcome{Kind: "conflict", At: now, RunID: runID, Conflicts: found})
	}
	composed := release.Compose(live, r.Items)
	changes := release.Diff(live, composed)
	if id, missing := release.MissingDependency(composed, r.Items); missing {
		return fail(release.StateFailed, "failed", release.Outcome{Kind: "failed", At: now, RunID: runID,
			Code: "dependency_missing", Message: id})
	}
	// A node may not take over another's live address (a second
	// /posts/welcome would replace the first on the site, its feed and its
	// sitemap): the run fails, and says which address.
	if err := e.e.ReleaseAddresses(ctx, site.ID, r.Items); err != nil {
		if ae, ok := engine.AsError(err); ok && ae.Code == releases.CodeSlugTaken {
			return fail(release.StateFailed, "failed", release.Outcome{Kind: "failed", At: now, RunID: runID,
				Code: releases.CodeSlugTaken, Message: fmt.Sprint(ae.Args["Path"])})
		}
		return nil, Apply{}, err
	}
	snap := engine.Snapshot{ID: ids.New("snp"), SiteID: site.ID, ParentID: site.PublishedSnapshotID, Reason: "scheduled",
		Label: r.Title, Actor: c.by, Changes: &changes, CreatedAt: now,
		Metadata: map[string]string{"studio.release": r.ID, "studio.releaseHash": r.Hash,
			"studio.run": runID, "studio.base": site.PublishedSnapshotID, "studio.approvedBy": r.Approval.By.ID}}
	if snap.Label == "" {
		snap.Label = "Scheduled: " + r.ID
	}
	o := release.Outcome{Kind: "published", RunID: runID, At: now, SnapshotID: snap.ID,
		BaseSnapshotID: site.PublishedSnapshotID, LatenessSeconds: &c.lateness, Purge: "none"}
	audit := c.audit(r, "release.publish", map[string]any{"onBehalfOf": r.Approval.By, "requestedBy": r.CreatedBy,
		"hash": r.Hash, "snapshot": snap.ID})
	if c.manual {
		// The person publishes for themselves: the snapshot and the outcome
		// name them, and the audit row is theirs.
		snap.Metadata["studio.trigger"] = TriggerManual
		o.By = &c.by
		audit.Action = "release.publish_now"
		delete(audit.Details, "onBehalfOf")
	}
	next := site
	next.PublishedSnapshotID, next.Rev = snap.ID, site.Rev+1
	apply := Apply{Site: site, NewHash: engine.SiteHash(next), Snapshot: snap,
		ReleaseID: r.ID, RunID: runID, Token: c.token, Outcome: o, Lateness: c.lateness, Now: now,
		Audit: audit, Repromote: c.manual}
	if r.When != nil && r.When.Kind == "on-approval" {
		// An "on-approval" release (a live node's gate change, the gates'
		// use cases) has no time of its own: the minute ahead it was given
		// is only the ticker's fallback. It is recorded at the instant it
		// went live, so the calendar shows it where it happened.
		apply.ExecuteAt = &now
	}
	return nil, apply, nil
}

// onBehalfOf adds to a scheduler's audit row the people it acts for
// (S14): the approver and the requester.
func onBehalfOf(r releases.ReleaseRow, details map[string]any) map[string]any {
	if r.Approval != nil {
		details["onBehalfOf"] = r.Approval.By
	}
	details["requestedBy"] = r.CreatedBy
	return details
}

// recompute resolves the release's wall-clock time again (§9.1).
func recompute(r releases.ReleaseRow) (time.Time, bool) {
	loc, err := localtime.LoadZone(r.When.TimeZone)
	if err != nil {
		return time.Time{}, false
	}
	wall, err := localtime.ParseWall(r.When.LocalTime)
	if err != nil {
		return time.Time{}, false
	}
	at, moved := localtime.Recompute(*r.ExecuteAt, wall, loc)
	return at.UTC(), moved
}

// approvalHolds re-checks the approval at run time (§10.6): a person's
// approval stands while they could still approve the release. An error
// reading them is not a lost right: the run retries (§8.8).
func (e *Scheduler) approvalHolds(ctx context.Context, r releases.ReleaseRow) (reason string, ok bool, err error) {
	if r.Approval == nil || (r.Approval.Kind != release.ApprovalPerson && r.Approval.Kind != release.ApprovalAuto) {
		return "unapproved", false, nil
	}
	if release.Hash(r.SiteID, r.Items) != r.Hash {
		return "approval_lost", false, nil
	}
	if r.Approval.Kind == release.ApprovalAuto {
		return e.autoApprovalHolds(ctx, r)
	}
	var u engine.User
	switch {
	case r.ApproverRead && r.Approver == nil:
		return "approval_lost", false, nil // they left
	case r.ApproverRead:
		u = *r.Approver
	default:
		var err error
		u, err = e.store.MemberByID(ctx, r.SiteID, r.Approval.By.ID) // their role there now
		if errors.Is(err, engine.ErrNotFound) {
			return "approval_lost", false, nil
		}
		if err != nil {
			return "", false, err
		}
	}
	// Still someone who could approve it now: releases:publish, or :own
	// with own-only items (§10.6).
	can, err := e.e.AbilitiesOfRelease(ctx, u, r)
	if err != nil {
		return "", false, err
	}
	if !can.Approves {
		return "approval_lost", false, nil
	}
	return "", true, nil
}

// SetAgentKeys gives the scheduler the agent keys, with which it re-checks
// an auto approval at run time; without them an auto-approved release
// expires (fail closed).
func (e *Scheduler) SetAgentKeys(k AgentKeys) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.keys = k
}

// autoApprovalHolds re-checks an agent key's auto approval (§10.6,
// §11.6: a revoked key's releases expire; a person-approved release of
// the same key still runs): the key as it acts now, the window, the mode.
func (e *Scheduler) autoApprovalHolds(ctx context.Context, r releases.ReleaseRow) (string, bool, error) {
	var u *engine.User
	e.mu.Lock()
	keys := e.keys
	e.mu.Unlock()
	if keys != nil {
		got, err := keys.KeyUser(ctx, r.SiteID, r.Approval.KeyID)
		switch {
		case err == nil:
			u = &got
		case !errors.Is(err, engine.ErrNotFound):
			return "", false, err
		}
	}
	reason, err := e.e.AutoApprovalHolds(ctx, u, r, e.e.Now())
	return reason, err == nil && reason == "", err
}

// Heartbeat returns the scheduler's last heartbeat.
func (e *Scheduler) Heartbeat(ctx context.Context) (Heartbeat, error) { return e.store.Heartbeat(ctx) }
