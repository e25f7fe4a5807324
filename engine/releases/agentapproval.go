package releases

import (
	"context"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// How an agent's act on a release is approved (§10.3, §10.7, §11.4, §12),
// in one place for every write use case: the agent never approves as a
// person (mayApproveRelease is false for a key), so what it schedules,
// moves or gates either waits for a person — the use case files the
// request, bound to rl1: and the time, with the run's id — or goes out
// under its key's auto window.

// releaseApproval is the approval u's act on a release at at carries in
// the same act: a person's who may approve the release (own: its items are
// u's own), an agent key's auto window (agentApproval); nil when the act
// files a request instead. tool is the §12 tool the act is (an agent's
// gate cell).
func releaseApproval(u engine.User, tool string, items []release.Item, own bool, at, now time.Time) (*release.Approval, error) {
	if u.Agent != nil {
		return agentApproval(u, tool, "", items, own, at, now)
	}
	if !mayApproveRelease(u, own) {
		return nil, nil
	}
	return &release.Approval{Kind: release.ApprovalPerson, By: u.Actor(), At: now}, nil
}

// agentApproval decides an agent's release: the gate's cell for tool (in
// class; "" is the tool's default variant) in the call's mode and its
// run's taint, re-evaluated as AutoReevaluatedAs in auto (reschedule is
// schedule_release then). A LowRiskInWindow cell approves the release
// {kind: "auto", keyId, windowEnds} when its items pass the low-risk check,
// it runs at at within the auto window (D9: 24 hours) and the key holds
// the auto publish scopes at the level the items reach (own: they are the
// owner's or the key's own); every other allowed cell answers nil, and the
// use case files a request. A refused cell is the gate's refusal.
func agentApproval(u engine.User, tool string, class policy.Class, items []release.Item, own bool, at, now time.Time) (*release.Approval, error) {
	spec, ok := policy.Tool(tool)
	if !ok {
		return nil, &engine.Error{Code: engine.CodeUnknownTool, Args: map[string]any{"Tool": tool}}
	}
	v, _, err := engine.AgentMayCall(u, tool, class, u.Agent.Tainted, false)
	if err != nil {
		return nil, err
	}
	if spec.AutoReevaluatedAs != "" && u.Agent.Mode == policy.ModeAuto {
		if spec, ok = policy.Tool(spec.AutoReevaluatedAs); !ok {
			return nil, &engine.Error{Code: engine.CodeUnknownTool, Args: map[string]any{"Tool": spec.AutoReevaluatedAs}}
		}
		// The act itself was allowed: what the other tool's rules refuse
		// (a tainted run, scopes short of it) only means a person decides.
		if v, _, err = engine.AgentMayCall(u, spec.Name, "", u.Agent.Tainted, false); err != nil {
			return nil, nil
		}
	}
	if v != policy.LowRiskInWindow {
		// Waits; and Allowed, which for a publish is only bypass, never
		// a key's mode (agents.ModeCap): fail closed to a person.
		return nil, nil
	}
	level := spec.AuthorizeAutoPublish(engine.HeldScopes(u))
	ends := policy.AutoWindowEnds(now, nil)
	if !release.LowRisk(items) || !policy.AutoAllowed(at, ends) || level == policy.LevelNone || (level == policy.LevelOwn && !own) {
		return nil, nil
	}
	return autoApproval(u, now, ends, false), nil
}

// autoApproval is the approval of an agent's auto window: by the key, to
// windowEnds; reduce for a change that can only hide content.
func autoApproval(u engine.User, now, windowEnds time.Time, reduce bool) *release.Approval {
	return &release.Approval{Kind: release.ApprovalAuto, By: u.Actor(), At: now, KeyID: u.Agent.KeyID,
		WindowEnds: &windowEnds, Reduce: reduce}
}

// Why an auto approval no longer holds at run time (§10.6): the release
// then expires with this reason and nothing is published.
const (
	// ReasonAutoWindowEnded: it runs after its auto window's end.
	ReasonAutoWindowEnded = "auto_window_ended"
	// ReasonCreatorRemoved: the key that approved it is revoked, its owner
	// gone, or it no longer holds the mode or the scopes the approval needed
	// (§4.2's creator_removed: what created the approval is no more).
	ReasonCreatorRemoved = "creator_removed"
)

// AutoApprovalHolds re-checks r's auto approval when r runs at now
// (§10.6): u is the approving key as it acts now (agents.KeyUser; nil when
// it is revoked or its owner gone). The approval stands while the window
// has not ended and the key could still give it: auto mode and the auto
// publish scopes at the level the items reach, the items still low-risk;
// a reduce approval (an agent's gate-only embargo) needs only
// schedules:write at that level. It answers "" when it holds, else the
// reason. (The content hash is the scheduler's check, as for a person.)
func (e *Releases) AutoApprovalHolds(ctx context.Context, u *engine.User, r ReleaseRow, now time.Time) (string, error) {
	a := r.Approval
	if a == nil || a.Kind != release.ApprovalAuto || a.WindowEnds == nil {
		return ReasonCreatorRemoved, nil
	}
	if policy.AutoWindowEnded(now, *a.WindowEnds) {
		return ReasonAutoWindowEnded, nil
	}
	if u == nil || u.Agent == nil || u.Agent.KeyID != a.KeyID {
		return ReasonCreatorRemoved, nil
	}
	own, err := e.ownsRelease(ctx, *u, r.SiteID, r.Items)
	if err != nil {
		return "", err
	}
	if a.Reduce {
		if !u.May(policy.SchedulesWrite, own) {
			return ReasonCreatorRemoved, nil
		}
		return "", nil
	}
	spec, _ := policy.Tool("schedule_release")
	level := spec.AuthorizeAutoPublish(engine.HeldScopes(*u))
	if u.Agent.Mode != policy.ModeAuto || !release.LowRisk(r.Items) || level == policy.LevelNone || (level == policy.LevelOwn && !own) {
		return ReasonCreatorRemoved, nil
	}
	return "", nil
}

// CodeWaitsForPerson: an agent's act waits for a person in its mode, and
// there is no request a person could approve for it (a working copy's
// gate in manual mode; a cancel, in manual mode or of a release that
// removes content): Studio files none, and the agent asks a person.
const CodeWaitsForPerson = "waits_for_person"

// AgentGateApproval is how an agent's gate change on a page or entry goes
// out (§12, §7.6): tool is the act (set_embargo, lift_embargo or
// schedule_unpublish) and class its variant. It answers the approval the
// change's one-item release carries (an auto approval for a reduce the
// mode allows: the embargo only hides content), nil when the release
// waits for a person (a request). With live false (only the working copy
// changes) there is no release: the mode must allow the change outright,
// else waits_for_person.
func AgentGateApproval(u engine.User, tool string, class policy.Class, live bool, now time.Time) (*release.Approval, error) {
	v, _, err := engine.AgentMayCall(u, tool, class, u.Agent.Tainted, false)
	if err != nil {
		return nil, err
	}
	switch {
	case !live && v != policy.Allowed:
		return nil, engine.Refuse(CodeWaitsForPerson, "")
	case live && v == policy.Allowed && class == policy.ClassReduce:
		return autoApproval(u, now, policy.AutoWindowEnds(now, nil), true), nil
	}
	return nil, nil
}

// agentMayCancel is cancel_schedule's cell for an agent (§12): canceling a
// release that only publishes is a reduce; one that removes content
// (canceling keeps it up) is a publish. A cell that waits answers
// waits_for_person: a cancel has no request for a person to approve yet.
func agentMayCancel(u engine.User, items []release.Item) error {
	class := policy.ClassReduce
	for _, it := range items {
		if it.Op != release.OpSet {
			class = policy.ClassPublish
		}
	}
	v, _, err := engine.AgentMayCall(u, "cancel_schedule", class, u.Agent.Tainted, false)
	if err == nil && v != policy.Allowed {
		err = engine.Refuse(CodeWaitsForPerson, "")
	}
	return err
}
