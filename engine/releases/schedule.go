package releases

import (
	"cmp"
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// ScheduleInput is a person's "Schedule…" form: a date and a time in the
// site's zone, for the node they last saw at ExpectedRev.
type ScheduleInput struct {
	SiteID      string
	NodeID      string
	ExpectedRev int64
	Date        string // YYYY-MM-DD
	Time        string // HH:MM
}

// ScheduleNode schedules the publish of one page or entry (RFC §6.1): a
// release pinned to the node's current version (with its status set to
// published), based on its live version, with its dependency closure as
// "New release…" adds it (what it uses that is not live: an unpublished
// image, a draft page; closureAdded, each promoted like the node; a
// reference to a node that is not in the site is dependency_missing now,
// not at its time). A node another release holds joins as it is, an
// overlap both releases show (D15); one that would need a new version is
// scheduled_locked. A
// person who may approve releases schedules it directly; anyone else's
// waits for approval.
func (e *Releases) ScheduleNode(ctx context.Context, u engine.User, in ScheduleInput) (release.Release, error) {
	if err := engine.Require(u, in.SiteID, policy.SchedulesWrite); err != nil {
		return release.Release{}, err
	}
	site, err := e.store.Site(ctx, in.SiteID)
	if err != nil {
		return release.Release{}, err
	}
	at, wall, err := e.resolveInput(site, in.Date, in.Time)
	if err != nil {
		return release.Release{}, err
	}
	now := e.Now()
	if err := checkRequestTime(u, at, now); err != nil {
		return release.Release{}, err
	}

	d, err := e.node(ctx, in.SiteID, in.NodeID)
	if err != nil {
		return release.Release{}, err
	}
	if d.Kind != release.KindPage && d.Kind != release.KindContentEntry {
		return release.Release{}, engine.Refuse("bad_node_kind", "")
	}
	if d.Rev != in.ExpectedRev {
		return release.Release{}, engine.Refuse(engine.CodeStale, "")
	}
	if !u.May(policy.SchedulesWrite, nodeOwn(u, d)) {
		return release.Release{}, engine.Refuse(engine.CodeForbidden, "") // someone else's node, at the own level
	}

	// Scheduling a publish means the pinned version is the published one: a
	// draft gets a new version with its status set and, when first published,
	// its date set to its embargo's from or else the release's time (§7.5);
	// it is saved in the same transaction as the release.
	var newVersions []content.Node
	target, promoted := publishVersion(d.Node, at, now)
	if promoted {
		// A held node pinned as it is, is an overlap (D15); one that needs
		// a new version is locked (§6.2).
		if d.Held != nil {
			return release.Release{}, LockedBy(d.Held)
		}
		newVersions = append(newVersions, target)
	}
	item := release.Item{Op: release.OpSet, NodeID: d.ID, NodeKind: d.Kind,
		Target: &release.Version{Rev: target.Rev, Hash: target.Hash}, Deps: target.Body.Refs}
	if promoted {
		item.RestoreRev = d.Rev
	}
	if d.Live != nil {
		item.Base = &release.Version{Rev: d.Live.Rev, Hash: d.Live.Hash}
	}

	// The dependency closure, exactly as "New release…" adds it (§6.1 step
	// 2): what the node uses that is not live joins the release, pinned as
	// it is and promoted like the node, so it goes live at the same time.
	id := ids.New("rel")
	g, items, err := e.nodeClosure(ctx, site.ID, id, item)
	if err != nil {
		return release.Release{}, err
	}
	pinned := map[string]int64{d.ID: d.Rev}
	slugRev := map[string]int64{d.ID: d.Rev}
	for i := 1; i < len(items); i++ {
		n := g.nodes[items[i].NodeID]
		pinned[n.ID], slugRev[n.ID] = n.Rev, n.Rev
		if t, ok := publishVersion(n, at, now); ok {
			if err := g.lockedFor(n.ID, id); err != nil {
				return release.Release{}, err
			}
			newVersions = append(newVersions, t)
			items[i].Target = &release.Version{Rev: t.Rev, Hash: t.Hash}
			items[i].RestoreRev = n.Rev
		}
	}
	if err := g.validate(items); err != nil {
		return release.Release{}, err
	}
	// At the own level, what the closure added must be this person's too,
	// but for images it added (the rule CreateDraft keeps).
	own := ownItems(u, items, g.authors())
	if !u.May(policy.SchedulesWrite, own) {
		return release.Release{}, engine.Refuse(engine.CodeForbidden, "")
	}
	if err := e.releaseAddresses(ctx, site.ID, items, slugRev); err != nil {
		return release.Release{}, err // it would take over a live address
	}

	r := release.Release{
		SchemaVersion: 1, ID: id, SiteID: site.ID, Title: d.Body.Title, Items: items,
		When:      &release.When{Kind: "at", At: at, TimeZone: site.TimeZone, LocalTime: wall.String()},
		State:     release.StateAwaitingApproval,
		Hash:      release.Hash(site.ID, items),
		CreatedBy: u.Actor(), CreatedAt: now, UpdatedAt: now, Rev: 1,
		ClosureAdded: release.Closure(items),
	}
	if mayApproveRelease(u, own) { // an Author approves their own article
		r.State = release.StateScheduled
		r.Approval = &release.Approval{Kind: "person", By: u.Actor(), At: now, ExecuteAt: &at}
	}
	audit := engine.AuditEntry{Action: "release.schedule", Actor: u.Actor(), SiteID: site.ID, ReleaseID: r.ID, At: now,
		Details: map[string]any{"at": localtime.FormatInstant(at), "localTime": wall.String(),
			"timeZone": site.TimeZone, "hash": r.Hash, "state": r.State}}
	if added := release.Closure(items); len(added) > 0 {
		audit.Details["closureAdded"] = added
	}
	nr := NewRelease{Release: r, ExecuteAt: &at, PinnedRevs: pinned, NewVersions: newVersions, Audit: audit, Overlap: true}
	if r.State == release.StateAwaitingApproval {
		nr.Request = newRequest(u, r, &at, now) // one request, bound to rl1: and the time (§10.4)
	}
	err = e.insertRelease(ctx, u, nr)
	if errors.Is(err, engine.ErrConflict) {
		return release.Release{}, engine.Refuse(engine.CodeStale, "")
	}
	if err != nil {
		return release.Release{}, err
	}
	e.Poke()
	return r, nil
}

// publishVersion is the version of n a scheduled publish pins: n itself
// when it is published with a publication date; otherwise a new version
// (rev+1, not yet saved) with its status set to published and, when it had
// no date, publishedAt set to its embargo's from or else at (§7.5).
func publishVersion(n content.Node, at, now time.Time) (content.Node, bool) {
	if n.Body.Status == content.StatusPublished && n.Body.PublishedAt != nil {
		return n, false
	}
	n.Body.Status = content.StatusPublished
	n.Body.PublishedAt = content.FirstPublishedAt(n.Body, at)
	n.Rev, n.Hash, n.UpdatedAt = n.Rev+1, content.Hash(n.Body), now
	return n, true
}

// nodeClosure reads the item's part of the site's graph (readGraphOf) and
// adds the dependency closure to a one-item release's item (§6.1 step 2,
// closeOver): the item stays first, what it needs follows with
// AddedBecause set.
func (e *Releases) nodeClosure(ctx context.Context, siteID, releaseID string, item release.Item) (*graph, []release.Item, error) {
	g, err := e.readGraphOf(ctx, siteID, release.Touched([]release.Item{item}))
	if err != nil {
		return nil, nil, err
	}
	items, err := g.closeOver(releaseID, []release.Item{item})
	if err != nil {
		return nil, nil, err
	}
	return g, items, nil
}

// ClosureItem is a node the dependency closure adds to a release, named
// for a person: its title and kind, and the item that uses it.
type ClosureItem struct {
	NodeID    string
	Kind      release.NodeKind
	Title     string
	BecauseID string
	Because   string // the title of the item that uses it
}

// ScheduleClosure is what "Schedule…" of nodeID would add to its release
// now (§6.1 step 2), in the order ScheduleNode adds it, or the refusal the
// closure would give (dependency_missing, scheduled_locked), so the form
// shows before confirming what will be published with the node.
func (e *Releases) ScheduleClosure(ctx context.Context, u engine.User, siteID, nodeID string) ([]ClosureItem, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	d, err := e.node(ctx, siteID, nodeID)
	if err != nil {
		return nil, err
	}
	item := release.Item{Op: release.OpSet, NodeID: d.ID, NodeKind: d.Kind,
		Target: &release.Version{Rev: d.Rev, Hash: d.Hash}, Deps: d.Body.Refs}
	g, items, err := e.nodeClosure(ctx, siteID, "", item)
	if err != nil {
		return nil, err
	}
	var out []ClosureItem
	for _, it := range items[1:] {
		out = append(out, ClosureItem{NodeID: it.NodeID, Kind: it.NodeKind, Title: g.title(it.NodeID),
			BecauseID: it.AddedBecause, Because: g.title(it.AddedBecause)})
	}
	return out, nil
}

// Release returns one release of a site.
func (e *Releases) Release(ctx context.Context, u engine.User, siteID, id string) (ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ReleaseRow{}, err
	}
	return e.store.Release(ctx, siteID, id)
}

