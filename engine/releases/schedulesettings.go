package releases

import (
	"context"
	"time"

	"studio/engine"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// ScheduleSettings are a site's schedule settings (RFC §5.1
// schedule_settings, §11.5, §11.6): the kill switch and the daily cap on
// automation writes. They live outside the content graph, so a rollback
// can never un-pause a site. Rev 0 means the site has no row yet and these
// are the defaults.
type ScheduleSettings struct {
	SiteID        string
	Paused        bool
	PausedBy      *release.Actor // while paused
	PausedAt      *time.Time     // while paused
	PausedReason  string         // while paused
	DailyWriteCap int
	Rev           int64
	UpdatedAt     time.Time      // zero for the defaults
	UpdatedBy     *release.Actor // nil for the defaults
}

// DefaultScheduleSettings are a site's settings before anyone changed them.
func DefaultScheduleSettings(siteID string) ScheduleSettings {
	return ScheduleSettings{SiteID: siteID, DailyWriteCap: automation.DefaultDailyWriteCap}
}

// Limits of the settings' inputs.
const (
	// MaxDailyWriteCap bounds the daily automation write cap. The RFC sets
	// no upper bound; this one only catches a slip of the keyboard (a cap
	// of 2,000,000 is no cap), far above any real site's need.
	MaxDailyWriteCap = 100_000
	// MaxReasonLength is the longest kill-switch reason, in characters.
	MaxReasonLength = 500
)

// ScheduleSettings returns a site's schedule settings, or the defaults when
// nobody has changed them. Everyone who sees the Schedules page reads the
// kill switch (its banner), so reading needs schedules:read on the site;
// changing needs site:settings.
func (e *Releases) ScheduleSettings(ctx context.Context, u engine.User, siteID string) (ScheduleSettings, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return ScheduleSettings{}, err
	}
	return e.store.ScheduleSettings(ctx, siteID)
}

// CodeUnknownZone refuses a time zone the zone database does not know.
const CodeUnknownZone = "unknown_zone"
