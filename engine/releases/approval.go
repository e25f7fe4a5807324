package releases

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Approval request statuses.
const (
	RequestWaiting   = "waiting"
	RequestApproved  = "approved"
	RequestDenied    = "denied"
	RequestExpired   = "expired"   // the release's time came first (D5)
	RequestWithdrawn = "withdrawn" // the release was unscheduled or canceled
)

// Refusal codes of approvals.
const (
	CodeOwnRequest = "own_request" // nobody approves their own request
	CodeNotWaiting = "not_waiting"
	CodeReason     = "reason_required"
)

// ApprovalRequest asks a person who may approve to schedule exactly this
// release at exactly this time (§10.4): StateHash is its rl1: binding and
// ArgsHash covers {releaseId, when}.
type ApprovalRequest struct {
	ID          string
	SiteID      string
	ReleaseID   string
	StateHash   string
	ArgsHash    string
	ExecuteAt   *time.Time
	RequestedBy release.Actor
	Status      string
	DecidedBy   *release.Actor
	DecidedAt   *time.Time
	Reason      string
	CreatedAt   time.Time
	// RunID is the agent run that filed it (§11.2), "" for a person's.
	RunID string
}

// argsHash binds a request to the release and its time: moving the release
// changes it, so an approval never schedules a time nobody approved.
func argsHash(releaseID string, at *time.Time) string {
	when := "on-approval"
	if at != nil {
		when = localtime.FormatInstant(*at)
	}
	sum := sha256.Sum256([]byte(releaseID + "\n" + when))
	return hex.EncodeToString(sum[:])
}

// newRequest is u's request for approval of r at at: requested by r's
// creator, in u's run when u is an agent inside one.
func newRequest(u engine.User, r release.Release, at *time.Time, now time.Time) *ApprovalRequest {
	q := &ApprovalRequest{ID: ids.New("apr"), SiteID: r.SiteID, ReleaseID: r.ID, StateHash: r.Hash,
		ArgsHash: argsHash(r.ID, at), ExecuteAt: at, RequestedBy: r.CreatedBy, Status: RequestWaiting, CreatedAt: now}
	if u.Agent != nil {
		q.RunID = u.Agent.RunID
	}
	return q
}

// NewRequest is newRequest for engine/gates: the request for approval of
// its one-item release.
func NewRequest(u engine.User, r release.Release, at *time.Time, now time.Time) *ApprovalRequest {
	return newRequest(u, r, at, now)
}

// Decision is an approver's answer to a request, applied by the store in one
// transaction with the release's change: the request must still be waiting
// and the release still at its rev.
type Decision struct {
	ApprovalID string
	Status     string // approved | denied
	By         release.Actor
	Reason     string
	Release    Change
}

// Withdrawal is the denial of the waiting request q, for its release rel,
// that by's act brings with it (§11.8: the requester removed, the
// automation whose run filed it deleted): the release goes back to draft
// and the denial is audited with reason. It is written in by's act's own
// transaction.
func Withdrawal(q ApprovalRequest, rel ReleaseRow, by release.Actor, now time.Time, reason string) Decision {
	return Decision{ApprovalID: q.ID, Status: RequestDenied, By: by,
		Release: Change{ID: rel.ID, Rev: rel.Rev, From: []release.State{release.StateAwaitingApproval}, To: release.StateDraft,
			Audit: engine.AuditEntry{Action: "approval.deny", Actor: by, SiteID: rel.SiteID, ReleaseID: rel.ID, At: now,
				Details: map[string]any{"approval": q.ID, "reason": reason}}}}
}

// ApprovalView is a waiting request with the release it asks for.
type ApprovalView struct {
	Request ApprovalRequest
	Release ReleaseRow
	Items   []ItemDiff
}

// ItemDiff is one item of a release as an approver reviews it
// (content.ItemDiff); FieldDiff is one field of it.
type (
	ItemDiff  = content.ItemDiff
	FieldDiff = content.FieldDiff
)

