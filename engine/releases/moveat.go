package releases

import (
	"context"
	"studio/engine"
	"time"
)

// CodeBadAt refuses an instant that no date and time in the site's zone
// names exactly.
const CodeBadAt = "bad_at"

// MoveAt is Move for a caller that gives the new time as an instant (the
// JSON API's reschedule with "at"). A release keeps its time as a date and
// a time in the site's zone (§9.1), so the instant must be one that the
// site's wall clock names exactly: a whole minute, and not the second pass
// through an hour the clocks go back over, which a date and a time always
// read as the first (D2). Anything else is refused rather than moved to a
// time the caller did not ask for.
func (e *Releases) MoveAt(ctx context.Context, u engine.User, siteID, id string, rev int64, at time.Time) (ReleaseRow, error) {
	return e.Reschedule(ctx, u, siteID, id, rev, WhenInput{At: &at})
}
