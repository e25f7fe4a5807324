// Package releases holds the release use cases: drafts and their items
// (the dependency closure), scheduling a node or a release, moves and
// reschedules, re-pin and re-base of a conflict, approvals (a person's and
// an agent key's auto window), undo, the diff of a release, the caps on
// open releases, the release list and view, and who may do what to a
// release or a node (ReleaseAbilities, NodeAbilities). It also holds the
// node reads the node use cases share with it (NodeDetail: a node with its
// live version and the release holding it; LockedBy; the address rule,
// CheckAddress), since a hold is a release's. Its Store is the narrow part
// of storage these need; package store implements it.
//
// It sits above the kernel (package engine), whose Engine its Releases
// embed for the clock, the poke bus and the sites. engine/nodes, the
// scheduler, gates and the public view build on it; it imports none of
// them: Publish now is the scheduler's, registered with SetManualRunner.
package releases

import (
	"context"
	"studio/engine"
	"sync"
)

// Releases is the release use cases of one process on the kernel engine:
// its clock, its poke bus and its sites are the embedded Engine's.
type Releases struct {
	*engine.Engine
	store Store

	mu sync.Mutex
	// manualRunner is a person's manual run, Publish now: the scheduler's,
	// registered by scheduler.New (SetManualRunner); nil until then.
	manualRunner ManualRunner
}

// New wires the release use cases on the kernel eng and store.
func New(eng *engine.Engine, store Store) *Releases { return &Releases{Engine: eng, store: store} }

// ManualRunner is a person's manual run of a release, Publish now
// ((*scheduler.Scheduler).PublishNow). The release use cases cannot import
// the scheduler, so scheduler.New registers its own (SetManualRunner).
type ManualRunner interface {
	PublishNow(ctx context.Context, u engine.User, siteID, id string, rev int64) (ReleaseRow, error)
}

// SetManualRunner registers the manual run the engine's approvals use to
// carry out an approved "on-approval" release at once; scheduler.New
// calls it. Without one, such a release is left to the ticker a minute later
// (its fallback time).
func (e *Releases) SetManualRunner(m ManualRunner) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.manualRunner = m
}

// publishNow is a person's manual run through the registered ManualRunner;
// without one it is refused as site_busy, which its callers take as "leave
// it to the ticker".
func (e *Releases) publishNow(ctx context.Context, u engine.User, siteID, id string, rev int64) (ReleaseRow, error) {
	e.mu.Lock()
	m := e.manualRunner
	e.mu.Unlock()
	if m == nil {
		return ReleaseRow{}, engine.Refuse(engine.CodeSiteBusy, "")
	}
	return m.PublishNow(ctx, u, siteID, id, rev)
}

// changeRelease writes c settled (Change.Settled): what it does to the
// approval and the request is the engine's rule, not the store's.
func (e *Releases) changeRelease(ctx context.Context, c Change) error {
	return e.store.ChangeRelease(ctx, c.Settled())
}

// decideApproval writes d with its release change settled.
func (e *Releases) decideApproval(ctx context.Context, d Decision) error {
	d.Release = d.Release.Settled()
	return e.store.DecideApproval(ctx, d)
}
