package releases

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Refusal codes of draft releases (§6.1), besides the item codes of
// engine/model/release, stale, bad_state, scheduled_locked, not_found,
// pinned_changed and dependency_missing.
const (
	// CodeTooManyReleases: the site already has MaxOpenReleases releases
	// that are not finished (§6.1 step 7).
	CodeTooManyReleases = "too_many_releases"
	// CodeNotLive: a removal names a page or entry that is not live, so
	// there is nothing to take down.
	CodeNotLive = "not_live"
	// CodeItemNeeded: an item cannot leave the release because another
	// item that stays uses it (§6.1 step 2).
	CodeItemNeeded = "item_needed"
	// CodeBadTitle: a release title that is not one line of 1 to 200
	// characters without control characters or bidi overrides.
	CodeBadTitle = "bad_title"
	// CodeNodeDeleted: an item's node was deleted; the person removes it.
	CodeNodeDeleted = "node_deleted"
)

// MaxOpenReleases is the most releases that are not finished (draft,
// waiting for approval, scheduled, running) a site may have (§6.1 step 7).
const MaxOpenReleases = 200

// Overlap is another pending release carrying some of a release's nodes
// (§6.2 Overlaps, D15): allowed, and flagged on both.
type Overlap struct {
	ReleaseID string
	Title     string
	State     release.State
	At        *time.Time // nil for a draft without a time
	NodeIDs   []string   // the shared nodes, in id order
}

// DraftInput is a new draft release (§5.2 "(new) → draft"): the pages and
// entries to publish (their current working copies) and the live ones to
// take down at the release's time ("Unpublish at this time", §6.1 step 3).
// An empty title takes the first named node's title.
type DraftInput struct {
	SiteID    string
	Title     string
	NodeIDs   []string
	RemoveIDs []string
	// When, if set, is the time the draft proposes (§12 propose_release's
	// at | {localTime, timeZone?}, or "on-approval"): checked now, kept on
	// the draft, and the time ScheduleReleaseWhen takes when given none.
	When *WhenInput
	// Note is the proposer's note for the people who decide (§12
	// propose_release: plain text, at most MaxNoteLength), kept on the
	// release's audit row.
	Note string
	// ForSchedule: the draft is made to be scheduled at once (§12
	// schedule_release with nodeIds), so its time must be one the caller
	// may ask for (checkRequestTime): a time the schedule would refuse
	// refuses the draft too, and nothing is left behind.
	ForSchedule bool
}

// MaxNoteLength bounds a proposal's note (§12).
const MaxNoteLength = 500

// CodeBadNote: a note that is not plain text of at most MaxNoteLength.
const CodeBadNote = "bad_note"

// NewRelease creates a draft release of nodeIDs' current working copies,
// with their dependency closure (§6.1). It holds and locks nothing (§5.2).
func (e *Releases) NewRelease(ctx context.Context, u engine.User, siteID, title string, nodeIDs []string) (ReleaseRow, error) {
	return e.CreateDraft(ctx, u, DraftInput{SiteID: siteID, Title: title, NodeIDs: nodeIDs})
}

