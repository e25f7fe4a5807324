package release

// transitions is the §5.2 table: from → the states it may move to. Who may
// make a move (a person, an agent, the tick) is decided by callers.
var transitions = map[State][]State{
	StateDraft: {
		StateScheduled,        // a person who may approve it; or an auto-mode key inside its window
		StateAwaitingApproval, // an agent, or a person without the right, asks
		StateCanceled,
	},
	StateAwaitingApproval: {
		StateScheduled, // approved (carry-out, §10.4); or re-pinned by a person who may approve it (§6.2)
		// Not in the §5.2 table: a waiting release moved, or an item
		// re-pinned ("Edit and send for approval", §6.2), by someone who
		// may not approve it: its request is replaced by a new one (§10.4).
		StateAwaitingApproval,
		StateDraft,   // denied; the agent's own cancel; a person's Unschedule
		StateExpired, // undecided at its time (D5, §10.6)
		StateCanceled,
	},
	StateScheduled: {
		StateScheduled,        // moved by a person who may approve it (D4)
		StateAwaitingApproval, // moved by an agent, or an item re-pinned
		StateRunning,          // the tick claims it (§8.5); or a person's Publish now, early (§13)
		StateMissed,           // more than an hour late (§8.6)
		StateExpired,          // no valid approval at its time (§10.6)
		// Not in the §5.2 table: §6.2 "Unschedule and edit" — a person unschedules
		// and a one-item release becomes a draft.
		StateDraft,
		StateCanceled,
	},
	StateRunning: {
		StatePublished, // the guarded batch committed
		StateExpired,   // the run's approval gate failed (§6.3 step 2, §10.6: approval_lost)
		// Not in §5.2: a person's run that ended without an outcome goes back
		// to the state it was claimed from (scheduled, missed, expired), and
		// an early one whose process died goes back to scheduled (never early).
		StateScheduled,
		StateConflict, // a pinned node or its base changed (§6.4)
		StateMissed,   // still failing after the hour (§8.6, §8.8)
		StateFailed,   // dependency missing, invalid snapshot, store error
		// §5.2 "any non-terminal → canceled": the system cancels a running
		// release whose site or node is gone (§10.6). People cannot: CanCancel.
		StateCanceled,
	},
	// Not in the §5.2 table, whose missed and expired rows end there: a
	// person's manual run, "Publish now" (§8.6 for missed: "a manual run: the
	// conflict check and the person's rights apply"; §10.6 for expired:
	// "Approve and publish now"; §13 publish-now). Only a person who may
	// approve the release makes this move, never the tick or an agent; the
	// run then ends as any run does (published, conflict, failed).
	StateMissed: {
		StateRunning,
	},
	StateExpired: {
		StateRunning,
	},
	// §5.2 "running → conflict … “Re-pin and approve” or cancel", §6.4: a
	// person re-pins (every item takes the current working copy) or re-bases
	// (the targets stay, the live versions become the bases). Either changes
	// the hash, so it needs an approval again: given in the same act by a
	// person who may approve it (scheduled), asked for otherwise
	// (awaiting_approval). §6.4's third way, "or cancel", closes it for
	// good: nothing was published and nothing will be.
	StateConflict: {
		StateScheduled,
		StateAwaitingApproval,
		StateCanceled,
	},
}

// CanTransition reports whether §5.2 allows from → to.
func CanTransition(from, to State) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// CanCancel reports whether a person (or an agent whose class allows it) may
// cancel a release in state s: any non-terminal state except running, which
// is refused with 409 because its outcome is seconds away (§8.5), and a
// conflict (§6.4 "re-pin, re-base, or cancel").
func CanCancel(s State) bool {
	return CanTransition(s, StateCanceled) && s != StateRunning
}

// CanUndoCancel reports whether a person's Cancel of a release that was in
// state from may be taken back in its Undo's few seconds (§15.1's toast):
// a draft or a scheduled release, which goes back to that state with its
// time and approval. Not in the §5.2 table, where canceled is an end: the
// Undo makes the Cancel not have happened, before anything else could act
// on it. A waiting release's request was withdrawn, and a conflict's
// Cancel closed what its view explained, so those stay canceled.
func CanUndoCancel(from State) bool {
	return from == StateDraft || from == StateScheduled
}

// CanPublishNow reports whether a person's manual run, "Publish now", may
// start from s (§13: missed, expired or scheduled). Who may press it is the
// caller's rule (a person who may approve the release).
func CanPublishNow(s State) bool {
	switch s {
	case StateMissed, StateExpired, StateScheduled:
		return CanTransition(s, StateRunning)
	}
	return false
}

// Terminal reports whether s is an end state: the row stays for history, its
// items no longer held (§5.2). outcome.kind equals the terminal state. The
// scheduler never moves a release out of one; a person's Publish now may
// take a missed or expired one to running again (CanPublishNow), and a
// person's re-pin or re-base a conflict to scheduled or awaiting_approval
// (§6.4).
func (s State) Terminal() bool {
	switch s {
	case StatePublished, StateConflict, StateMissed, StateExpired, StateFailed, StateCanceled:
		return true
	}
	return false
}

// Holds reports whether a release in state s holds and locks its nodes (§5.2,
// §6.2): ordinary publishes keep them at their live version and edits are
// refused with scheduled_locked.
func (s State) Holds() bool {
	switch s {
	case StateAwaitingApproval, StateScheduled, StateRunning:
		return true
	}
	return false
}

// ParseState returns the State named by v, or an *Error with
// CodeUnknownState. Matching is exact (states are lower case in the contract).
func ParseState(v string) (State, error) {
	for _, s := range States {
		if string(s) == v {
			return s, nil
		}
	}
	return "", &Error{Code: CodeUnknownState}
}
