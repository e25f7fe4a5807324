package releases

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Re-pin, re-base (RFC §6.4) and "Edit and re-approve" (§6.2): the three
// ways a person changes the items of a release after it was pinned. Each
// re-hashes the release (rl1:, §10.4: "any item change re-pins and voids
// it"), so each needs an approval again, given in the same act by a person
// who may approve releases (releases:publish) and asked for otherwise.

// Refusal codes of re-pin, re-base and edit-and-re-approve, besides stale,
// bad_state, forbidden, release_running, nothing_to_publish and the time
// codes (time_in_past, too_soon, too_far on the "time" field).
const (
	// CodeRebaseNotPossible: a node's target does not contain what is live
	// now (or the node was edited since); Args "Title" names it. Re-pin.
	CodeRebaseNotPossible = "rebase_not_possible"
	// CodeReleaseDue: "Edit and re-approve" on a release whose time is less
	// than a minute away (or past); it runs as approved.
	CodeReleaseDue = "release_due"
	// CodeUnchanged: "Edit and re-approve" with nothing edited.
	CodeUnchanged = "unchanged"
	// CodeNodeGone: a node of the release was deleted since; Args "Title"
	// names it. The release can only be canceled.
	CodeNodeGone = "node_gone"
)

// Why a node cannot be re-based (RebaseCheck.Reason).
const (
	RebaseNotLive     = "not_live"     // nothing of it is live now: someone took it down
	RebaseLiveNewer   = "live_newer"   // the live version is not in the target's history
	RebaseAlreadyLive = "already_live" // the target itself is live now
	RebaseRemoval     = "removal"      // a removal has no target to contain anything
	RebaseEdited      = "edited"       // the working copy moved on since the conflict
	RebaseGone        = "gone"         // the node was deleted since
)

// RebaseCheck says whether a node, or a whole release, may be re-based, and
// if not, which node stops it and why.
type RebaseCheck struct {
	Possible bool
	NodeID   string
	Title    string
	Reason   string
}

// ConflictReview is a release held as a conflict (§6.4) with a three-way
// view of every node whose live version is no longer its pinned base.
type ConflictReview struct {
	Release ReleaseRow
	Nodes   []ConflictNode
	// Rebase is whether "Re-base" is possible for the release as a whole:
	// every conflicting node passes the check and no set item's working
	// copy moved on since the release let go of it.
	Rebase RebaseCheck
}

// ConflictNode is one conflicting node: the pinned base, the version live
// now and the pinned target, with the diffs base → live and base → target.
type ConflictNode struct {
	Item  release.Item
	Title string
	// Live is the version live now (nil: not live); Working is the working
	// copy that Re-pin takes.
	Live    *release.Version
	Working release.Version
	// BaseToLive and BaseToTarget pair the bodies (nil where absent); their
	// Fields and Text are the diffs.
	BaseToLive   ItemDiff
	BaseToTarget ItemDiff
	Rebase       RebaseCheck
}

// ConflictView reads a conflict release's three-way view against the site
// as it is now (not as the run saw it: the live site may have moved again).
func (e *Releases) ConflictView(ctx context.Context, u engine.User, siteID, id string) (ConflictReview, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ConflictReview{}, err
	}
	r, err := e.store.Release(ctx, siteID, id)
	if err != nil {
		return ConflictReview{}, err
	}
	if r.State != release.StateConflict {
		return ConflictReview{}, engine.Refuse(engine.CodeBadState, "")
	}
	states, err := e.itemStates(ctx, r)
	if err != nil {
		return ConflictReview{}, err
	}
	v := ConflictReview{Release: r, Rebase: RebaseCheck{Possible: true}}
	for _, s := range states {
		if v.Rebase.Possible && !s.rebase.Possible {
			v.Rebase = s.rebase
		}
		if !s.conflict {
			continue
		}
		n := ConflictNode{Item: s.item, Title: s.node.Body.Title, Live: s.live, Working: s.node.Version(), Rebase: s.rebase}
		var base, live, target *content.Body
		if s.item.Base != nil {
			if base, err = e.version(ctx, s.item.NodeID, s.item.Base.Rev); err != nil {
				return ConflictReview{}, err
			}
		}
		if s.live != nil {
			if live, err = e.version(ctx, s.item.NodeID, s.live.Rev); err != nil {
				return ConflictReview{}, err
			}
		}
		if s.item.Target != nil {
			if target, err = e.version(ctx, s.item.NodeID, s.item.Target.Rev); err != nil {
				return ConflictReview{}, err
			}
		}
		n.BaseToLive = ItemDiff{Item: s.item, Base: base, Target: live}
		n.BaseToTarget = ItemDiff{Item: s.item, Base: base, Target: target}
		v.Nodes = append(v.Nodes, n)
	}
	return v, nil
}

