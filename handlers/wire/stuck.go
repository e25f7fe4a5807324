package wire

import (
	"time"

	"studio/engine/scheduler"
)

// Stuck lists releases the scheduler has not taken, as /health and
// GET /api/scheduler answer them.
func Stuck(rs []scheduler.StuckRelease) []map[string]any {
	out := make([]map[string]any, 0, len(rs))
	for _, r := range rs {
		m := map[string]any{"id": r.ID, "siteId": r.SiteID, "state": r.State}
		if r.ExecuteAt != nil {
			m["executeAt"] = r.ExecuteAt.Format(time.RFC3339)
		}
		if r.LeaseUntil != nil {
			m["leaseUntil"] = r.LeaseUntil.Format(time.RFC3339)
		}
		out = append(out, m)
	}
	return out
}