// CreateDraft creates a draft release (§5.2 "(new) → draft", §6.1): each
// named node's working copy is pinned (rev and hash) with its live version as
// base, each removal with the live version it takes down, and the
// dependency closure is added with the reason of each addition
// (closureAdded). Refusals name the node: not_found, bad_node_kind,
// duplicate_node, scheduled_locked (another release holds it),
// nothing_to_publish (its working copy is what is live), not_live (a removal
// of a node that is not live), dependency_missing (a reference that would
// not be on the site), too_many_items (more than 100 with the closure);
// and too_many_releases (§6.1 step 7). A refusal changes nothing.
func (e *Releases) CreateDraft(ctx context.Context, u engine.User, in DraftInput) (ReleaseRow, error) {
	if err := engine.Require(u, in.SiteID, policy.SchedulesWrite); err != nil {
		return ReleaseRow{}, err
	}
	title, err := cleanTitle(in.Title)
	if err != nil {
		return ReleaseRow{}, err
	}
	if len(in.NodeIDs)+len(in.RemoveIDs) == 0 {
		return ReleaseRow{}, engine.Refuse(release.CodeNoItems, "")
	}
	note := strings.TrimSpace(in.Note)
	if note != "" && !automation.PlainText(note, MaxNoteLength) {
		return ReleaseRow{}, engine.Refuse(CodeBadNote, "note")
	}
	var named []string
	for _, id := range slices.Concat(in.NodeIDs, in.RemoveIDs) {
		named = append(named, strings.TrimSpace(id))
	}
	g, err := e.readGraphOf(ctx, in.SiteID, named)
	if err != nil {
		return ReleaseRow{}, err
	}
	var when *release.When
	var executeAt *time.Time
	if in.When != nil {
		w, err := e.resolveWhen(g.site, *in.When)
		if err != nil {
			return ReleaseRow{}, err
		}
		if when = w.when(); !w.onApproval {
			executeAt = &w.at
			if in.ForSchedule {
				if err := checkRequestTime(u, w.at, e.Now()); err != nil {
					return ReleaseRow{}, err
				}
			}
		}
	}
	id := ids.New("rel")
	items, err := g.pinNamed(id, in.NodeIDs, in.RemoveIDs, nil)
	if err != nil {
		return ReleaseRow{}, err
	}
	if title == "" { // the first named node's, when it passes as a release title
		title, _ = cleanTitle(g.title(items[0].NodeID))
	}
	if items, err = g.closeOver(id, items); err != nil {
		return ReleaseRow{}, err
	}
	if err := g.validate(items); err != nil {
		return ReleaseRow{}, err
	}
	if !u.May(policy.SchedulesWrite, ownItems(u, items, g.authors())) {
		return ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "") // someone else's node, at the own level
	}
	now := e.Now()
	r := release.Release{SchemaVersion: 1, ID: id, SiteID: in.SiteID, Title: title, Items: items, When: when,
		State: release.StateDraft, Hash: release.Hash(in.SiteID, items),
		CreatedBy: u.Actor(), CreatedAt: now, UpdatedAt: now, Rev: 1}
	audit := engine.AuditEntry{Action: "release.create", Actor: u.Actor(), SiteID: in.SiteID, ReleaseID: id, At: now,
		Details: map[string]any{"hash": r.Hash, "items": len(items), "closureAdded": release.Closure(items)}}
	if note != "" {
		audit.Details["note"] = note
	}
	if when != nil {
		audit.Details["when"] = when.Kind
		if executeAt != nil {
			audit.Details["at"], audit.Details["localTime"], audit.Details["timeZone"] =
				localtime.FormatInstant(*executeAt), when.LocalTime, when.TimeZone
		}
	}
	err = e.insertRelease(ctx, u, NewRelease{Release: r, ExecuteAt: executeAt, PinnedRevs: pinnedRevs(g, items), Audit: audit, Overlap: true})
	if errors.Is(err, engine.ErrConflict) {
		// A draft pins held nodes as they are (D15): only a move since the
		// read stops it.
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
	}
	if err != nil {
		return ReleaseRow{}, err
	}
	return e.store.Release(ctx, in.SiteID, id)
}

// AddItems pins more nodes' working copies into a draft the person last saw
// at rev, with their dependency closure (§13 POST …/items).
func (e *Releases) AddItems(ctx context.Context, u engine.User, siteID, id string, rev int64, nodeIDs []string) (ReleaseRow, error) {
	return e.AddToDraft(ctx, u, siteID, id, rev, nodeIDs, nil)
}