// WaitingOrder is the order every surface lists waiting requests in (the
// Approvals page, the Schedules page's aside, the API): by the time the
// release would publish, soonest first, because a request left waiting past
// its time expires (D5). A request without a time ("publishes when
// approved", a live node's gate change) publishes the moment it is
// approved, the soonest any request can, so those come first. Ties go to
// the oldest request, then the id. The store sorts the same way (its
// queries take the first few in this order); the engine sorts again so the
// rule has one definition.
func WaitingOrder(a, b ApprovalRequest) int {
	switch {
	case a.ExecuteAt == nil && b.ExecuteAt != nil:
		return -1
	case a.ExecuteAt != nil && b.ExecuteAt == nil:
		return 1
	case a.ExecuteAt != nil:
		if c := a.ExecuteAt.Compare(*b.ExecuteAt); c != 0 {
			return c
		}
	}
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Approvals lists a site's waiting requests in WaitingOrder, the soonest
// due first.
func (e *Releases) Approvals(ctx context.Context, u engine.User, siteID string) ([]ApprovalView, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	reqs, err := e.store.WaitingApprovals(ctx, siteID)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(reqs, WaitingOrder)
	return e.ApprovalsFor(ctx, u, siteID, reqs)
}

// WaitingForDecision is how many requests wait on siteID that u may
// decide (CanDecide): the count beside Studio's Approvals entry.
func (e *Releases) WaitingForDecision(ctx context.Context, u engine.User, siteID string) (int, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return 0, err
	}
	reqs, err := e.store.WaitingApprovals(ctx, siteID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, q := range reqs {
		if CanDecide(u, q) {
			n++
		}
	}
	return n, nil
}

// FirstWaitingRequests is the first limit requests waiting on a site in
// WaitingOrder (the soonest due), without their releases, and how many wait
// in all.
func (e *Releases) FirstWaitingRequests(ctx context.Context, u engine.User, siteID string, limit int) ([]ApprovalRequest, int, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, 0, err
	}
	reqs, total, err := e.store.FirstWaitingApprovals(ctx, siteID, limit)
	slices.SortStableFunc(reqs, WaitingOrder)
	return reqs, total, err
}

// WaitingRequestsOf is the requests waiting on the given releases.
func (e *Releases) WaitingRequestsOf(ctx context.Context, u engine.User, siteID string, releaseIDs []string) ([]ApprovalRequest, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	return e.store.WaitingApprovalsOf(ctx, siteID, releaseIDs)
}

// ApprovalsFor joins requests with their releases, read in one statement.
func (e *Releases) ApprovalsFor(ctx context.Context, u engine.User, siteID string, reqs []ApprovalRequest) ([]ApprovalView, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	ids := make([]string, len(reqs))
	for i, q := range reqs {
		ids[i] = q.ReleaseID
	}
	rows, err := e.store.ReleasesByID(ctx, siteID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]ReleaseRow, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]ApprovalView, 0, len(reqs))
	for _, q := range reqs {
		if r, ok := byID[q.ReleaseID]; ok {
			out = append(out, ApprovalView{Request: q, Release: r})
		}
	}
	return out, nil
}

// DraftReleases lists a site's draft releases, the most recently changed
// first, at most limit.
func (e *Releases) DraftReleases(ctx context.Context, u engine.User, siteID string, limit int) ([]ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return nil, err
	}
	return e.store.DraftReleases(ctx, siteID, limit)
}

// Approval returns one request with the bodies an approver compares.
func (e *Releases) Approval(ctx context.Context, u engine.User, siteID, id string) (ApprovalView, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ApprovalView{}, err
	}
	q, err := e.store.ApprovalRequest(ctx, siteID, id)
	if err != nil {
		return ApprovalView{}, err
	}
	r, err := e.store.Release(ctx, siteID, q.ReleaseID)
	if err != nil {
		return ApprovalView{}, err
	}
	items, err := e.itemDiffs(ctx, r.Items)
	if err != nil {
		return ApprovalView{}, err
	}
	return ApprovalView{Request: q, Release: r, Items: items}, nil
}