// Releases lists a site's releases timed in [from, to) and undated drafts.
func (e *Releases) Releases(ctx context.Context, u engine.User, siteID string, from, to time.Time) ([]ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	return e.store.Releases(ctx, siteID, from, to)
}

// Unschedule takes a release off the calendar: it becomes a draft again and
// its nodes are no longer held (§5.2, §6.2).
func (e *Releases) Unschedule(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return err
	}
	if !release.CanTransition(r.State, release.StateDraft) {
		return engine.Refuse(engine.CodeBadState, "")
	}
	now := e.Now()
	audit := engine.AuditEntry{Action: "release.unschedule", Actor: u.Actor(), SiteID: siteID, ReleaseID: id, At: now}
	return e.setState(ctx, r, release.StateDraft, nil, audit)
}

// Cancel ends a release without publishing it. A running release cannot be
// canceled: its outcome is seconds away (§8.5). An agent cancels only
// what its mode allows outright (agentMayCancel).
func (e *Releases) Cancel(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return err
	}
	if r.State == release.StateRunning {
		return engine.Refuse(engine.CodeRunning, "")
	}
	if !release.CanCancel(r.State) {
		return engine.Refuse(engine.CodeBadState, "")
	}
	if u.Agent != nil {
		if err := agentMayCancel(u, r.Items); err != nil {
			return err
		}
	}
	now := e.Now()
	by := u.Actor()
	outcome := &release.Outcome{Kind: "canceled", At: now, By: &by, From: r.State}
	audit := engine.AuditEntry{Action: "release.cancel", Actor: by, SiteID: siteID, ReleaseID: id, At: now}
	return e.setState(ctx, r, release.StateCanceled, outcome, audit)
}

