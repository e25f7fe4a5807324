package nodes

import (
	"context"
	"slices"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
)

// HistoryKind is a family of the site's history (issue 15's History page):
// what was published, unpublished, scheduled, approved or denied, paused
// and resumed, and who joined or left. "" is all of them.
type HistoryKind string

// The history's families.
const (
	HistoryPublished   HistoryKind = "published"
	HistoryUnpublished HistoryKind = "unpublished"
	HistoryScheduled   HistoryKind = "scheduled"
	HistoryNotRun      HistoryKind = "not_run" // expired, failed, held as a conflict, missed
	HistoryApprovals   HistoryKind = "approvals"
	HistoryPauses      HistoryKind = "pauses"
	HistoryAutomations HistoryKind = "automations"
	HistoryPeople      HistoryKind = "people"
)

// HistoryKinds are the families, in the order a filter offers them.
var HistoryKinds = []HistoryKind{HistoryPublished, HistoryUnpublished, HistoryScheduled, HistoryNotRun, HistoryApprovals,
	HistoryPauses, HistoryAutomations, HistoryPeople}

var notRun = []string{"release.expired", "release.failed", "release.conflict", "release.missed", "release.publish_now_failed"}

// historyActions are each family's audit actions, as SQL LIKE patterns
// (AuditFilter.Include), and the actions a broader pattern takes in that
// belong to another family (Exclude).
var historyActions = map[HistoryKind]struct{ include, exclude []string }{
	HistoryPublished:   {include: []string{"release.publish", "release.publish_now", "site.publish"}},
	HistoryUnpublished: {include: []string{"release.undo", "node.delete"}},
	HistoryScheduled: {include: []string{"release.%"},
		exclude: append([]string{"release.publish", "release.publish_now", "release.undo"}, notRun...)},
	HistoryNotRun:      {include: notRun},
	HistoryApprovals:   {include: []string{"approval.%"}},
	HistoryPauses:      {include: []string{"site.schedules_pause", "site.schedules_resume"}},
	HistoryAutomations: {include: []string{"automation.%", "agent.key.%", "mcp.tool"}},
	HistoryPeople:      {include: []string{"member.%", "studio.setup", "site.created"}},
}

// peopleOnly are the actions only those who manage a site's people read:
// who was invited (their email), who left.
var peopleOnly = []string{"member.%", "token.%", "auth.%"}

// HistoryFilter is what the History page filters by (its URL).
type HistoryFilter struct {
	Kind HistoryKind
	// ActorKind is "person", "agent" or "system" (the scheduler); "" all.
	ActorKind string
	// ReleaseID narrows to one release's rows.
	ReleaseID string
}

// ActorKinds are who acts, in the order a filter offers them.
var ActorKinds = []string{"person", "agent", "system"}

// known drops what Studio does not know: no filter rather than none found.
func (f HistoryFilter) known() HistoryFilter {
	if _, ok := historyActions[f.Kind]; !ok {
		f.Kind = ""
	}
	if !slices.Contains(ActorKinds, f.ActorKind) {
		f.ActorKind = ""
	}
	return f
}

// AuditFilter is one read of a site's audit rows, newest first.
type AuditFilter struct {
	SiteID           string
	Include, Exclude []string // SQL LIKE patterns of actions; no Include is every action
	ActorKind        string
	ReleaseID        string
	BeforeID         int64 // rows older than this one; 0 from the newest
	Limit            int
}

// AuditRow is an audit row with its place in the site's history.
type AuditRow struct {
	ID int64
	engine.AuditEntry
}

// HistoryRow is one act of the site's history.
type HistoryRow struct {
	AuditRow
	// Release is the release it was about, when it still exists.
	Release *releases.ReleaseRow
	// OnBehalfOf is the person the scheduler acted for (the approver of
	// the release it published), nil for an act of a person or agent.
	OnBehalfOf *release.Actor
}

// HistoryPage is a page of the site's history: Rows, and Next, the cursor
// of the page after (0 for none).
type HistoryPage struct {
	Rows   []HistoryRow
	Filter HistoryFilter
	Next   int64
}

// HistoryPageSize is how many rows a History page shows.
const HistoryPageSize = 50

// SiteHistory reads a page of the site's history in f, before the row
// before (0: from the newest), newest first, for u, who holds
// schedules:read; the rows about people (who was invited or removed) only
// for those who manage them (site:settings). limit ≤ 0 is a page.
func (ns *Nodes) SiteHistory(ctx context.Context, u engine.User, siteID string, f HistoryFilter, before int64, limit int) (HistoryPage, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return HistoryPage{}, err
	}
	f = f.known()
	if limit <= 0 {
		limit = HistoryPageSize
	}
	q := AuditFilter{SiteID: siteID, ActorKind: f.ActorKind, ReleaseID: f.ReleaseID, BeforeID: before, Limit: limit + 1}
	if a, ok := historyActions[f.Kind]; ok {
		q.Include, q.Exclude = a.include, a.exclude
	}
	if !u.Passes(policy.SiteSettings) {
		q.Exclude = append(slices.Clone(q.Exclude), peopleOnly...)
		if f.Kind == HistoryPeople {
			q.Include = []string{"studio.setup", "site.created"}
		}
	}
	rows, err := ns.store.SiteAudit(ctx, q)
	if err != nil {
		return HistoryPage{}, err
	}
	page := HistoryPage{Filter: f}
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = rows[limit-1].ID
	}
	var ids []string
	for _, r := range rows {
		if r.ReleaseID != "" && !slices.Contains(ids, r.ReleaseID) {
			ids = append(ids, r.ReleaseID)
		}
	}
	releases := map[string]*releases.ReleaseRow{}
	if len(ids) > 0 {
		rs, err := ns.store.ReleasesByID(ctx, siteID, ids)
		if err != nil {
			return HistoryPage{}, err
		}
		for i := range rs {
			releases[rs[i].ID] = &rs[i]
		}
	}
	for _, r := range rows {
		h := HistoryRow{AuditRow: r, Release: releases[r.ReleaseID]}
		if r.Actor.Kind == "system" && h.Release != nil && h.Release.Approval != nil && h.Release.Approval.By.Kind != "" {
			by := h.Release.Approval.By
			h.OnBehalfOf = &by
		}
		page.Rows = append(page.Rows, h)
	}
	return page, nil
}
