package automations

import (
	"context"

	"studio/engine"
)

// AgentSite is the site an agent's tool call names (§12: every site tool
// takes siteId). An agent key, a person's or an automation's, belongs to
// exactly one site, the one it was minted on (u.SiteID, where the key
// became its caller): any other siteId is refused forbidden before
// anything is read, whether that site exists or not, so a key of site A
// learns nothing of site B and writes nothing there.
func (e *Automations) AgentSite(ctx context.Context, u engine.User, siteID string) (engine.Site, error) {
	if err := engine.AgentOnSite(u, siteID); err != nil {
		return engine.Site{}, err
	}
	return e.store.Site(ctx, siteID)
}
