package settings_test

import (
	"context"
	"testing"

	"studio/engine"
	"studio/engine/releases"
	"studio/engine/settings"
)

func TestChangeScheduleSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	on, capped := true, 150
	change := func(u engine.User, c settings.SettingsChange) (releases.ScheduleSettings, error) {
		return settings.New(b.Eng, b.Store).ChangeScheduleSettings(ctx, u, b.Site.ID, c)
	}
	unchanged := func(t *testing.T, what string, fn func()) {
		t.Helper()
		before := b.Dump(t) + b.Text(t, `SELECT COALESCE(group_concat(CAST(rev AS TEXT) || ':' || CAST(paused AS TEXT) || ':' || CAST(daily_write_cap AS TEXT)), 'defaults') FROM schedule_settings`)
		fn()
		if after := b.Dump(t) + b.Text(t, `SELECT COALESCE(group_concat(CAST(rev AS TEXT) || ':' || CAST(paused AS TEXT) || ':' || CAST(daily_write_cap AS TEXT)), 'defaults') FROM schedule_settings`); after != before {
			t.Errorf("%s changed:\n%s\n%s", what, before, after)
		}
	}

	unchanged(t, "refusals", func() {
		_, err := change(b.Editor, settings.SettingsChange{Rev: 0, DailyWriteCap: &capped})
		wantRefusal(t, err, "forbidden", "")
		tooMany := releases.MaxDailyWriteCap + 1
		_, err = change(b.Admin, settings.SettingsChange{Rev: 0, DailyWriteCap: &tooMany})
		wantRefusal(t, err, "daily_write_cap_out_of_range", "dailyWriteCap")
		_, err = change(b.Admin, settings.SettingsChange{Rev: 3, DailyWriteCap: &capped})
		wantRefusal(t, err, "stale", "")
		_, err = change(b.Admin, settings.SettingsChange{Rev: 0, Paused: &on, DailyWriteCap: &capped})
		wantRefusal(t, err, "one_settings_change", "")
		_, err = change(b.Admin, settings.SettingsChange{Rev: 0, Paused: &on})
		wantRefusal(t, err, "reason_required", "reason")
	})

	set, err := change(b.Admin, settings.SettingsChange{Rev: 0, DailyWriteCap: &capped})
	if err != nil {
		t.Fatal(err)
	}
	if set.DailyWriteCap != 150 || set.Rev != 1 {
		t.Fatalf("settings = %+v", set)
	}
	set, err = change(b.Admin, settings.SettingsChange{Rev: 1, Paused: &on, Reason: "Checking the feed", DailyWriteCap: &capped})
	if err != nil {
		t.Fatal(err)
	}
	if !set.Paused || set.PausedReason != "Checking the feed" || set.Rev != 2 || set.PausedBy == nil || set.PausedBy.ID != b.Admin.ID {
		t.Fatalf("settings = %+v", set)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action IN ('site.daily_write_cap', 'site.schedules_pause')`); n != 2 {
		t.Errorf("%d audit rows, want one per change", n)
	}
	unchanged(t, "asking for what holds", func() {
		got, err := change(b.Admin, settings.SettingsChange{Rev: 2, Paused: &on, DailyWriteCap: &capped})
		if err != nil || got.Rev != 2 {
			t.Errorf("settings %+v, %v", got, err)
		}
	})
}