// UndoCancelFor is how long a person may take back their own Cancel: the
// few seconds of the Undo a move or an Unschedule offers (§15.1).
const UndoCancelFor = 10 * time.Second

// CodeUndoGone refuses an Undo of a Cancel that can no longer be taken
// back: someone else's, too late, or of a release that was waiting for
// approval or in conflict.
const CodeUndoGone = "undo_gone"

// UndoCancel takes back the person's own Cancel of release id within
// UndoCancelFor: it goes back to the state it had (a draft, or scheduled
// with its time and approval), holds its nodes again and puts the versions
// it pins back as their working copies where the Cancel had restored
// drafts. Refused as stale when the release or any of its nodes changed
// since the Cancel.
func (e *Releases) UndoCancel(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
	if err := engine.Require(u, siteID, policy.SchedulesWrite); err != nil {
		return err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return err
	}
	o := r.Outcome
	if r.State != release.StateCanceled || o == nil || o.By == nil || *o.By != u.Actor() ||
		!release.CanUndoCancel(o.From) || e.Now().Sub(o.At) > UndoCancelFor {
		return engine.Refuse(CodeUndoGone, "")
	}
	if r.Rev != rev {
		return engine.Refuse(engine.CodeStale, "")
	}
	for _, it := range r.Items {
		if it.Op != release.OpSet {
			continue
		}
		n, err := e.store.Node(ctx, siteID, it.NodeID)
		if err != nil {
			return err
		}
		if same, err := e.asLeft(ctx, it, n); err != nil || !same {
			return cmp.Or(err, error(engine.Refuse(engine.CodeStale, "")))
		}
	}
	audit := engine.AuditEntry{Action: "release.uncancel", Actor: u.Actor(), SiteID: siteID, ReleaseID: id, At: e.Now()}
	err = e.changeRelease(ctx, Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateCanceled}, To: o.From,
		Repromote: true, Audit: audit})
	if errors.Is(err, engine.ErrConflict) {
		return engine.Refuse(engine.CodeStale, "")
	}
	if err == nil {
		e.Poke()
	}
	return err
}

