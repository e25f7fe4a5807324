package calendar

import (
	"context"
	"errors"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Releases is what the calendar asks of the release use cases to say what
// the person may do to each release it lists (CalendarQuery.Abilities):
// the release rule itself stays theirs (releases.AbilitiesOf).
type Releases interface {
	WaitingRequestsOf(ctx context.Context, u engine.User, siteID string, releaseIDs []string) ([]releases.ApprovalRequest, error)
	AbilitiesOfFacts(ctx context.Context, u engine.User, siteID string, facts []releases.ReleaseFacts) (map[string]releases.ReleaseAbilities, error)
}

// SetReleases gives the calendar the release use cases it answers
// abilities with (engine/services wires it).
func (e *Calendar) SetReleases(r Releases) { e.releases = r }

// errNoReleases: abilities were asked of a calendar wired without the
// release use cases.
var errNoReleases = errors.New("calendar: abilities asked of a calendar without the release use cases")

// ItemAbilities is what the person who asked may do to one calendar item
// now, from the engine's rules: the page shows exactly these actions, and
// the use cases behind them refuse the rest. Only a release's item has
// any; a gate's or an occurrence's has none (the automations' own
// abilities are automations.AbilitiesFor).
type ItemAbilities struct {
	// Move: give the release a new time ("Move to…"), releases' Move.
	Move bool
	// Drag: move it from the Month grid (§15.6): a release the person may
	// move whose time is still to come; never a gate, an occurrence or a
	// ghost of a rule.
	Drag bool
	// PublishNow: a manual run now.
	PublishNow bool
	// Unschedule: take it back to a draft.
	Unschedule bool
	// Decide: approve or deny its waiting request (Request) inline: the
	// person could make the call, and did not ask for it (§10.4).
	Decide bool
	// Request is the id of the release's waiting approval request, "" when
	// none waits.
	Request string
}

// Type is what the item stands for: TypeRelease, TypeGate or
// TypeAutomation (ItemType).
func (it CalendarItem) Type() string { return ItemType(it) }

// attachAbilities fills May of the release items among items for u: the
// waiting requests of those awaiting approval in one statement, and the
// release rule (releases.AbilitiesOfFacts, which reads the items' authors
// only when u acts at the own level).
func (e *Calendar) attachAbilities(ctx context.Context, u engine.User, siteID string, items []*CalendarItem) error {
	if e.releases == nil {
		return errNoReleases
	}
	var rel []*CalendarItem
	var waitingIDs []string
	for _, it := range items {
		if it.Type() != TypeRelease {
			continue
		}
		rel = append(rel, it)
		if it.State == string(release.StateAwaitingApproval) {
			waitingIDs = append(waitingIDs, it.ID)
		}
	}
	if len(rel) == 0 {
		return nil
	}
	waiting := map[string]releases.ApprovalRequest{}
	if len(waitingIDs) > 0 {
		qs, err := e.releases.WaitingRequestsOf(ctx, u, siteID, waitingIDs)
		if err != nil {
			return err
		}
		for _, q := range qs {
			waiting[q.ReleaseID] = q
		}
	}
	facts := make([]releases.ReleaseFacts, 0, len(rel))
	for _, it := range rel {
		f := releases.ReleaseFacts{ID: it.ID, State: release.State(it.State), CreatedBy: it.By.ID,
			Published: it.State == string(release.StatePublished)}
		if q, ok := waiting[it.ID]; ok {
			f.RequestedBy = q.RequestedBy.ID
		}
		facts = append(facts, f)
	}
	can, err := e.releases.AbilitiesOfFacts(ctx, u, siteID, facts)
	if err != nil {
		return err
	}
	now := e.Now()
	for _, it := range rel {
		a := can[it.ID]
		it.May = ItemAbilities{Move: a.Move, PublishNow: a.PublishNow, Unschedule: a.Unschedule,
			Drag:    a.Move && !it.Recurring && it.At.After(now),
			Request: waiting[it.ID].ID}
		it.May.Decide = a.Approve && it.May.Request != ""
	}
	return nil
}
