// Package services wires every use-case family on one store and clock:
// what cmd/studio builds once and each surface (Studio, the JSON API, the
// CLI) reads. Its Store is the union of the families' narrow interfaces,
// so package store satisfies it and no family sees more than it declares.
package services

import (
	"context"
	"log/slog"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/gates"
	"studio/engine/identity"
	"studio/engine/jobs"
	"studio/engine/nodes"
	"studio/engine/oauth"
	"studio/engine/people"
	"studio/engine/policy"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/settings"
	"studio/engine/setup"
)

// Store is what all the families need together.
type Store interface {
	engine.Store
	releases.Store
	nodes.Store
	calendar.Store
	scheduler.Store
	public.Store
	settings.Store
	automations.Store
	gates.Store
	identity.Store
	jobs.Store
	agents.Store
	oauth.Store
	setup.Store
	people.Store
}

// Services are the use-case families of one process.
type Services struct {
	Engine *engine.Engine
	// Releases are the release use cases: drafts, schedules, moves,
	// approvals, conflicts, undo, the release views and abilities.
	Releases *releases.Releases
	// Nodes are pages, entries and media files: their use cases, the
	// content list, a site's whole publish and its history.
	Nodes       *nodes.Nodes
	Calendar    *calendar.Calendar
	Scheduler   *scheduler.Scheduler
	Public      *public.Public
	Settings    *settings.Settings
	Automations *automations.Automations
	Gates       *gates.Gates
	Identity    *identity.Identity
	// Jobs are the built-in automation jobs' bodies; handlers.New gives
	// them the public site to render (feed-check).
	Jobs *jobs.Jobs
	// Agents are the agent keys: minted by people, authenticating the
	// agents' calls (/mcp).
	Agents *agents.Agents
	// OAuth is the authorization server of connectors that speak only
	// OAuth: its tokens are agent keys, minted through Agents.
	OAuth *oauth.OAuth
	// Setup is the first run on an empty database: its one-time link.
	Setup *setup.Setup
	// People are a site's members: invitations, roles, removals.
	People *people.People
}

// New wires the families on st at clock's time. log may be nil.
func New(st Store, clock engine.Clock, log *slog.Logger) *Services {
	return Of(engine.New(st, clock, log), st, clock, log)
}

// Of wires the families around an engine already made (a test's engine
// on a wrapped store, say).
func Of(eng *engine.Engine, st Store, clock engine.Clock, log *slog.Logger) *Services {
	rel := releases.New(eng, st)
	sched := scheduler.New(rel, st, log)
	steps := jobs.New(eng, st, nil) // handlers.New gives it the public site to render
	sched.SetJobs(steps)
	keys := agents.New(st, eng)
	sched.SetAgentKeys(keys) // an auto approval is re-checked against its key at T
	aut := automations.New(st, eng)
	aut.SetKeyMinter(automationKeys{keys}) // an agent task mints its own key
	ids := identity.New(eng, st, log)
	nds := nodes.New(rel, st)
	cal := calendar.New(st, rel, clock, log)
	return &Services{
		Engine:      eng,
		Releases:    rel,
		Nodes:       nds,
		Calendar:    cal,
		Scheduler:   sched,
		Public:      public.New(rel, nds, st),
		Settings:    settings.New(eng, st),
		Automations: aut,
		// Gates publish their one-item releases through the scheduler's
		// Publish now.
		Gates:    gates.New(rel, sched, st),
		Identity: ids,
		Jobs:     steps,
		Agents:   keys,
		OAuth:    oauth.New(st, keys, clock),
		Setup:    setup.New(eng, st),
		People:   peopleWith(people.New(eng, st, ids.SignIn), keys),
	}
}

// peopleWith is p with its removals revoking the removed person's agent
// keys (§11.8).
func peopleWith(p *people.People, keys *agents.Agents) *people.People {
	p.RevokeKeysWith(keys)
	return p
}

// automationKeys mints an agent task's own key as the automations use
// cases ask for it (engine/automations.KeyMinter).
type automationKeys struct{ keys *agents.Agents }

func (k automationKeys) MintForAutomation(ctx context.Context, u engine.User, siteID, automationID, name string, mode policy.Mode, scopes []policy.Scope) (string, string, error) {
	key, secret, err := k.keys.MintForNewAutomation(ctx, u, siteID, automationID, name, mode, scopes)
	return key.ID, secret, err
}