// AddRemovals adds "Unpublish at this time" items to a draft: live pages and
// entries the release takes down (§6.1 step 3).
func (e *Releases) AddRemovals(ctx context.Context, u engine.User, siteID, id string, rev int64, nodeIDs []string) (ReleaseRow, error) {
	return e.AddToDraft(ctx, u, siteID, id, rev, nil, nodeIDs)
}

// AddToDraft adds both kinds in one change: setIDs to publish, removeIDs to
// take down (the "Add items" form ticks either).
func (e *Releases) AddToDraft(ctx context.Context, u engine.User, siteID, id string, rev int64, setIDs, removeIDs []string) (ReleaseRow, error) {
	if len(setIDs)+len(removeIDs) == 0 {
		return ReleaseRow{}, engine.Refuse(release.CodeNoItems, "")
	}
	return e.editDraft(ctx, u, siteID, id, rev, "release.add_items", func(r ReleaseRow, g *graph) ([]release.Item, map[string]any, error) {
		have := make(map[string]bool, len(r.Items))
		for _, it := range r.Items {
			have[it.NodeID] = true
		}
		added, err := g.pinNamed(r.ID, setIDs, removeIDs, have)
		if err != nil {
			return nil, nil, err
		}
		items, err := g.closeOver(r.ID, append(cloneItems(r.Items), added...))
		if err != nil {
			return nil, nil, err
		}
		var names []string
		for _, it := range items[len(r.Items):] {
			names = append(names, it.NodeID)
		}
		return items, map[string]any{"added": names}, nil
	})
}

// RemoveItem takes one item out of a draft the person last saw at rev,
// together with the closure-added items nothing left needs. An item another
// remaining item uses is refused (item_needed, naming both); so is removing
// the last item (no_items: cancel the release instead).
func (e *Releases) RemoveItem(ctx context.Context, u engine.User, siteID, id string, rev int64, nodeID string) (ReleaseRow, error) {
	return e.editDraft(ctx, u, siteID, id, rev, "release.remove_item", func(r ReleaseRow, g *graph) ([]release.Item, map[string]any, error) {
		found := false
		for _, it := range r.Items {
			found = found || it.NodeID == nodeID
		}
		if !found {
			return nil, nil, g.named(engine.CodeNotFound, nodeID)
		}
		kept, neededBy := release.DropItem(cloneItems(r.Items), nodeID, g.live)
		if neededBy != "" {
			return nil, nil, &engine.Error{Code: CodeItemNeeded, Args: map[string]any{"Node": nodeID, "Title": g.title(nodeID),
				"By": g.title(neededBy), "ByNode": neededBy}}
		}
		if len(kept) == 0 {
			return nil, nil, engine.Refuse(release.CodeNoItems, "")
		}
		keptIDs := make(map[string]bool, len(kept))
		for _, it := range kept {
			keptIDs[it.NodeID] = true
		}
		var removed []string
		for _, it := range r.Items {
			if !keptIDs[it.NodeID] {
				removed = append(removed, it.NodeID)
			}
		}
		return kept, map[string]any{"removed": removed}, nil
	})
}

// RepinDraft re-pins every item of a draft to what is current (the "Re-pin"
// button when pins moved): each named node's working copy and live version
// now, each removal's live version now, and the dependency closure again
// (items no longer needed leave, newly needed ones join). Refusals are
// those of CreateDraft, plus node_deleted for an item whose node is gone.
// Re-pinning a release after a conflict is repin.go's, not this.
func (e *Releases) RepinDraft(ctx context.Context, u engine.User, siteID, id string, rev int64) (ReleaseRow, error) {
	return e.editDraft(ctx, u, siteID, id, rev, "release.repin_draft", func(r ReleaseRow, g *graph) ([]release.Item, map[string]any, error) {
		var setIDs, removeIDs []string
		for _, it := range r.Items {
			if _, ok := g.nodes[it.NodeID]; !ok {
				return nil, nil, e.deletedItem(ctx, it)
			}
			switch {
			case it.AddedBecause != "": // the closure is worked out again
			case it.Op == release.OpRemove:
				removeIDs = append(removeIDs, it.NodeID)
			default:
				setIDs = append(setIDs, it.NodeID)
			}
		}
		items, err := g.pinNamed(r.ID, setIDs, removeIDs, nil)
		if err != nil {
			return nil, nil, err
		}
		if items, err = g.closeOver(r.ID, items); err != nil {
			return nil, nil, err
		}
		return items, map[string]any{"fromHash": r.Hash}, nil
	})
}

