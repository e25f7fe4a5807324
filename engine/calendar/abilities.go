package calendar

import (
	"context"
	"errors"
	"slices"

	"studio/engine"
	"studio/engine/automations"
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

// errNoReleases: abilities were asked of a calendar wired without the
// release use cases.
var errNoReleases = errors.New("calendar: abilities asked of a calendar without the release use cases")

// ItemAbilities is what the person who asked may do to one calendar item
// now, from the engine's rules: the page shows exactly these actions, and
// the use cases behind them refuse the rest. A release's item has the
// release's, an automation's occurrence its automation's
// (automations.AbilitiesFor: RunNow and Edit); a gate's has none.
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
	// RunNow: run the occurrence's automation now, outside its schedule.
	RunNow bool
	// Edit: open the occurrence's automation in its editor.
	Edit bool
}

// Type is what the item stands for: TypeRelease, TypeGate or
// TypeAutomation (ItemType).
func (it CalendarItem) Type() string { return ItemType(it) }

// attachAbilities fills May of items for u: the releases' and the
// automation occurrences'.
func (e *Calendar) attachAbilities(ctx context.Context, u engine.User, siteID string, items []*CalendarItem) error {
	if err := e.attachReleaseAbilities(ctx, u, siteID, items); err != nil {
		return err
	}
	return e.attachOccurrenceAbilities(ctx, u, siteID, items)
}

// attachOccurrenceAbilities fills May of the automation occurrences among
// items by their automation's abilities: one read of the automations, and
// of the kill switch for a person who may manage them (Run now waits while
// the site is paused); none without occurrences.
func (e *Calendar) attachOccurrenceAbilities(ctx context.Context, u engine.User, siteID string, items []*CalendarItem) error {
	if !slices.ContainsFunc(items, func(it *CalendarItem) bool { return it.Type() == TypeAutomation }) {
		return nil
	}
	autos, err := e.store.Automations(ctx, siteID)
	if err != nil {
		return err
	}
	paused := false
	if automations.AbilitiesOf(u).Manage {
		set, err := e.store.ScheduleSettings(ctx, siteID)
		if err != nil {
			return err
		}
		paused = set.Paused
	}
	can := make(map[string]automations.AutomationAbilities, len(autos))
	for _, a := range autos {
		can[a.ID] = automations.AbilitiesFor(u, a, paused)
	}
	for _, it := range items {
		if it.Type() == TypeAutomation {
			a := can[it.Target]
			it.May.RunNow, it.May.Edit = a.RunNow, a.Edit
		}
	}
	return nil
}

// attachReleaseAbilities fills May of the release items among items for
// u: the waiting requests of those awaiting approval in one statement, and
// the release rule (releases.AbilitiesOfFacts, which reads the items'
// authors only when u acts at the own level).
func (e *Calendar) attachReleaseAbilities(ctx context.Context, u engine.User, siteID string, items []*CalendarItem) error {
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