// changeable loads a release the person may change (mayChangeRelease: the
// rule ReleaseAbilities shows), at the rev they saw.
func (e *Releases) changeable(ctx context.Context, u engine.User, siteID, id string, rev int64) (ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.SchedulesWrite); err != nil {
		return ReleaseRow{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return ReleaseRow{}, err
	}
	f, err := e.releaseRule(ctx, u, r)
	if err != nil {
		return ReleaseRow{}, err
	}
	if !mayChangeRelease(u, f) {
		return ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "")
	}
	if r.Rev != rev {
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
	}
	return r, nil
}

func (e *Releases) setState(ctx context.Context, r ReleaseRow, to release.State, o *release.Outcome, audit engine.AuditEntry) error {
	err := e.changeRelease(ctx, Change{ID: r.ID, Rev: r.Rev, From: []release.State{r.State}, To: to, Outcome: o, Audit: audit})
	if errors.Is(err, engine.ErrConflict) {
		return engine.Refuse(engine.CodeStale, "")
	}
	if err == nil {
		e.Poke()
	}
	return err
}

// Move gives a scheduled or waiting release a new date and time in the
// site's zone (D4, Studio's form): Reschedule with that time.
func (e *Releases) Move(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (ReleaseRow, error) {
	return e.Reschedule(ctx, u, siteID, id, rev, WhenInput{Date: date, Clock: clock})
}

// Reschedule gives a scheduled or waiting release a new time, in any of
// the forms a release can be scheduled with (§12 reschedule: an instant, a
// wall-clock time in a zone, or a date and time in the site's zone); "on
// approval" is not a time to move to (CodeMoveNeedsTime). A person who may
// approve it keeps the approval: the content hash is unchanged and moving
// is their decision (audited with both times). Anyone else's move needs
// approval again: a new request bound to the new time, and the old one is
// withdrawn. An agent's move never keeps an approval (D4): it files a
// request, or in auto mode carries its key's auto approval when the
// release passes as schedule_release would (§12).
func (e *Releases) Reschedule(ctx context.Context, u engine.User, siteID, id string, rev int64, in WhenInput) (ReleaseRow, error) {
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return ReleaseRow{}, err
	}
	if r.State != release.StateScheduled && r.State != release.StateAwaitingApproval {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return ReleaseRow{}, err
	}
	if in.OnApproval {
		return ReleaseRow{}, engine.Refuse(CodeMoveNeedsTime, "when")
	}
	w, err := e.resolveWhen(site, in)
	if err != nil {
		return ReleaseRow{}, err
	}
	at, wall := w.at, w.wall
	now := e.Now()
	if err := checkRequestTime(u, at, now); err != nil {
		return ReleaseRow{}, err
	}
	by := u.Actor()
	c := Change{ID: r.ID, Rev: r.Rev, From: []release.State{r.State}, ExecuteAt: &at, Moved: true, LocalTime: wall.String(), TimeZone: w.zone,
		Audit: engine.AuditEntry{Action: "release.reschedule", Actor: by, SiteID: siteID, ReleaseID: r.ID, At: now,
			Details: map[string]any{"from": instantOrEmpty(r.ExecuteAt), "to": localtime.FormatInstant(at), "localTime": wall.String()}}}
	own, err := e.ownsRelease(ctx, u, siteID, r.Items)
	if err != nil {
		return ReleaseRow{}, err
	}
	var auto *release.Approval
	if u.Agent != nil {
		// An agent's move always voids the approval (D4); in auto mode
		// the move is re-decided as schedule_release would decide it.
		if auto, err = agentApproval(u, "reschedule", "", r.Items, own, at, now); err != nil {
			return ReleaseRow{}, err
		}
	}
	switch {
	case auto != nil:
		c.To = release.StateScheduled
		auto.ExecuteAt = &at
		c.Approval = auto
		c.Audit.Details["approval"] = auto.Kind
	case r.State == release.StateScheduled && r.Approval != nil && mayApproveRelease(u, own):
		c.To = release.StateScheduled
		kept := *r.Approval
		kept.ExecuteAt = &at
		c.Approval = &kept
	default:
		c.To = release.StateAwaitingApproval
		moved := r.Release
		moved.CreatedBy = by // the request is this person's
		c.Request = newRequest(u, moved, &at, now)
		c.Audit.Details["approval"] = "requested"
	}
	if err := e.changeRelease(ctx, c); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
		}
		return ReleaseRow{}, err
	}
	e.Poke()
	return e.store.Release(ctx, siteID, r.ID)
}