// RenameRelease gives a draft a new title (§13 PATCH title), as the person
// last saw it at rev. The title is not in the hash.
func (e *Releases) RenameRelease(ctx context.Context, u engine.User, siteID, id string, rev int64, title string) (ReleaseRow, error) {
	title, err := cleanTitle(title)
	if err != nil {
		return ReleaseRow{}, err
	}
	if title == "" {
		return ReleaseRow{}, engine.Refuse(CodeBadTitle, "title")
	}
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return ReleaseRow{}, err
	}
	if r.State != release.StateDraft {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	now := e.Now()
	err = e.changeRelease(ctx, Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateDraft}, To: release.StateDraft,
		Title: &title, Audit: engine.AuditEntry{Action: "release.rename", Actor: u.Actor(), SiteID: siteID, ReleaseID: r.ID, At: now,
			Details: map[string]any{"from": r.Title, "to": title}}})
	if errors.Is(err, engine.ErrConflict) {
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
	}
	if err != nil {
		return ReleaseRow{}, err
	}
	return e.store.Release(ctx, siteID, r.ID)
}

// editDraft is the frame of every change to a draft's items: the person may
// change the release, it is still a draft at rev, and the new items pass
// release.ValidateItems; then one guarded write replaces the items and the
// hash (store: ChangeRelease with Items), with an audit row named action.
// A draft holds nothing, so only new items' pins are checked by the store.
func (e *Releases) editDraft(ctx context.Context, u engine.User, siteID, id string, rev int64, action string,
	edit func(ReleaseRow, *graph) ([]release.Item, map[string]any, error)) (ReleaseRow, error) {
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return ReleaseRow{}, err
	}
	if r.State != release.StateDraft {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	g, err := e.readGraph(ctx, siteID)
	if err != nil {
		return ReleaseRow{}, err
	}
	items, details, err := edit(r, g)
	if err != nil {
		return ReleaseRow{}, err
	}
	if err := g.validate(items); err != nil {
		return ReleaseRow{}, err
	}
	if !u.May(policy.SchedulesWrite, ownItems(u, items, g.authors())) {
		return ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "") // it would add someone else's node
	}
	before := make(map[string]release.Item, len(r.Items))
	for _, it := range r.Items {
		before[it.NodeID] = it
	}
	pinned := map[string]int64{}
	for id, rev := range pinnedRevs(g, items) {
		if old, ok := before[id]; !ok || !sameItem(old, itemByID(items, id)) {
			pinned[id] = rev // only what is pinned now: older pins may have moved, which Re-pin shows
		}
	}
	hash := release.Hash(siteID, items)
	details["hash"] = hash
	details["closureAdded"] = release.Closure(items)
	err = e.changeRelease(ctx, Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateDraft}, To: release.StateDraft,
		Items: &ItemsUpdate{Items: items, Hash: hash, PinnedRevs: pinned, Overlap: true},
		Audit: engine.AuditEntry{Action: action, Actor: u.Actor(), SiteID: siteID, ReleaseID: r.ID, At: e.Now(), Details: details}})
	if errors.Is(err, engine.ErrConflict) {
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "") // held nodes are pinned as they are (D15)
	}
	if err != nil {
		return ReleaseRow{}, err
	}
	return e.store.Release(ctx, siteID, r.ID)
}

