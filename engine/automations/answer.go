package automations

import (
	"context"

	"studio/engine"
	"studio/engine/policy"
)

// Answer is an automation as a use case answers the JSON surfaces (the API
// and MCP): the automation and what the person asking may do with it now,
// which depends on the site's kill switch (AbilitiesFor). A surface renders
// it as it is and calls the engine no further.
type Answer struct {
	Automation
	Abilities AutomationAbilities
}

// sitePaused reads the site's kill switch for u, as the site's schedule
// settings are read (schedules:read).
func (e *Automations) sitePaused(ctx context.Context, u engine.User, siteID string) (bool, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return false, err
	}
	set, err := e.store.ScheduleSettings(ctx, siteID)
	return set.Paused, err
}

// Answering runs change, one of the automation use cases that return the
// automation they read or changed (Get, Create, Update, Pause, Resume,
// PauseByAgent, …), and answers it to u with u's abilities: one call.
func (e *Automations) Answering(ctx context.Context, u engine.User, change func() (Automation, error)) (Answer, error) {
	a, err := change()
	if err != nil {
		return Answer{}, err
	}
	paused, err := e.sitePaused(ctx, u, a.SiteID)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Automation: a, Abilities: AbilitiesFor(u, a, paused)}, nil
}

// ListAnswers is List answered to u: each automation with u's abilities,
// the site's kill switch read once.
func (e *Automations) ListAnswers(ctx context.Context, u engine.User, siteID string) ([]Answer, error) {
	list, err := e.List(ctx, u, siteID)
	if err != nil {
		return nil, err
	}
	paused, err := e.sitePaused(ctx, u, siteID)
	if err != nil {
		return nil, err
	}
	out := make([]Answer, 0, len(list))
	for _, a := range list {
		out = append(out, Answer{Automation: a, Abilities: AbilitiesFor(u, a, paused)})
	}
	return out, nil
}
