package settings

import (
	"context"

	"studio/engine"
	"studio/engine/policy"
	"studio/engine/releases"
)

// Answer is the site's schedule settings as the surfaces show them: the
// settings and the automation writes of the day against the daily cap
// (§11.5). A surface renders it as it is and asks the engine nothing more.
type Answer struct {
	releases.ScheduleSettings
	DailyWritesToday int
}

// ScheduleSettingsAnswer is the site's schedule settings answered to u,
// who may read schedules there.
func (e *Settings) ScheduleSettingsAnswer(ctx context.Context, u engine.User, siteID string) (Answer, error) {
	if err := engine.Require(u, siteID, policy.SchedulesRead); err != nil {
		return Answer{}, err
	}
	set, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil {
		return Answer{}, err
	}
	return e.answer(ctx, set)
}

// ChangeScheduleSettingsAnswer is ChangeScheduleSettings answering the
// settings as they are afterwards.
func (e *Settings) ChangeScheduleSettingsAnswer(ctx context.Context, u engine.User, siteID string, c SettingsChange) (Answer, error) {
	set, err := e.ChangeScheduleSettings(ctx, u, siteID, c)
	if err != nil {
		return Answer{}, err
	}
	return e.answer(ctx, set)
}

func (e *Settings) answer(ctx context.Context, set releases.ScheduleSettings) (Answer, error) {
	used, err := e.DailyWriteUse(ctx, set.SiteID)
	if err != nil {
		return Answer{}, err
	}
	return Answer{ScheduleSettings: set, DailyWritesToday: used}, nil
}
