package api

import (
	"context"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/gates"
	"studio/engine/releases"
)

// The JSON shapes below are the API's, shared with the MCP surface
// (handlers/mcp) so that a tool answers exactly what the matching API
// route answers (RFC §12's shapes are §13's).

// ReleasesJSON is a list of releases as GET …/releases answers it: the
// §4.2 release with u's abilities on each.
func ReleasesJSON(ctx context.Context, rel *releases.Releases, u engine.User, siteID string, rows []releases.ReleaseRow) (any, error) {
	h := &Handler{eng: rel.Engine, releases: rel}
	return h.releasesOut(context.WithValue(ctx, userKey{}, u), siteID, rows)
}

// ReleaseJSON is one release as GET …/releases lists it, with u's
// abilities.
func ReleaseJSON(ctx context.Context, rel *releases.Releases, u engine.User, row releases.ReleaseRow) (any, error) {
	h := &Handler{eng: rel.Engine, releases: rel}
	out, err := h.releasesOut(context.WithValue(ctx, userKey{}, u), row.SiteID, []releases.ReleaseRow{row})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// ScheduleJSON is §12 schedule_release's and reschedule's answer, as POST
// …/schedule answers it: {release, status: "scheduled" |
// "approval-pending", approvalId?}.
func ScheduleJSON(ctx context.Context, rel *releases.Releases, u engine.User, row releases.ReleaseRow) (any, error) {
	h := &Handler{eng: rel.Engine, releases: rel}
	return h.scheduleOut(context.WithValue(ctx, userKey{}, u), u, row)
}

// GateJSON is a gate change's answer as POST …/gates answers it (§12
// set_embargo, lift_embargo, schedule_unpublish): {node, release?, status,
// approvalId?}.
func GateJSON(ctx context.Context, rel *releases.Releases, u engine.User, res gates.GateResult) (any, error) {
	h := &Handler{eng: rel.Engine, releases: rel}
	return h.answerGate(context.WithValue(ctx, userKey{}, u), res)
}

// ReleaseViewJSON is §12's ReleaseView as GET …/releases/{id} answers it.
func ReleaseViewJSON(v releases.ReleaseView) any { return releaseViewOf(v) }

// AutomationJSON is an automation as GET …/automations answers it (§4.3;
// never a key's secret), with what u may do with it.
func AutomationJSON(u engine.User, a automations.Automation, sitePaused bool) any {
	return automationOf(u, a, sitePaused)
}

// RunJSON is a ScheduleRun as GET …/runs answers it (§4.4).
func RunJSON(r automations.Run) any { return runOf(r) }

// NodeJSON is a page or an entry as GET …/entries/{id} answers it: the
// working copy, the live version, the rev and the hold.
func NodeJSON(ctx context.Context, rel *releases.Releases, u engine.User, d releases.NodeDetail) any {
	h := &Handler{eng: rel.Engine, releases: rel}
	return h.nodeOf(context.WithValue(ctx, userKey{}, u), d)
}

// runDetailJSON is §12 get_run's answer: the ScheduleRun and its trail.
type runDetailJSON struct {
	runJSON
	AuditRowIDs []int64  `json:"auditRowIds"`
	Snapshots   []string `json:"snapshots"`
	Approvals   []string `json:"approvals"`
}

// RunDetailJSON is a run with its audit rows, snapshots and approvals
// (§12 get_run).
func RunDetailJSON(d automations.RunDetail) any {
	return runDetailJSON{runJSON: runOf(d.Run), AuditRowIDs: d.AuditRowIDs, Snapshots: d.Snapshots, Approvals: d.Approvals}
}