func (e *Releases) version(ctx context.Context, id string, rev int64) (*content.Body, error) {
	b, err := e.store.NodeVersion(ctx, id, rev)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// itemState is one item of a release against the site now.
type itemState struct {
	item     release.Item
	node     content.Node     // its working copy; for a deleted node, only its id, kind and pinned body
	gone     bool             // deleted since it was pinned
	live     *release.Version // the node's live version now (nil: not live)
	conflict bool             // live is not the pinned base
	asLeft   bool             // a set item's working copy is its target, or the draft the release put back
	rebase   RebaseCheck
}

// itemStates reads every item's node and live version, in node-id order,
// and decides whether each may be re-based.
//
// The re-base rule (§6.4: "only when the target already contains the live
// change, which the dialog checks by hash"): a node's versions form one
// line (every save is rev + 1 of the one before), so a version contains
// exactly the versions before it. A conflicting set item may be re-based
// when the version live now is in its target's history: it is live
// (something of it must be there to be contained), its rev is below the
// target's, and that rev's saved version has the live hash. A live version
// saved after the target (an edit published after the release let go) is
// not contained; neither is a take-down. The target itself being live
// leaves nothing to publish. Besides, every set item's working copy must
// still be its target or the draft the release put back when it let go
// (asLeft): an edit made since is not in the target, and holding the node
// at the older target would hide it — Re-pin takes it instead.
func (e *Releases) itemStates(ctx context.Context, r ReleaseRow) ([]itemState, error) {
	site, err := e.store.Site(ctx, r.SiteID)
	if err != nil {
		return nil, err
	}
	refs, err := e.liveRefs(ctx, site)
	if err != nil {
		return nil, err
	}
	live := make(map[string]release.Version, len(refs))
	for _, ref := range refs {
		live[ref.ID] = release.Version{Rev: ref.Rev, Hash: ref.Hash}
	}
	found := map[string]bool{}
	for _, c := range release.Conflicts(refs, r.Items) {
		found[c.NodeID] = true
	}
	out := make([]itemState, 0, len(r.Items))
	for _, it := range r.Items { // the store lists items in node-id order
		n, err := e.store.Node(ctx, r.SiteID, it.NodeID)
		gone := errors.Is(err, engine.ErrNotFound)
		if gone {
			if n, err = e.pinnedNode(ctx, it); err != nil {
				return nil, err
			}
		}
		if err != nil {
			return nil, err
		}
		s := itemState{item: it, node: n, gone: gone, conflict: found[it.NodeID]}
		if v, ok := live[it.NodeID]; ok {
			s.live = &v
		}
		if it.Op == release.OpSet && it.Target != nil && !gone {
			if s.asLeft, err = e.asLeft(ctx, it, n); err != nil {
				return nil, err
			}
		}
		reason, err := e.rebaseReason(ctx, s)
		if err != nil {
			return nil, err
		}
		s.rebase = RebaseCheck{Possible: reason == "", Reason: reason}
		if reason != "" {
			s.rebase.NodeID, s.rebase.Title = it.NodeID, n.Body.Title
		}
		out = append(out, s)
	}
	return out, nil
}

// pinnedNode stands in for a deleted node: its id and kind, and the body
// of its pinned target (or base), so it can still be named.
func (e *Releases) pinnedNode(ctx context.Context, it release.Item) (content.Node, error) {
	n := content.Node{ID: it.NodeID, Kind: it.NodeKind, Body: content.Body{Title: it.NodeID}}
	v := it.Target
	if v == nil {
		v = it.Base
	}
	if v != nil {
		b, err := e.store.NodeVersion(ctx, it.NodeID, v.Rev)
		if err != nil && !errors.Is(err, engine.ErrNotFound) {
			return n, err
		}
		if err == nil {
			n.Body = b
		}
	}
	return n, nil
}

// rebaseReason is "" when the item may be re-based, else why not.
func (e *Releases) rebaseReason(ctx context.Context, s itemState) (string, error) {
	it := s.item
	if s.gone {
		return RebaseGone, nil
	}
	if s.conflict {
		switch {
		case it.Op != release.OpSet || it.Target == nil:
			return RebaseRemoval, nil
		case s.live == nil:
			return RebaseNotLive, nil
		case *s.live == *it.Target:
			return RebaseAlreadyLive, nil
		case s.live.Rev > it.Target.Rev:
			return RebaseLiveNewer, nil
		}
		// Checked by hash: the saved version at the live rev is the live one.
		saved, err := e.store.NodeVersion(ctx, it.NodeID, s.live.Rev)
		if errors.Is(err, engine.ErrNotFound) {
			return RebaseLiveNewer, nil
		}
		if err != nil {
			return "", err
		}
		if content.Hash(saved) != s.live.Hash {
			return RebaseLiveNewer, nil
		}
	}
	if it.Op == release.OpSet && it.Target != nil && !s.asLeft {
		return RebaseEdited, nil
	}
	return "", nil
}

// RepinRelease re-pins a release whatever its state, as the person last
// saw it at rev (§13 POST …/repin): a draft as it is (RepinDraft), which
// has no time, so a date or a time is refused (bad_request on the field);
// a conflict at the date and time given (Repin). Each checks the state
// again at rev, so a release that moves on meanwhile is refused, never
// mixed up; any other state is Repin's to refuse (bad_state).
func (e *Releases) RepinRelease(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (ReleaseRow, error) {
	cur, err := e.Release(ctx, u, siteID, id)
	if err != nil {
		return ReleaseRow{}, err
	}
	if cur.State != release.StateDraft {
		return e.Repin(ctx, u, siteID, id, rev, date, clock)
	}
	switch {
	case date != "":
		return ReleaseRow{}, engine.Refuse(engine.CodeBadRequest, "date")
	case clock != "":
		return ReleaseRow{}, engine.Refuse(engine.CodeBadRequest, "time")
	}
	return e.RepinDraft(ctx, u, siteID, id, rev)
}

// Repin resolves a conflict by pinning again (§6.4 "re-pin: take the
// current working copy, which shows the live changes"): every item takes
// its node's working copy now as target and the node's live version now as
// base (a removal keeps removing, from the live version now). A working
// copy that is not published (the draft the release put back when it let
// go, or any draft) is promoted as ScheduleNode does: a new version with
// status published and, when first published, its embargo's from or else
// the release's time as its date; the draft comes back if the release later ends without publishing.
//
// The release's time has passed (a conflict is found when it runs), so the
// person gives the new time in the same act, as a date and a time in the
// site's zone (the "time" field refusals of Schedule apply). Empty date
// and time keep the release's time, which must then still be at least a
// minute ahead — true only for a conflict found by an early Publish now.
//
// A person who may approve releases re-approves it in the same act (state
// scheduled, their approval); anyone else sends it for approval (state
// awaiting_approval, one new request). Audited release.repin with the old
// and new hash.
func (e *Releases) Repin(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (ReleaseRow, error) {
	r, states, at, local, err := e.resolvable(ctx, u, siteID, id, rev, date, clock)
	if err != nil {
		return ReleaseRow{}, err
	}
	now := e.Now()
	items := make([]release.Item, 0, len(states))
	pinned := make(map[string]int64, len(states))
	var newVersions []content.Node
	for _, s := range states {
		if s.gone {
			return ReleaseRow{}, &engine.Error{Code: CodeNodeGone, Args: map[string]any{"Title": s.node.Body.Title}}
		}
		it, n := s.item, s.node
		next := it // the same node, op and reason it is in the release; new versions
		next.Target, next.Base, next.RestoreRev = nil, nil, 0
		if s.live != nil {
			v := *s.live
			next.Base = &v
		}
		pinned[n.ID] = n.Rev
		if it.Op == release.OpRemove && s.live == nil {
			// Nothing of it is live any more: nothing left to remove.
			return ReleaseRow{}, &engine.Error{Code: release.CodeNothingToPublish, Args: map[string]any{"Title": n.Body.Title}}
		}
		if it.Op == release.OpSet {
			target, promotes := publishVersion(n, at, now)
			if promotes {
				newVersions = append(newVersions, target)
				next.RestoreRev = n.Rev
			} else if it.Target != nil && *it.Target == n.Version() {
				next.RestoreRev = it.RestoreRev // the same version: the same draft to put back
			}
			next.Target = &release.Version{Rev: target.Rev, Hash: target.Hash}
			next.Deps = target.Body.Refs
		}
		items = append(items, next)
	}
	if err := release.ValidateItems(items); err != nil {
		return ReleaseRow{}, itemRefusal(err, states)
	}
	return e.repinned(ctx, u, r, items, pinned, newVersions, at, local, "release.repin", map[string]any{})
}

// Rebase resolves a conflict by keeping every target and taking the live
// versions now as bases (§6.4), only when each conflicting node passes the
// re-base check (see itemStates); otherwise it is refused with
// rebase_not_possible naming the first node that fails, and nothing
// changes. A target whose draft the release put back when it let go is
// written again as the node's next version (the same body and hash, a new
// rev) and pinned there, so the working copy is what goes live, as
// scheduling made it. Time, approval and audit (release.rebase) are as
// for Repin.
func (e *Releases) Rebase(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (ReleaseRow, error) {
	r, states, at, local, err := e.resolvable(ctx, u, siteID, id, rev, date, clock)
	if err != nil {
		return ReleaseRow{}, err
	}
	now := e.Now()
	items := make([]release.Item, 0, len(states))
	pinned := make(map[string]int64, len(states))
	var newVersions []content.Node
	for _, s := range states {
		if s.gone {
			return ReleaseRow{}, &engine.Error{Code: CodeNodeGone, Args: map[string]any{"Title": s.node.Body.Title}}
		}
		if !s.rebase.Possible {
			return ReleaseRow{}, &engine.Error{Code: CodeRebaseNotPossible, Args: map[string]any{"Title": s.rebase.Title}}
		}
		it, n := s.item, s.node
		next := it
		next.Base = nil
		if s.live != nil {
			v := *s.live
			next.Base = &v
		}
		pinned[n.ID] = n.Rev
		if it.Op == release.OpSet && it.Target != nil && n.Version() != *it.Target {
			// The draft the release put back: the target becomes the
			// working copy again, as its next version.
			body, err := e.store.NodeVersion(ctx, it.NodeID, it.Target.Rev)
			if err != nil {
				return ReleaseRow{}, err
			}
			again := n
			again.Body, again.Rev, again.Hash, again.UpdatedAt = body, n.Rev+1, content.Hash(body), now
			newVersions = append(newVersions, again)
			next.Target = &release.Version{Rev: again.Rev, Hash: again.Hash}
			next.RestoreRev = n.Rev
		}
		items = append(items, next)
	}
	if err := release.ValidateItems(items); err != nil {
		return ReleaseRow{}, itemRefusal(err, states)
	}
	return e.repinned(ctx, u, r, items, pinned, newVersions, at, local, "release.rebase", map[string]any{})
}

// resolvable loads a conflict release the person may change at the rev they
// saw, its items against the site now, and the time it will run at.
func (e *Releases) resolvable(ctx context.Context, u engine.User, siteID, id string, rev int64, date, clock string) (
	ReleaseRow, []itemState, time.Time, string, error) {
	fail := func(err error) (ReleaseRow, []itemState, time.Time, string, error) {
		return ReleaseRow{}, nil, time.Time{}, "", err
	}
	r, err := e.changeable(ctx, u, siteID, id, rev)
	if err != nil {
		return fail(err)
	}
	if r.State != release.StateConflict {
		return fail(engine.Refuse(engine.CodeBadState, ""))
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return fail(err)
	}
	var at time.Time
	var local string
	if date == "" && clock == "" && r.ExecuteAt != nil {
		if err := release.CheckTime(*r.ExecuteAt, e.Now()); err != nil {
			return fail(engine.Refuse(engine.CodeOf(err), "time"))
		}
		at = *r.ExecuteAt
		if r.When != nil {
			local = r.When.LocalTime
		}
	} else {
		t, wall, err := e.resolveInput(site, date, clock)
		if err != nil {
			return fail(err)
		}
		at, local = t, wall.String()
	}
	// A node another release holds now (scheduled since the conflict) is
	// that release's: say which, rather than "changed elsewhere".
	held, err := e.store.HeldNodes(ctx, siteID, "")
	if err != nil {
		return fail(err)
	}
	for _, it := range r.Items {
		if h, ok := held[it.NodeID]; ok && h.ReleaseID != r.ID {
			return fail(LockedBy(&h))
		}
	}
	states, err := e.itemStates(ctx, r)
	if err != nil {
		return fail(err)
	}
	return r, states, at, local, nil
}

// itemRefusal turns an item rule's refusal into one that names the node.
func itemRefusal(err error, states []itemState) error {
	out := &engine.Error{Code: engine.CodeOf(err)}
	var re *release.Error
	if errors.As(err, &re) && re.NodeID != "" {
		for _, s := range states {
			if s.item.NodeID == re.NodeID {
				out.Args = map[string]any{"Title": s.node.Body.Title}
			}
		}
	}
	return out
}

// repinned writes a release's new items in one guarded change at time at
// (local: its wall-clock time; at nil keeps the time): a person who may
// approve releases re-approves it, anyone else's change waits for approval
// with one new request (any waiting one is closed by the store).
func (e *Releases) repinned(ctx context.Context, u engine.User, r ReleaseRow, items []release.Item, pinned map[string]int64,
	newVersions []content.Node, at time.Time, local, action string, details map[string]any) (ReleaseRow, error) {
	now := e.Now()
	if err := checkRequestTime(u, at, now); err != nil {
		return ReleaseRow{}, err
	}
	by := u.Actor()
	hash := release.Hash(r.SiteID, items)
	details["oldHash"], details["hash"] = r.Hash, hash
	details["at"], details["localTime"] = localtime.FormatInstant(at), local
	c := Change{ID: r.ID, Rev: r.Rev, From: []release.State{r.State},
		Items: &ItemsUpdate{Items: items, Hash: hash, PinnedRevs: pinned, NewVersions: newVersions},
		Audit: engine.AuditEntry{Action: action, Actor: by, SiteID: r.SiteID, ReleaseID: r.ID, At: now, Details: details}}
	if r.ExecuteAt == nil || !r.ExecuteAt.Equal(at) {
		c.ExecuteAt, c.LocalTime = &at, local
	}
	own, err := e.ownsRelease(ctx, u, r.SiteID, items)
	if err != nil {
		return ReleaseRow{}, err
	}
	if mayApproveRelease(u, own) {
		c.To = release.StateScheduled
		c.Approval = &release.Approval{Kind: "person", By: by, At: now, ExecuteAt: &at}
		details["approval"] = "given"
	} else {
		c.To = release.StateAwaitingApproval
		asked := r.Release
		asked.Items, asked.Hash, asked.CreatedBy = items, hash, by // the request is this person's
		c.Request = newRequest(u, asked, &at, now)
		details["approval"] = "requested"
	}
	if !release.CanTransition(r.State, c.To) {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	if err := e.changeRelease(ctx, c); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
		}
		return ReleaseRow{}, err
	}
	e.Poke()
	return e.store.Release(ctx, r.SiteID, r.ID)
}

// EditAndRepin is "Edit and re-approve" (§6.2) from the editor of a node
// held by a scheduled or waiting release, as the person last saw the node
// (expectedRev) and the release (releaseRev). In one transaction the edit is
// saved as the node's next version (allowed although the release holds it:
// the release lets go of it first), with status published and its date
// kept; the release's item is pinned to it, its base unchanged (an edit is
// not a re-base: if the live version moved, the run still stops as a
// conflict); the release is re-hashed. A person who may approve releases
// re-approves it (scheduled, their approval); anyone else sends it for
// approval again (awaiting_approval, one new request; the old approval, or
// the old request, is void). The release keeps its time, which must be at
// least a minute away (release_due otherwise). Audited release.edit with
// the old and new hash.
func (e *Releases) EditAndRepin(ctx context.Context, u engine.User, siteID, nodeID string, expectedRev, releaseRev int64, in content.Edit) (ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.ContentWrite); err != nil {
		return ReleaseRow{}, err
	}
	d, err := e.node(ctx, siteID, nodeID)
	if err != nil {
		return ReleaseRow{}, err
	}
	if d.Held == nil || d.Rev != expectedRev {
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
	}
	if !u.MayWriteNode(d.Author.ID) {
		return ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "")
	}
	r, err := e.changeable(ctx, u, siteID, d.Held.ReleaseID, releaseRev)
	if err != nil {
		return ReleaseRow{}, err
	}
	switch r.State {
	case release.StateScheduled, release.StateAwaitingApproval:
	case release.StateRunning:
		return ReleaseRow{}, engine.Refuse(engine.CodeRunning, "")
	default:
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "")
	}
	now := e.Now()
	if r.ExecuteAt == nil || release.CheckTime(*r.ExecuteAt, now) != nil {
		return ReleaseRow{}, engine.Refuse(CodeReleaseDue, "")
	}
	at := *r.ExecuteAt

	body := d.Body.With(in)
	body.Status = content.StatusPublished // the pinned version is the published one
	body.PublishedAt = content.FirstPublishedAt(body, at)
	body = content.Normalize(body)
	if err := content.Validate(body); err != nil {
		var fe *content.FieldError
		if errors.As(err, &fe) {
			return ReleaseRow{}, &engine.Error{Code: fe.Key[len("error."):], Field: fe.Field}
		}
		return ReleaseRow{}, err
	}
	if err := e.CheckAddress(ctx, d.Node, body); err != nil {
		return ReleaseRow{}, err // the edit may not take another node's address
	}
	n := d.Node
	n.Body, n.Rev, n.Hash, n.UpdatedAt = body, d.Rev+1, content.Hash(body), now
	if n.Hash == d.Hash {
		return ReleaseRow{}, engine.Refuse(CodeUnchanged, "")
	}
	versions := []content.Node{n}
	items := make([]release.Item, len(r.Items))
	copy(items, r.Items)
	edited := false
	for i, it := range items {
		if it.NodeID != nodeID || it.Op != release.OpSet {
			continue
		}
		if it.RestoreRev != 0 {
			// Scheduling promoted a draft, which is put back if the release
			// lets go. The edit must survive that: it is saved first as the
			// draft it edits (that draft's status and date), then promoted,
			// and the draft to put back is the edited one.
			draft, err := e.store.NodeVersion(ctx, nodeID, it.RestoreRev)
			if err != nil {
				return ReleaseRow{}, err
			}
			asDraft := n
			asDraft.Body.Status, asDraft.Body.PublishedAt = draft.Status, draft.PublishedAt
			asDraft.Hash = content.Hash(asDraft.Body)
			n.Rev = asDraft.Rev + 1
			versions = []content.Node{asDraft, n}
			items[i].RestoreRev = asDraft.Rev
		}
		items[i].Target = &release.Version{Rev: n.Rev, Hash: n.Hash}
		items[i].Deps = body.Refs
		edited = true
	}
	if !edited {
		return ReleaseRow{}, engine.Refuse(engine.CodeBadState, "") // a removal is not edited
	}
	if err := release.ValidateItems(items); err != nil {
		return ReleaseRow{}, engine.Refuse(engine.CodeOf(err), "")
	}
	local := ""
	if r.When != nil {
		local = r.When.LocalTime
	}
	return e.repinned(ctx, u, r, items, map[string]int64{nodeID: d.Rev}, versions, at, local, "release.edit",
		map[string]any{"node": nodeID, "rev": n.Rev})
}

// asLeft reports whether node n is as release item it left it: at the pinned
// target, or at the draft put back right after it (store: restoreDrafts).
func (e *Releases) asLeft(ctx context.Context, it release.Item, n content.Node) (bool, error) {
	t := it.Target
	if n.Rev == t.Rev && n.Hash == t.Hash {
		return true, nil
	}
	if it.RestoreRev == 0 || n.Rev != t.Rev+1 {
		return false, nil
	}
	draft, err := e.store.NodeVersion(ctx, n.ID, it.RestoreRev)
	if err != nil {
		return false, err
	}
	return content.Hash(draft) == n.Hash, nil
}

// AsLeft is asLeft for the scheduler's manual run, which names why its
// claim was refused (pinned_changed).
func (e *Releases) AsLeft(ctx context.Context, it release.Item, n content.Node) (bool, error) {
	return e.asLeft(ctx, it, n)
}