// CanDecide reports whether u may approve or deny q: someone who could make
// the call now, and never the person who asked (§10.4).
// It answers for approvers of any release; one who approves only their own
// nodes' releases (releases:publish:own) is told by ReleaseAbilities.
func CanDecide(u engine.User, q ApprovalRequest) bool {
	return u.Level(policy.ReleasesPublish) == policy.LevelAny && q.RequestedBy.ID != u.ID && q.Status == RequestWaiting
}

// Approve carries the release out (§10.4): the binding is recomputed as the
// approver sees it and compared with the request's, and so is the time; on
// a match the release is scheduled with this person's approval and the
// request is consumed. A mismatch denies the request (state_changed): the
// release changed after it was asked, and it goes back to draft.
func (e *Releases) Approve(ctx context.Context, u engine.User, siteID, id string) (ReleaseRow, error) {
	q, r, err := e.decidable(ctx, u, siteID, id)
	if err != nil {
		return ReleaseRow{}, err
	}
	now := e.Now()
	by := u.Actor()
	if release.Hash(r.SiteID, r.Items) != q.StateHash || r.Hash != q.StateHash || argsHash(r.ID, r.ExecuteAt) != q.ArgsHash {
		err := e.decideApproval(ctx, Decision{ApprovalID: q.ID, Status: RequestDenied, By: engine.Scheduler, Reason: engine.CodeStateChanged,
			Release: Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateAwaitingApproval}, To: release.StateDraft,
				Audit: engine.AuditEntry{Action: "approval.deny", Actor: engine.Scheduler, SiteID: siteID, ReleaseID: r.ID, At: now,
					Details: map[string]any{"approval": q.ID, "reason": engine.CodeStateChanged, "attemptedBy": by}}}})
		if err != nil && !errors.Is(err, engine.ErrConflict) {
			return ReleaseRow{}, err
		}
		return ReleaseRow{}, engine.Refuse(engine.CodeStateChanged, "")
	}
	// Approving a release that would take over a live address is refused;
	// the request keeps waiting, to be denied or approved once it is fixed.
	if err := e.releaseAddresses(ctx, siteID, r.Items, nil); err != nil {
		return ReleaseRow{}, err
	}
	approval := &release.Approval{Kind: "person", By: by, At: now, ExecuteAt: r.ExecuteAt, ApprovalID: q.ID}
	change := Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateAwaitingApproval}, To: release.StateScheduled,
		Approval: approval,
		Audit: engine.AuditEntry{Action: "approval.approve", Actor: by, SiteID: siteID, ReleaseID: r.ID, At: now,
			Details: map[string]any{"approval": q.ID, "hash": r.Hash, "requestedBy": q.RequestedBy}}}
	// An "on-approval" release (a live node's gate change, engine/gates)
	// has no time: approving it publishes it now. It is given a time a
	// minute ahead, the ticker's fallback, and run at once below.
	onApproval := r.ExecuteAt == nil
	if onApproval {
		at := now.Add(release.MinLead)
		change.ExecuteAt, approval.ExecuteAt = &at, &at
	}
	err = e.decideApproval(ctx, Decision{ApprovalID: q.ID, Status: RequestApproved, By: by, Release: change})
	if errors.Is(err, engine.ErrConflict) {
		return ReleaseRow{}, engine.Refuse(engine.CodeStale, "")
	}
	if err != nil {
		return ReleaseRow{}, err
	}
	e.Poke()
	after, err := e.store.Release(ctx, siteID, r.ID)
	if err != nil || !onApproval {
		return after, err
	}
	return e.carryOutOnApproval(ctx, u, after)
}

// Deny answers no, with a reason; the release goes back to draft and its
// nodes are free again.
func (e *Releases) Deny(ctx context.Context, u engine.User, siteID, id, reason string) error {
	_, err := e.deny(ctx, u, siteID, id, reason)
	return err
}

