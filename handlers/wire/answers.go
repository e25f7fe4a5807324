package wire

import (
	"studio/engine/gates"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// AnswerOf is a release as a use case answered it (releases.Answer): the
// §4.2 release with the caller's abilities on it.
func AnswerOf(a releases.Answer) Release {
	d := ReleaseOf(a.Release)
	can := a.Abilities
	d.Abilities = &can
	return d
}

// PageOf is a page of releases (GET …/releases, §12 list_releases): each
// §4.2 release with the caller's abilities on it.
func PageOf(p releases.ReleasePage) []Release {
	out := make([]Release, 0, len(p.Releases))
	for _, r := range p.Releases {
		d, can := ReleaseOf(r.Release), p.Abilities[r.ID]
		d.Abilities = &can
		out = append(out, d)
	}
	return out
}

// Schedule statuses of schedule_release's answer (§12) and POST …/schedule's.
const (
	StatusScheduled       = "scheduled"
	StatusApprovalPending = "approval-pending"
)

// Schedule answers POST …/schedule and §12 schedule_release, reschedule:
// the release, whether it is scheduled (the caller's own approval) or
// waits for one, and then the id of the waiting request.
type Schedule struct {
	Release    Release `json:"release"`
	Status     string  `json:"status"`
	ApprovalID string  `json:"approvalId,omitempty"`
}

// ScheduleOf is a scheduled or moved release as a use case answered it.
func ScheduleOf(a releases.Answer) Schedule {
	out := Schedule{Release: AnswerOf(a), Status: StatusScheduled}
	if a.State == release.StateAwaitingApproval {
		out.Status = StatusApprovalPending
		if a.Request != nil {
			out.ApprovalID = a.Request.ID
		}
	}
	return out
}

// Gate is what a gate change did (POST …/gates, …/gates/{nodeId}/lift;
// §12 set_embargo, lift_embargo, schedule_unpublish): the node as it is
// now, the one-item release that carries the change on a live node, and
// the status (saved, unchanged, published, approval-pending, scheduled).
type Gate struct {
	Node       Node     `json:"node"`
	Release    *Release `json:"release,omitempty"`
	Status     string   `json:"status"`
	ApprovalID string   `json:"approvalId,omitempty"` // the request, when approval-pending
}

// GateOf is a gate change as engine/gates answered it.
func GateOf(res gates.GateResult) Gate {
	g := Gate{Node: NodeOf(res.Node, res.NodeAbilities), Status: res.Status}
	if res.Release != nil {
		s := ScheduleOf(*res.Release)
		g.Release, g.ApprovalID = &s.Release, s.ApprovalID
	}
	return g
}