// resolveInput turns a person's date and time in the site's zone into an
// instant that passes the release time limits (§6.1), or a field refusal.
func (e *Releases) resolveInput(site engine.Site, date, clock string) (time.Time, localtime.Wall, error) {
	loc, err := localtime.LoadZone(site.TimeZone)
	if err != nil {
		return time.Time{}, localtime.Wall{}, engine.Refuse("bad_zone", "")
	}
	wall, err := localtime.ParseDateAndTime(date, clock)
	if err != nil {
		field := "time"
		if errors.Is(err, localtime.ErrBadDate) {
			field = "date"
		}
		return time.Time{}, localtime.Wall{}, engine.Refuse(engine.CodeOf(err), field)
	}
	at, _ := localtime.Resolve(wall, loc)
	at = at.UTC()
	if err := release.CheckTime(at, e.Now()); err != nil {
		return time.Time{}, localtime.Wall{}, engine.Refuse(engine.CodeOf(err), "time")
	}
	return at, wall, nil
}

// SoonWarning is how close a chosen time may be before the Schedule form
// warns that it is only minutes away (§9.2, §15.4: a release runs within
// about a minute of its time, so a person may mean a later one).
const SoonWarning = 5 * time.Minute

// ScheduleTime is what a person's date and time in the site's zone would
// schedule a release for: the instant; Gap when that wall-clock time does
// not exist on the day (a clock change skips it, so it runs at At, later
// on the clock, D2); Soon when At is less than SoonWarning away.
type ScheduleTime struct {
	At        time.Time
	Gap, Soon bool
}

// CheckScheduleTime is what a person's date and time in the site's zone
// would schedule a release for, or the refusal scheduling it would give
// (time_in_past, too_soon, too_far, or a bad date or time): the Schedule
// forms' live preview says one or the other, never a publish sentence for
// a time that would be refused.
func (e *Releases) CheckScheduleTime(site engine.Site, date, clock string) (ScheduleTime, error) {
	at, wall, err := e.resolveInput(site, date, clock)
	if err != nil {
		return ScheduleTime{}, err
	}
	loc, _ := localtime.LoadZone(site.TimeZone) // resolveInput loaded it
	return ScheduleTime{At: at, Gap: localtime.WallOf(at, loc) != wall, Soon: at.Sub(e.Now()) < SoonWarning}, nil
}

func instantOrEmpty(t *time.Time) string {
	if t == nil {
		return ""
	}
	return localtime.FormatInstant(*t)
}

// ReleaseHistory is what happened to a release, from its audit rows.
func (e *Releases) ReleaseHistory(ctx context.Context, u engine.User, siteID, id string) ([]engine.AuditEntry, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	if _, err := e.store.Release(ctx, siteID, id); err != nil {
		return nil, err // also keeps one site's history from another's pages
	}
	return e.store.ReleaseHistory(ctx, id)
}
