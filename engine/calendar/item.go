package calendar

import (
	"context"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/policy"
)

// Item is one calendar item of a site by its id, as Calendar lists it (§12
// get_schedule): "rel_…" a release with a time, "gate:<nodeId>:from|until"
// a gate, "occ:<automationId>:<at>" an occurrence of an automation's rule.
// Canceled, denied and expired items are found too (by id, nothing is
// filtered away). An id of another shape, of no such item, or of a release
// without a time is engine.ErrNotFound.
func (e *Calendar) Item(ctx context.Context, u engine.User, siteID, id string) (CalendarItem, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return CalendarItem{}, err
	}
	if _, err := e.store.Site(ctx, siteID); err != nil {
		return CalendarItem{}, err
	}
	at, err := e.itemInstant(ctx, siteID, id)
	if err != nil {
		return CalendarItem{}, err
	}
	q := CalendarQuery{SiteID: siteID, States: StateFacets, Approvals: ApprovalFacets}
	set, err := e.calendarSet(ctx, u, q, at, at.Add(time.Millisecond), true)
	if err != nil {
		return CalendarItem{}, err
	}
	items, err := e.calendarPage(ctx, set, position{}, CalendarMaxItems)
	if err != nil {
		return CalendarItem{}, err
	}
	for _, it := range items {
		if it.ID == id {
			return it, nil
		}
	}
	return CalendarItem{}, engine.ErrNotFound
}

// itemInstant is the instant the item id stands at: the occurrence's, in
// its id; a gate's, on its node; a release's execute time.
func (e *Calendar) itemInstant(ctx context.Context, siteID, id string) (time.Time, error) {
	switch {
	case strings.HasPrefix(id, "occ:"):
		_, at, ok := strings.Cut(strings.TrimPrefix(id, "occ:"), ":")
		t, err := localtime.ParseInstant(at)
		if !ok || err != nil {
			return time.Time{}, engine.ErrNotFound
		}
		return t.Truncate(time.Millisecond), nil
	case strings.HasPrefix(id, "gate:"):
		nodeID, edge, ok := strings.Cut(strings.TrimPrefix(id, "gate:"), ":")
		if !ok {
			return time.Time{}, engine.ErrNotFound
		}
		gates, err := e.store.CalendarGates(ctx, siteID, time.Unix(0, 0).UTC(), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return time.Time{}, err
		}
		for _, g := range gates {
			if g.NodeID == nodeID && g.Edge == edge {
				return g.At.UTC().Truncate(time.Millisecond), nil
			}
		}
	case strings.HasPrefix(id, "rel_"):
		r, err := e.store.Release(ctx, siteID, id)
		if err != nil {
			return time.Time{}, err
		}
		if r.ExecuteAt != nil {
			return r.ExecuteAt.UTC().Truncate(time.Millisecond), nil
		}
	}
	return time.Time{}, engine.ErrNotFound
}
