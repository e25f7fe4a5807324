package release

import "slices"

// A ChangeFacts is what a release change does, as far as its approval and
// its waiting request are concerned: the states it moves between, whether
// it replaces the items, and what it brings with it.
type ChangeFacts struct {
	From         []State
	To           State
	ItemsChanged bool
	NewApproval  bool // the change carries an approval (a carry-out; an approver's re-pin)
	NewOutcome   bool
	NewRequest   bool // the change files a new approval request
	Moved        bool // the change gives the release a new time (D4)
}

// RequestEnd is what becomes of a release's waiting request.
type RequestEnd string

// Ends of a waiting request closed by a change.
const (
	RequestKept      RequestEnd = ""
	RequestWithdrawn RequestEnd = "withdrawn"
	RequestExpired   RequestEnd = "expired"
)

// A ChangeEffect is what the store writes besides the change itself.
type ChangeEffect struct {
	// ClearApproval: the release's approval is removed. Never set with a new
	// approval, which replaces the old one instead.
	ClearApproval bool
	// ClearOutcome: a release that goes back to a non-terminal state (a
	// conflict re-pinned) loses its old outcome.
	ClearOutcome bool
	// CloseRequest, when not RequestKept, closes the waiting request.
	CloseRequest RequestEnd
}

// EffectOf decides what a change does to the approval, the outcome and the
// waiting request (§10.4):
//   - a release that becomes a draft or waits for approval has no approval;
//   - any item change voids the approval unless the change carries a new
//     one ("any item change re-pins and voids it"), so no path can publish
//     new items on an old approval (S6);
//   - a waiting release that stops waiting without being approved, files a
//     new request, changes its items or moves (its request was bound to the
//     old time) closes its request: expired when its time came (D5),
//     withdrawn otherwise.
func EffectOf(f ChangeFacts) ChangeEffect {
	var e ChangeEffect
	if !f.NewApproval {
		e.ClearApproval = f.To == StateDraft || f.To == StateAwaitingApproval || f.ItemsChanged
	}
	if !f.NewOutcome {
		e.ClearOutcome = f.To == StateDraft || f.To == StateAwaitingApproval || f.To == StateScheduled
	}
	if slices.Contains(f.From, StateAwaitingApproval) && (f.To != StateScheduled || f.NewRequest || f.ItemsChanged || f.Moved) {
		e.CloseRequest = RequestWithdrawn
		if f.To == StateExpired {
			e.CloseRequest = RequestExpired
		}
	}
	return e
}