// DenyRelease is Deny answering the release as it is afterwards (a draft
// again): POST …/approvals/{id}/deny's answer, in one call.
func (e *Releases) DenyRelease(ctx context.Context, u engine.User, siteID, id, reason string) (ReleaseRow, error) {
	releaseID, err := e.deny(ctx, u, siteID, id, reason)
	if err != nil {
		return ReleaseRow{}, err
	}
	return e.store.Release(ctx, siteID, releaseID)
}

// deny is Deny, returning the id of the release it sent back.
func (e *Releases) deny(ctx context.Context, u engine.User, siteID, id, reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > 500 {
		return "", engine.Refuse(CodeReason, "reason")
	}
	q, r, err := e.decidable(ctx, u, siteID, id)
	if err != nil {
		return "", err
	}
	now := e.Now()
	by := u.Actor()
	err = e.decideApproval(ctx, Decision{ApprovalID: q.ID, Status: RequestDenied, By: by, Reason: reason,
		Release: Change{ID: r.ID, Rev: r.Rev, From: []release.State{release.StateAwaitingApproval}, To: release.StateDraft,
			Audit: engine.AuditEntry{Action: "approval.deny", Actor: by, SiteID: siteID, ReleaseID: r.ID, At: now,
				Details: map[string]any{"approval": q.ID, "reason": reason}}}})
	if errors.Is(err, engine.ErrConflict) {
		return "", engine.Refuse(engine.CodeStale, "")
	}
	if err != nil {
		return "", err
	}
	e.Poke()
	return r.ID, nil
}

func (e *Releases) decidable(ctx context.Context, u engine.User, siteID, id string) (ApprovalRequest, ReleaseRow, error) {
	if err := engine.Require(u, siteID, policy.ReleasesPublish); err != nil {
		return ApprovalRequest{}, ReleaseRow{}, err
	}
	q, err := e.store.ApprovalRequest(ctx, siteID, id)
	if err != nil {
		return ApprovalRequest{}, ReleaseRow{}, err
	}
	if q.Status != RequestWaiting {
		return ApprovalRequest{}, ReleaseRow{}, engine.Refuse(CodeNotWaiting, "")
	}
	if q.RequestedBy.ID == u.ID {
		return ApprovalRequest{}, ReleaseRow{}, engine.Refuse(CodeOwnRequest, "")
	}
	r, err := e.store.Release(ctx, siteID, q.ReleaseID)
	if err != nil {
		return ApprovalRequest{}, ReleaseRow{}, err
	}
	if r.State != release.StateAwaitingApproval {
		return ApprovalRequest{}, ReleaseRow{}, engine.Refuse(CodeNotWaiting, "")
	}
	f, err := e.releaseRule(ctx, u, r)
	if err != nil {
		return ApprovalRequest{}, ReleaseRow{}, err
	}
	if f.RequestedBy = q.RequestedBy.ID; !mayDecide(u, f) {
		return ApprovalRequest{}, ReleaseRow{}, engine.Refuse(engine.CodeForbidden, "")
	}
	return q, r, nil
}

// carryOutOnApproval runs an "on-approval" release its approver has just
// approved (Approve): at once, through the manual run (the scheduler's
// PublishNow, SetManualRunner), as the approver. A run that cannot start now,
// or an engine with no manual run registered, leaves it to the ticker a
// minute later; a run that ends without publishing has its outcome on the
// release.
func (e *Releases) carryOutOnApproval(ctx context.Context, u engine.User, r ReleaseRow) (ReleaseRow, error) {
	if _, err := e.publishNow(ctx, u, r.SiteID, r.ID, r.Rev); err != nil {
		if _, ok := engine.AsError(err); !ok {
			return ReleaseRow{}, err
		}
		e.Log().Info("schedules: an approved on-approval release did not publish at once", "release", r.ID, "err", err)
		e.Poke()
	}
	return e.store.Release(ctx, r.SiteID, r.ID)
}
