package settings

import (
	"context"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/calendar"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// What the kill switch holds and what it does not (RFC §11.6, §7). Pausing
// stops the ticker from claiming the site's releases and automations; it
// does not stop gates. An embargo's lift or an expiry is content: the
// public site checks it on every request, with or without a scheduler, so
// it happens at its time whether or not the site is paused. The pause
// dialog and the paused banner say so and list the ones due soon, each with
// the way to change it; the Scheduler card and the calendar name the
// releases the pause holds.

// PauseWindow is how far ahead the kill switch's dialog and banner list the
// gates that still happen: a day.
const PauseWindow = 24 * time.Hour

// PauseListRows is how many gates and held releases PauseEffects lists; the
// rest are counted.
const PauseListRows = 10

// GateAhead is a gate of a live page or entry that the public site applies
// at its time, paused or not.
type GateAhead struct {
	NodeID   string
	NodeKind release.NodeKind
	Title    string
	Edge     string // "from": the embargo lifts; "until": it expires
	At       time.Time
}

// HeldRelease is a scheduled release whose time has come while the site is
// paused: it waits, and is missed once its late limit passes.
type HeldRelease struct {
	ID    string
	Title string
	At    time.Time
}

// PauseEffects is what pausing the site's schedules leaves running and what
// it holds, at Now.
type PauseEffects struct {
	Now time.Time
	// Gates are the embargo lifts and expiries of the live site in [Now,
	// Now + PauseWindow), in time order, at most PauseListRows; MoreGates
	// counts the others.
	Gates     []GateAhead
	MoreGates int
	// Paused says the site's schedules are paused now; Held lists (at most
	// PauseListRows, then HeldCount counts them all) the releases the
	// pause holds, oldest first.
	Paused    bool
	Held      []HeldRelease
	HeldCount int
}

// PauseEffects reads what the kill switch leaves running (the gates of the
// live site due in the next PauseWindow) and, while the site is paused,
// what it holds. Everyone who sees the Schedules page sees its banner, so
// it needs schedules:read.
//
// The gates come from the working copies' gate index and are kept only
// where the live version is published with the same gate at the same
// instant: a draft's gate changes nothing public, and neither does a
// working copy's new gate until it is live.
func (e *Settings) PauseEffects(ctx context.Context, u engine.User, siteID string) (PauseEffects, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return PauseEffects{}, err
	}
	now := e.e.Now()
	out := PauseEffects{Now: now}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return out, err
	}
	set, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil {
		return out, err
	}
	out.Paused = set.Paused
	gates, err := e.store.CalendarGates(ctx, siteID, now, now.Add(PauseWindow))
	if err != nil {
		return out, err
	}
	slices.SortFunc(gates, func(a, b calendar.CalendarGate) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.NodeID+a.Edge, b.NodeID+b.Edge)
	})
	for _, g := range gates {
		if !g.At.After(now) || site.PublishedSnapshotID == "" {
			continue // passed already, to the millisecond (the index reads whole seconds)
		}
		if len(out.Gates) == PauseListRows {
			out.MoreGates++
			continue
		}
		live, err := e.store.LiveNodes(ctx, site.PublishedSnapshotID, g.NodeID)
		if err != nil {
			return out, err
		}
		if len(live) != 1 || !liveGateAt(live[0].Body, g.Edge, g.At) {
			continue
		}
		out.Gates = append(out.Gates, GateAhead{NodeID: g.NodeID, NodeKind: g.NodeKind, Title: g.Title, Edge: g.Edge, At: g.At})
	}
	if !set.Paused {
		return out, nil
	}
	rows, err := e.store.CalendarReleases(ctx, calendar.CalendarReleaseQuery{SiteID: siteID,
		From: now.Add(-heldLookBack), To: now.Add(time.Millisecond), States: []release.State{release.StateScheduled}})
	if err != nil {
		return out, err
	}
	out.HeldCount = len(rows)
	for _, r := range rows[:min(len(rows), PauseListRows)] {
		out.Held = append(out.Held, HeldRelease{ID: r.ID, Title: r.Title, At: r.At})
	}
	return out, nil
}

// heldLookBack is how far back PauseEffects looks for held releases: the
// ticker marks a held release missed an hour past its time (§8.6), so only
// a ticker that has not run for a week leaves older ones.
const heldLookBack = 7 * 24 * time.Hour

// liveGateAt reports whether a live body is published with its edge gate
// at exactly at.
func liveGateAt(b content.Body, edge string, at time.Time) bool {
	if b.Status != content.StatusPublished || b.Availability == nil {
		return false
	}
	t := b.Availability.From
	if edge == "until" {
		t = b.Availability.Until
	}
	return t != nil && t.Equal(at)
}