// ScheduleRelease schedules a draft the person last saw at rev for a date
// and time in the site's zone (§5.2 draft → scheduled | awaiting_approval,
// §13 POST …/schedule). Someone who may approve releases schedules it with
// their own approval (kind person, no request); anyone else's waits for
// approval with one request bound to the rl1: hash and the time (§10.4).
//
// Every item must still be as pinned: a set item's working copy at its
// target (or at the draft the release itself put back when it was last
// unscheduled) and every live version at its base; otherwise pinned_changed
// names the node and the page offers Re-pin. The closure is checked against
// what is live now (dependency_missing). Pinned drafts, and published
// versions without a publication date, are promoted as ScheduleNode does:
// a new version with status published (and, when it had none, publishedAt
// = its embargo's from, else the release's time) is saved in the same transaction, the item pins
// it and remembers the draft (RestoreRev), and the hash is recomputed.
// Scheduling holds and locks the nodes (§6.2); a node another release holds
// is refused with scheduled_locked.
func (e *Releases) ScheduleRelease(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (ReleaseRow, error) {
	return e.ScheduleReleaseWhen(ctx, u, siteID, id, rev, &WhenInput{Date: date, Clock: clock})
}

// ScheduleReleaseWhen is ScheduleRelease at any time §12's schedule_release
// takes (WhenInput: an instant, a wall-clock time in a zone, or
// "on-approval"); nil takes the time the draft was created with, and
// no_time refuses a draft without one. On approval, someone who may
// approve releases publishes it now (through Publish now's manual run, as
// a live node's gate change does; a run that cannot start this second is
// the ticker's a minute later); anyone else's waits for approval with one
// request bound to rl1: and "on-approval", and approving it publishes it.
func (e *Releases) ScheduleReleaseWhen(ctx context.Context, u engine.User, siteID, id string, rev int64, in *WhenInput) (ReleaseRow, error) {
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return ReleaseRow{}, err
	}
	if r.State != release.StateDraft {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	g, err := e.readGraphOf(ctx, siteID, release.Touched(r.Items))
	if err != nil {
		return ReleaseRow{}, err
	}
	if in == nil {
		own, err := whenOf(r.Release)
		if err != nil {
			return ReleaseRow{}, err
		}
		in = &own
	}
	w, err := e.resolveWhen(g.site, *in)
	if err != nil {
		return ReleaseRow{}, err
	}
	now := e.Now()
	at, wall := w.at, w.wall
	if w.onApproval {
		at = now.Add(release.MinLead)
	}
	approval, err := releaseApproval(u, "schedule_release", r.Items, ownItems(u, r.Items, g.authors()), at, now)
	if err != nil {
		return ReleaseRow{}, err
	}
	approves := approval != nil
	executeAt := &at
	if w.onApproval {
		// It publishes when approved: a promoted draft is dated as if now
		// (the earliest it can go live), and an approver's own release
		// gets the ticker's fallback minute; one waiting has no time.
		executeAt = nil
		if approves {
			executeAt = &at
			set, err := e.store.ScheduleSettings(ctx, siteID)
			if err != nil {
				return ReleaseRow{}, err
			}
			if set.Paused {
				return ReleaseRow{}, engine.Refuse(engine.CodeSitePaused, "") // nothing written: the run could not start
			}
		}
	} else if err := checkRequestTime(u, at, now); err != nil {
		return ReleaseRow{}, err
	}
	items := make([]release.Item, 0, len(r.Items))
	pinned := make(map[string]int64, len(r.Items))
	var newVersions []content.Node
	var promoted []string
	for _, it := range r.Items {
		n, ok := g.nodes[it.NodeID]
		if !ok {
			return ReleaseRow{}, e.deletedItem(ctx, it)
		}
		if !sameVersionPtr(g.liveVersion(it.NodeID), it.Base) {
			return ReleaseRow{}, g.named(engine.CodePinnedChanged, it.NodeID)
		}
		pinned[it.NodeID] = n.Rev
		if it.Op != release.OpSet {
			items = append(items, it)
			continue
		}
		asLeft, err := e.asLeft(ctx, it, n)
		if err != nil {
			return ReleaseRow{}, err
		}
		if !asLeft {
			return ReleaseRow{}, g.named(engine.CodePinnedChanged, it.NodeID)
		}
		next := it
		next.Deps = slices.Clone(n.Body.Refs)
		if n.Rev != it.Target.Rev {
			next.RestoreRev = 0 // the draft put back is the working copy now
		}
		target, promotes := publishVersion(n, at, now)
		if promotes {
			// Promoting saves a new version: not of a node another release
			// holds (an overlap pins the node as it is, D15).
			if err := g.lockedFor(it.NodeID, r.ID); err != nil {
				return ReleaseRow{}, err
			}
			newVersions = append(newVersions, target)
			next.RestoreRev = n.Rev
			promoted = append(promoted, n.ID)
		}
		next.Target = &release.Version{Rev: target.Rev, Hash: target.Hash}
		items = append(items, next)
	}
	if dep, missing := release.MissingDependency(release.Compose(g.liveRefs(), items), items); missing {
		return ReleaseRow{}, g.missing(userOf(items, dep), dep)
	}
	if err := g.validate(items); err != nil {
		return ReleaseRow{}, err
	}
	slugRev := make(map[string]int64, len(newVersions))
	for _, n := range newVersions {
		slugRev[n.ID] = n.Rev - 1 // the draft it promotes, saved, with the same slug
	}
	if err := e.releaseAddresses(ctx, siteID, items, slugRev); err != nil {
		return ReleaseRow{}, err // it would take over a live address
	}
	hash := release.Hash(siteID, items)
	by := u.Actor()
	c := Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateDraft}, To: release.StateAwaitingApproval,
		ExecuteAt: executeAt, LocalTime: wall.String(), TimeZone: w.zone, WhenKind: "at",
		Items: &ItemsUpdate{Items: items, Hash: hash, PinnedRevs: pinned, NewVersions: newVersions, Overlap: true},
		Audit: engine.AuditEntry{Action: "release.schedule", Actor: by, SiteID: siteID, ReleaseID: r.ID, At: now,
			Details: map[string]any{"at": localtime.FormatInstant(at), "localTime": wall.String(),
				"timeZone": w.zone, "hash": hash, "items": len(items), "promoted": promoted}}}
	if w.onApproval {
		c.LocalTime, c.WhenKind = "", "on-approval"
		c.Audit.Details["at"], c.Audit.Details["localTime"] = "on-approval", ""
	}
	if approves {
		c.To = release.StateScheduled
		approval.ExecuteAt = executeAt
		c.Approval = approval
		c.Audit.Details["approval"] = approval.Kind
	} else {
		asked := r.Release
		asked.Items, asked.Hash, asked.CreatedBy = items, hash, by // the request is this person's
		c.Request = newRequest(u, asked, executeAt, now)           // one request, bound to rl1: and the time (§10.4)
	}
	c.Audit.Details["state"] = c.To
	err = e.changeRelease(ctx, c)
	if errors.Is(err, engine.ErrConflict) {
		return ReleaseRow{}, e.pinConflict(ctx, siteID, r.ID, items)
	}
	if err != nil {
		return ReleaseRow{}, err
	}
	e.Poke()
	after, err := e.store.Release(ctx, siteID, r.ID)
	if err != nil || !w.onApproval || !approves || u.Agent != nil {
		return after, err // an agent's auto approval: the ticker runs it (Publish now is a person's)
	}
	return e.carryOutOnApproval(ctx, u, after) // approved in the same act: it publishes now
}

