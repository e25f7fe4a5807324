package settings

import (
	"context"

	"studio/engine"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/releases"
)

// CodeOneSettingsChange refuses a change of both the kill switch and the
// daily write cap at once: each is its own audited change, one transaction
// each, so a request makes one of them.
const CodeOneSettingsChange = "one_settings_change"

// SettingsChange is the schedule settings as a caller wants them (the JSON
// API's PUT): the rev it last saw, and the kill switch with its reason or
// the daily write cap. A nil field keeps its value.
type SettingsChange struct {
	Rev           int64
	Paused        *bool
	Reason        string
	DailyWriteCap *int
}

// ChangeScheduleSettings brings the site's schedule settings to c, for
// Administrators and above, through SetKillSwitch or SetDailyWriteCap, so
// the rules, the audit and the pokes are theirs. Asking for what already
// holds changes nothing and answers the settings as they are; asking to
// flip the switch and change the cap together is refused, changing nothing.
func (e *Settings) ChangeScheduleSettings(ctx context.Context, u engine.User, siteID string, c SettingsChange) (releases.ScheduleSettings, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return releases.ScheduleSettings{}, err
	}
	if c.DailyWriteCap != nil {
		if err := automation.ValidateDailyWriteCap(*c.DailyWriteCap); err != nil || *c.DailyWriteCap > releases.MaxDailyWriteCap {
			return releases.ScheduleSettings{}, engine.Refuse(CodeDailyWriteCapInvalid, "dailyWriteCap")
		}
	}
	cur, err := e.currentSettings(ctx, siteID, c.Rev)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	flip := c.Paused != nil && *c.Paused != cur.Paused
	newCap := c.DailyWriteCap != nil && *c.DailyWriteCap != cur.DailyWriteCap
	switch {
	case flip && newCap:
		return releases.ScheduleSettings{}, engine.Refuse(CodeOneSettingsChange, "")
	case flip:
		return e.SetKillSwitch(ctx, u, siteID, *c.Paused, c.Reason, c.Rev)
	case newCap:
		return e.SetDailyWriteCap(ctx, u, siteID, *c.DailyWriteCap, c.Rev)
	}
	return cur, nil
}
