package studio

import (
	"context"

	"studio/engine"
	"studio/engine/model/release"
	"studio/locales"
)

// actorName is who did something, as a person reads it: people and agents
// by their name, the system's scheduler by its word in the person's
// language ("Zamanlayıcı" in Turkish), not its stored English name.
func actorName(ctx context.Context, a release.Actor) string {
	if a.Kind == engine.Scheduler.Kind && a.ID == engine.Scheduler.ID {
		return locales.T(ctx, "history.actor_scheduler")
	}
	return a.Name
}
