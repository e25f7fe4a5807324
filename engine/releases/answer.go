package releases

import (
	"context"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// Answer is one release as a use case answers the JSON surfaces (the API
// and MCP): the release, what the person asking may do to it now and,
// where the answer needs it, the approval request waiting on it. A
// surface renders it as it is and calls the engine no further.
type Answer struct {
	ReleaseRow
	// Abilities are what the person asking may do to it now (AbilitiesOf).
	Abilities ReleaseAbilities
	// Request is the approval request waiting on it: nil unless it awaits
	// approval. AnswerOf and Scheduling always read it; Answering,
	// AnsweringAfter and ReleaseAnswer only when the abilities need it (the
	// person may approve: the release rule reads who asked).
	Request *ApprovalRequest
}

// AnswerOf is r as u is answered it, with its waiting request: the
// request (one statement, only while r awaits approval), which also names
// the asker the release rule reads, and the authors of its nodes (one
// statement, only when u acts at the own level). A family whose use case
// returns a release it changed (engine/gates) answers with it.
func (e *Releases) AnswerOf(ctx context.Context, u engine.User, r ReleaseRow) (Answer, error) {
	return e.answer(ctx, u, r, true)
}

// answer is AnswerOf; without request, the waiting request is read only
// when the abilities need it.
func (e *Releases) answer(ctx context.Context, u engine.User, r ReleaseRow, request bool) (Answer, error) {
	a := Answer{ReleaseRow: r}
	asker := ""
	if r.State == release.StateAwaitingApproval && (request || u.Passes(policy.ReleasesPublish)) {
		qs, err := e.store.WaitingApprovalsOf(ctx, r.SiteID, []string{r.ID})
		if err != nil {
			return Answer{}, err
		}
		for _, q := range qs {
			if q.ReleaseID == r.ID {
				a.Request, asker = &q, q.RequestedBy.ID
				break
			}
		}
	}
	own, err := e.ownsRelease(ctx, u, r.SiteID, r.Items)
	if err != nil {
		return Answer{}, err
	}
	a.Abilities = AbilitiesOf(u, factsOf(r, own, asker))
	return a, nil
}

// Answering runs change, one of the release use cases that return the
// release they changed (CreateDraft, AddToDraft, Reschedule, Approve,
// Repin, Rebase, …), and answers that release to u: the JSON surfaces'
// whole answer to a change, in one call.
func (e *Releases) Answering(ctx context.Context, u engine.User, change func() (ReleaseRow, error)) (Answer, error) {
	r, err := change()
	if err != nil {
		return Answer{}, err
	}
	return e.answer(ctx, u, r, false)
}

// Scheduling is Answering for a use case that schedules or moves a
// release (ScheduleReleaseWhen, Reschedule): its answer names the request
// a release waiting for approval now has (§12 schedule_release's
// approvalId), so the request is always read.
func (e *Releases) Scheduling(ctx context.Context, u engine.User, change func() (ReleaseRow, error)) (Answer, error) {
	r, err := change()
	if err != nil {
		return Answer{}, err
	}
	return e.AnswerOf(ctx, u, r)
}

// AnsweringAfter runs change, a use case that returns no release
// (Unschedule, Cancel, Publish now), and answers the release id of siteID
// as it is afterwards.
func (e *Releases) AnsweringAfter(ctx context.Context, u engine.User, siteID, id string, change func() error) (Answer, error) {
	if err := change(); err != nil {
		return Answer{}, err
	}
	return e.ReleaseAnswer(ctx, u, siteID, id)
}

// ReleaseAnswer reads one release of a site and answers it to u.
func (e *Releases) ReleaseAnswer(ctx context.Context, u engine.User, siteID, id string) (Answer, error) {
	r, err := e.Release(ctx, u, siteID, id)
	if err != nil {
		return Answer{}, err
	}
	return e.answer(ctx, u, r, false)
}

// Viewing runs change, a release use case that returns the release it
// made or changed (CreateDraft), and answers that release as ReleaseView
// does: §12 create_draft's and POST …/releases' answer, in one call.
func (e *Releases) Viewing(ctx context.Context, u engine.User, change func() (ReleaseRow, error)) (ReleaseView, error) {
	r, err := change()
	if err != nil {
		return ReleaseView{}, err
	}
	return e.ReleaseView(ctx, u, r.SiteID, r.ID)
}
