package automations

import (
	"context"

	"studio/engine"
)

// AgentSite is the site an agent's tool call names (§12: every site tool
// takes siteId), refused as the API refuses an unknown site: ErrNotFound.
// An automation's own key acts on its automation's site only (one key, one
// automation): any other site is not found for it, so that an agent task
// of site A learns nothing of site B. A person's agent key reaches the
// sites its owner reaches.
func (e *Automations) AgentSite(ctx context.Context, u engine.User, siteID string) (engine.Site, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return engine.Site{}, err
	}
	if u.Agent != nil && u.Agent.AutomationID != "" {
		if _, err := e.store.Automation(ctx, siteID, u.Agent.AutomationID); err != nil {
			return engine.Site{}, err
		}
	}
	return site, nil
}