// PinsMoved lists, in node-id order, the items of a release whose node moved
// since it was pinned: its working copy is no longer the pinned target (nor
// the draft the release put back after it), its live version is no longer
// the base, or it was deleted. A draft with moved pins offers Re-pin.
func (e *Releases) PinsMoved(ctx context.Context, u engine.User, siteID, id string) ([]string, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return nil, err
	}
	g, err := e.readGraphOf(ctx, siteID, release.Touched(r.Items))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range r.Items {
		n, ok := g.nodes[it.NodeID]
		if !ok || !sameVersionPtr(g.liveVersion(it.NodeID), it.Base) {
			out = append(out, it.NodeID)
			continue
		}
		if it.Op != release.OpSet || it.Target == nil {
			continue
		}
		asLeft, err := e.asLeft(ctx, it, n)
		if err != nil {
			return nil, err
		}
		if !asLeft {
			out = append(out, it.NodeID)
		}
	}
	return out, nil
}

// Overlaps lists the other pending releases that carry one of the release's
// nodes (§6.2, D15), in the order they run: allowed and flagged on both.
// Same-node overlaps run in time order; when the earlier one changes the
// node's live version, the later one becomes a conflict at its time (§6.4).
// It is the source of ReleaseView's overlaps.
func (e *Releases) Overlaps(ctx context.Context, u engine.User, siteID, id string) ([]Overlap, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	if _, err := e.store.Release(ctx, siteID, id); err != nil {
		return nil, err
	}
	return e.store.ReleaseOverlaps(ctx, siteID, id)
}

// pinConflict names why a guarded pin changed nothing: another release
// took one of the nodes (scheduled_locked), or something moved (stale).
func (e *Releases) pinConflict(ctx context.Context, siteID, releaseID string, items []release.Item) error {
	held, err := e.store.HeldNodes(ctx, siteID, "")
	if err != nil {
		return err
	}
	for _, it := range items {
		if h, ok := held[it.NodeID]; ok && h.ReleaseID != releaseID {
			return LockedBy(&h)
		}
	}
	return engine.Refuse(engine.CodeStale, "")
}

// deletedItem is the refusal for an item whose node was deleted, named by
// the title of its pinned version.
func (e *Releases) deletedItem(ctx context.Context, it release.Item) error {
	title := it.NodeID
	v := it.Target
	if v == nil {
		v = it.Base
	}
	if v != nil {
		if b, err := e.store.NodeVersion(ctx, it.NodeID, v.Rev); err == nil && b.Title != "" {
			title = b.Title
		}
	}
	return &engine.Error{Code: CodeNodeDeleted, Args: map[string]any{"Node": it.NodeID, "Title": title}}
}

// pinnedRevs maps every item's node to its working copy's rev now: the
// store checks each is still there and held by no other release.
func pinnedRevs(g *graph, items []release.Item) map[string]int64 {
	out := make(map[string]int64, len(items))
	for _, it := range items {
		if n, ok := g.nodes[it.NodeID]; ok {
			out[it.NodeID] = n.Rev
		}
	}
	return out
}

// userOf is the first set item (in node-id order) whose target uses dep.
func userOf(items []release.Item, dep string) string {
	best := ""
	for _, it := range items {
		for _, d := range it.Deps {
			if d == dep && it.Op == release.OpSet && (best == "" || it.NodeID < best) {
				best = it.NodeID
			}
		}
	}
	return best
}

func itemByID(items []release.Item, id string) release.Item {
	for _, it := range items {
		if it.NodeID == id {
			return it
		}
	}
	return release.Item{}
}

// sameItem reports whether two items pin the same thing.
func sameItem(a, b release.Item) bool {
	return a.Op == b.Op && a.NodeID == b.NodeID && sameVersionPtr(a.Target, b.Target) && sameVersionPtr(a.Base, b.Base)
}

func sameVersionPtr(a, b *release.Version) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func cloneItems(items []release.Item) []release.Item {
	out := make([]release.Item, len(items))
	copy(out, items)
	return out
}
