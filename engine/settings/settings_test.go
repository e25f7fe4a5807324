package settings_test

import (
	"context"
	"fmt"
	"strings"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/settings"
)

// settingsDump adds the schedule settings rows to the bundle's dump, so a
// refused settings change can be shown to have changed nothing at all.
func (b *testBundle) settingsDump(tb testing.TB) string {
	tb.Helper()
	return b.Dump(tb) + "\n" + b.Text(tb, `SELECT 'settings ' || COALESCE(group_concat(site_id || '@' || rev || ':' || paused || ':' ||
		daily_write_cap || ':' || COALESCE(paused_reason, '-'), ' ' ORDER BY site_id), '') FROM schedule_settings`)
}

func (b *testBundle) settings(tb testing.TB) releases.ScheduleSettings {
	tb.Helper()
	s, err := b.Releases.ScheduleSettings(context.Background(), b.Editor, b.Site.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (b *testBundle) resume(tb testing.TB, u engine.User, reason string) releases.ScheduleSettings {
	tb.Helper()
	s, err := settings.New(b.Eng, b.Store).SetKillSwitch(context.Background(), u, b.Site.ID, false, reason, b.settings(tb).Rev)
	if err != nil {
		tb.Fatalf("resume: %v", err)
	}
	return s
}

// TestKillSwitchHoldsDueReleases is §8.6's row "Release while the site is
// paused: not claimed; if the site resumes within the hour, it runs;
// otherwise missed", on a real database with the fake clock.
func TestKillSwitchHoldsDueReleases(t *testing.T) {
	t.Parallel()

	setup := func(t *testing.T) (*testBundle, release.Release) {
		t.Helper()
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // 06:00Z
		b.Pause(t, b.Admin, "Checking the election feed")
		return b, r
	}
	// waits asserts the release is still scheduled, unclaimed, with no run
	// and nothing live.
	waits := func(t *testing.T, b *testBundle, r release.Release) {
		t.Helper()
		got := b.Release(t, r.ID)
		if got.State != release.StateScheduled || got.LeaseToken != "" || got.Outcome != nil {
			t.Fatalf("paused release: state %s lease %q outcome %+v, want scheduled and unclaimed", got.State, got.LeaseToken, got.Outcome)
		}
		if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE subject_id = ?`, r.ID); n != 0 {
			t.Fatalf("%d runs of a paused release", n)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("the article went live while paused")
		}
	}

	t.Run("NotClaimedWhilePaused", func(t *testing.T) {
		b, r := setup(t)
		for _, at := range []time.Time{nine, nine.Add(time.Second), nine.Add(30 * time.Minute), nine.Add(time.Hour)} {
			b.Clock.Set(at)
			if rep := b.Tick(t); rep.Ran != 0 || rep.More {
				t.Fatalf("tick at %s while paused: %+v", at.Format(time.RFC3339), rep)
			}
			waits(t, b, r)
		}
	})

	t.Run("ResumeWithinTheHourRunsLate", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine)
		b.Tick(t)
		waits(t, b, r)
		b.Clock.Set(nine.Add(40 * time.Minute))
		b.Tick(t)
		waits(t, b, r)
		b.resume(t, b.Owner, "Feed checked")
		rep := b.Tick(t)
		if rep.Published != 1 || rep.Late != 1 {
			t.Fatalf("tick after resuming: %+v, want one late publish", rep)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StatePublished || got.Outcome == nil || got.Outcome.LatenessSeconds == nil ||
			*got.Outcome.LatenessSeconds != 40*60 {
			t.Fatalf("release after resuming: %s %+v, want published 2400 s late", got.State, got.Outcome)
		}
		if _, ok := b.Live(t)[b.Article.ID]; !ok {
			t.Fatal("the article is not live after resuming")
		}
	})

	t.Run("ResumeAtExactlyOneHourStillRuns", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine.Add(time.Hour))
		b.Tick(t)
		waits(t, b, r)
		b.resume(t, b.Admin, "Back")
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick at exactly one hour late, resumed: %+v", rep)
		}
	})

	t.Run("StillPausedAfterTheHourIsMissed", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine.Add(30 * time.Minute))
		b.Tick(t)
		waits(t, b, r)
		b.Clock.Set(nine.Add(time.Hour + time.Millisecond))
		rep := b.Tick(t)
		if rep.Ran != 1 || rep.Failed != 1 || rep.Published != 0 {
			t.Fatalf("tick an hour and a millisecond late: %+v, want one missed", rep)
		}
		got := b.Release(t, r.ID)
		if got.State != release.StateMissed || got.Outcome == nil || got.Outcome.Kind != "missed" {
			t.Fatalf("release: %s %+v, want missed", got.State, got.Outcome)
		}
		runID := ids.RunID(r.ID, nine)
		if n := b.Count(t, `SELECT count(*) FROM schedule_runs WHERE id = ? AND state = 'missed'`, runID); n != 1 {
			t.Fatalf("missed run rows = %d", n)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("a missed release went live")
		}
		// Resuming now changes nothing: missed stays missed.
		b.resume(t, b.Admin, "Too late")
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("tick after resuming: %+v", rep)
		}
		if got := b.Release(t, r.ID).State; got != release.StateMissed {
			t.Fatalf("state after resuming = %s", got)
		}
	})

	t.Run("MissedEvenWhenNoTickRanMeanwhile", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine.Add(3 * time.Hour)) // the process was down
		b.Tick(t)
		if got := b.Release(t, r.ID).State; got != release.StateMissed {
			t.Fatalf("state = %s, want missed", got)
		}
	})

	t.Run("WaitingIsNotOverdueForTheBackstop", func(t *testing.T) {
		b, r := setup(t)
		b.Clock.Set(nine.Add(-time.Minute))
		b.Tick(t) // a healthy heartbeat
		b.Clock.Set(nine.Add(5 * time.Minute))
		// The release waits on purpose: the heartbeat is on time, so the
		// backstop must not count it as overdue work.
		if ran, err := scheduler.New(b.Releases, b.Store, nil).Backstop(context.Background()); err != nil || ran {
			t.Fatalf("backstop while paused: ran %v, err %v; want no tick", ran, err)
		}
		waits(t, b, r)
	})

	t.Run("OtherSitesRun", func(t *testing.T) {
		b, _ := setup(t)
		other, err := b.CreateSite(context.Background(), "Other Gazette", "Europe/Istanbul")
		if err != nil {
			t.Fatal(err)
		}
		n := b.CreateNode(t, other.ID, release.KindContentEntry,
			content.Body{Title: "Elsewhere", Slug: "elsewhere", Status: content.StatusDraft, Text: "Other news."})
		r2 := b.Schedule(t, b.Editor, n, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick: %+v, want the other site's release published", rep)
		}
		got, err := b.Releases.Release(context.Background(), engine.Reader(other.ID), other.ID, r2.ID)
		if err != nil || got.State != release.StatePublished {
			t.Fatalf("other site's release: %s (%v)", got.State, err)
		}
	})

	t.Run("PauseAfterTheTicksReadStopsTheClaim", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine)
		rows, err := b.Store.DueReleases(context.Background(), nine, 10)
		if err != nil || len(rows) != 1 || rows[0].SitePaused {
			t.Fatalf("due rows before pausing: %+v (%v)", rows, err)
		}
		b.Pause(t, b.Admin, "Stop")
		row := rows[0]
		ok, err := b.Store.ClaimRelease(context.Background(), scheduler.Claim{RunID: ids.RunID(r.ID, nine), SiteID: b.Site.ID,
			ReleaseID: r.ID, Rev: row.Rev, State: row.State, ExecuteAt: nine, Token: "lease_test",
			LeaseUntil: nine.Add(10 * time.Minute), Trigger: "manual", Now: nine})
		if err != nil || ok {
			t.Fatalf("claim after the pause committed: ok %v, err %v; want refused", ok, err)
		}
		if got := b.Release(t, r.ID).State; got != release.StateScheduled {
			t.Fatalf("state = %s, want scheduled", got)
		}
	})
}

func TestKillSwitch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("OnlyAdministratorsAndOwners", func(t *testing.T) {
		b := newBundle(t)
		before := b.settingsDump(t)
		for _, u := range []engine.User{b.Editor, b.Author, b.Contributor} {
			_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, u, b.Site.ID, true, "Because", 0)
			wantRefusal(t, err, engine.CodeForbidden, "")
		}
		if after := b.settingsDump(t); after != before {
			t.Fatalf("refused pauses changed the database:\n%s\n%s", before, after)
		}
		b.Pause(t, b.Admin, "Admin pauses")
		_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Editor, b.Site.ID, false, "Editor resumes", b.settings(t).Rev)
		wantRefusal(t, err, engine.CodeForbidden, "")
		b.resume(t, b.Owner, "Owner resumes")
	})

	t.Run("ReasonRequired", func(t *testing.T) {
		b := newBundle(t)
		before := b.settingsDump(t)
		for _, tc := range []struct{ name, reason, code string }{
			{"Empty", "", releases.CodeReason},
			{"Spaces", "   \t ", releases.CodeReason},
			{"TwoLines", "First line\nsecond line", settings.CodeReasonInvalid},
			{"LineSeparator", "Stop\u2028now", settings.CodeReasonInvalid},
			{"Tab", "Stop\tnow", settings.CodeReasonInvalid},
			{"TooLong", strings.Repeat("ş", 501), settings.CodeReasonInvalid},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, tc.reason, 0)
				wantRefusal(t, err, tc.code, "reason")
			})
		}
		if after := b.settingsDump(t); after != before {
			t.Fatalf("refused pauses changed the database:\n%s\n%s", before, after)
		}
		// 500 characters of two bytes each are one line of 500 characters.
		s := b.Pause(t, b.Admin, "  "+strings.Repeat("ş", 500)+"  ")
		if s.PausedReason != strings.Repeat("ş", 500) {
			t.Fatalf("reason = %q…, want trimmed", s.PausedReason[:10])
		}
	})

	t.Run("StaleRevisionChangesNothing", func(t *testing.T) {
		b := newBundle(t)
		b.Pause(t, b.Admin, "First")
		b.resume(t, b.Admin, "Second") // rev 2
		before := b.settingsDump(t)
		for _, rev := range []int64{0, 1, 3} {
			_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, "From an old page", rev)
			wantRefusal(t, err, engine.CodeStale, "")
			_, err = settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Admin, b.Site.ID, 10, rev)
			wantRefusal(t, err, engine.CodeStale, "")
		}
		if after := b.settingsDump(t); after != before {
			t.Fatalf("stale writes changed the database:\n%s\n%s", before, after)
		}
	})

	t.Run("ConcurrentPausesOneWins", func(t *testing.T) {
		b := newBundle(t)
		errs := make(chan error, 4)
		for i := range 4 {
			go func() {
				_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, fmt.Sprintf("Pause %d", i), 0)
				errs <- err
			}()
		}
		won := 0
		for range 4 {
			if err := <-errs; err == nil {
				won++
			} else {
				wantRefusal(t, err, engine.CodeStale, "")
			}
		}
		if won != 1 {
			t.Fatalf("%d of 4 concurrent pauses went through, want exactly 1", won)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'site.schedules_pause'`); n != 1 {
			t.Fatalf("%d pause audit rows, want 1", n)
		}
		if s := b.settings(t); !s.Paused || s.Rev != 1 {
			t.Fatalf("settings: %+v", s)
		}
	})

	t.Run("NoDoubleFlip", func(t *testing.T) {
		b := newBundle(t)
		_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, false, "Not paused", 0)
		wantRefusal(t, err, settings.CodeNotPaused, "")
		s := b.Pause(t, b.Admin, "Once")
		_, err = settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, b.Site.ID, true, "Twice", s.Rev)
		wantRefusal(t, err, settings.CodeAlreadyPaused, "")
	})

	t.Run("UnknownSite", func(t *testing.T) {
		b := newBundle(t)
		_, err := settings.New(b.Eng, b.Store).SetKillSwitch(ctx, b.Admin, "site_nope", true, "Why not", 0)
		if err != engine.ErrNotFound {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if n := b.Count(t, `SELECT count(*) FROM schedule_settings`); n != 0 {
			t.Fatalf("%d settings rows for an unknown site", n)
		}
	})

	t.Run("StateAndAudit", func(t *testing.T) {
		b := newBundle(t)
		if s := b.settings(t); s.Paused || s.Rev != 0 || s.DailyWriteCap != 200 || s.PausedBy != nil {
			t.Fatalf("defaults = %+v", s)
		}
		b.Clock.Set(start.Add(10 * time.Minute))
		s := b.Pause(t, b.Admin, "Checking the election feed")
		got := b.settings(t)
		if !got.Paused || got.Rev != 1 || got.PausedBy == nil || got.PausedBy.ID != b.Admin.ID || got.PausedBy.Name != "Ali" ||
			got.PausedAt == nil || !got.PausedAt.Equal(start.Add(10*time.Minute)) || got.PausedReason != "Checking the election feed" ||
			got.UpdatedBy == nil || got.UpdatedBy.ID != b.Admin.ID || got.DailyWriteCap != 200 {
			t.Fatalf("after pausing: %+v", got)
		}
		if got.Rev != s.Rev || got.PausedReason != s.PausedReason {
			t.Fatalf("SetKillSwitch returned %+v, the store holds %+v", s, got)
		}
		b.Clock.Set(start.Add(25 * time.Minute))
		b.resume(t, b.Owner, "Feed checked")
		got = b.settings(t)
		if got.Paused || got.Rev != 2 || got.PausedBy != nil || got.PausedAt != nil || got.PausedReason != "" ||
			got.UpdatedBy == nil || got.UpdatedBy.ID != b.Owner.ID {
			t.Fatalf("after resuming: %+v", got)
		}
		rows := b.Text(t, `SELECT group_concat(action || ' ' || json_extract(actor, '$.id') || ' ' || site_id || ' ' ||
			json_extract(details, '$.reason') || ' ' || at, ' | ') FROM (SELECT * FROM audit WHERE action LIKE 'site.schedules_%' ORDER BY id) a`)
		want := "site.schedules_pause " + b.Admin.ID + " " + b.Site.ID + " Checking the election feed 2026-11-02T05:10:00.000Z | " +
			"site.schedules_resume " + b.Owner.ID + " " + b.Site.ID + " Feed checked 2026-11-02T05:25:00.000Z"
		if rows != want {
			t.Fatalf("audit:\n got %s\nwant %s", rows, want)
		}
		if d := b.Text(t, `SELECT json_extract(details, '$.pausedFor') FROM audit WHERE action = 'site.schedules_resume'`); d != "900" {
			t.Fatalf("resume audit pausedFor = %s, want 900", d)
		}
	})

	t.Run("RollbackCannotUnpause", func(t *testing.T) {
		// The switch lives outside the graph: publishing and flipping the
		// site pointer leave it alone.
		b := newBundle(t)
		b.Pause(t, b.Admin, "Hold everything")
		b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusPublished})
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		if !b.settings(t).Paused {
			t.Fatal("a publish un-paused the site")
		}
	})
}

func TestDailyWriteCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("Set", func(t *testing.T) {
		b := newBundle(t)
		s, err := settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Admin, b.Site.ID, 50, 0)
		if err != nil || s.DailyWriteCap != 50 || s.Rev != 1 {
			t.Fatalf("set 50: %+v, %v", s, err)
		}
		if got := b.settings(t); got.DailyWriteCap != 50 || got.Rev != 1 || got.Paused {
			t.Fatalf("stored: %+v", got)
		}
		if d := b.Text(t, `SELECT json_extract(details, '$.from') || '→' || json_extract(details, '$.to') FROM audit WHERE action = 'site.daily_write_cap'`); d != "200→50" {
			t.Fatalf("audit details %s", d)
		}
		// Pausing keeps the cap, and the cap keeps the pause.
		b.Pause(t, b.Admin, "Pause")
		s, err = settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Owner, b.Site.ID, 0, b.settings(t).Rev)
		if err != nil || s.DailyWriteCap != 0 || !s.Paused {
			t.Fatalf("set 0 while paused: %+v, %v", s, err)
		}
		if got := b.settings(t); got.DailyWriteCap != 0 || !got.Paused || got.PausedReason != "Pause" {
			t.Fatalf("stored: %+v", got)
		}
		// The same cap again writes nothing.
		audits := b.Count(t, `SELECT count(*) FROM audit`)
		if _, err := settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Owner, b.Site.ID, 0, b.settings(t).Rev); err != nil {
			t.Fatal(err)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit`); n != audits {
			t.Fatalf("an unchanged cap wrote %d audit rows", n-audits)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		b := newBundle(t)
		before := b.settingsDump(t)
		for _, c := range []int{-1, releases.MaxDailyWriteCap + 1, 1 << 40} {
			_, err := settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Admin, b.Site.ID, c, 0)
			wantRefusal(t, err, settings.CodeDailyWriteCapInvalid, "dailyWriteCap")
		}
		_, err := settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Editor, b.Site.ID, 10, 0)
		wantRefusal(t, err, engine.CodeForbidden, "")
		if after := b.settingsDump(t); after != before {
			t.Fatalf("refused caps changed the database:\n%s\n%s", before, after)
		}
		if _, err := settings.New(b.Eng, b.Store).SetDailyWriteCap(ctx, b.Admin, b.Site.ID, releases.MaxDailyWriteCap, 0); err != nil {
			t.Fatalf("the largest cap: %v", err)
		}
	})

	t.Run("Parse", func(t *testing.T) {
		for in, want := range map[string]int{"0": 0, "200": 200, " 75 ": 75, "100000": 100000} {
			if got, err := settings.ParseDailyWriteCap(in); err != nil || got != want {
				t.Errorf("ParseDailyWriteCap(%q) = %d, %v; want %d", in, got, err, want)
			}
		}
		for _, in := range []string{"", "-1", "100001", "1.5", "ten", "1e3", "99999999999999999999"} {
			_, err := settings.ParseDailyWriteCap(in)
			wantRefusal(t, err, settings.CodeDailyWriteCapInvalid, "dailyWriteCap")
		}
	})

	t.Run("UseCountsTodaysAutomationWrites", func(t *testing.T) {
		b := newBundle(t)
		if n, err := settings.New(b.Eng, b.Store).DailyWriteUse(ctx, b.Site.ID); err != nil || n != 0 {
			t.Fatalf("use with no automations: %d, %v", n, err)
		}
		other, err := b.CreateSite(ctx, "Other", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range []struct {
			at, site, automation string
		}{
			{"2026-11-01T23:59:59.999Z", b.Site.ID, "aut_1"}, // yesterday (UTC)
			{"2026-11-02T00:00:00.000Z", b.Site.ID, "aut_1"}, // today
			{"2026-11-02T04:59:00.000Z", b.Site.ID, "aut_2"}, // today
			{"2026-11-02T04:59:00.000Z", b.Site.ID, ""},      // a person's act
			{"2026-11-02T04:59:00.000Z", other.ID, "aut_3"},  // another site
		} {
			if _, err := b.Store.DB().Exec(`INSERT INTO audit (at, site_id, action, actor, automation_id)
				VALUES (?, ?, 'node.save', '{}', NULLIF(?, ''))`, row.at, row.site, row.automation); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := settings.New(b.Eng, b.Store).DailyWriteUse(ctx, b.Site.ID); err != nil || n != 2 {
			t.Fatalf("use = %d, %v; want 2", n, err)
		}
		// The UTC day, not the site's: 02:59 in Istanbul on 3 November is
		// still 2 November in UTC.
		b.Clock.Set(time.Date(2026, 11, 2, 23, 59, 0, 0, time.UTC))
		if n, _ := settings.New(b.Eng, b.Store).DailyWriteUse(ctx, b.Site.ID); n != 2 {
			t.Fatalf("use at 23:59Z = %d, want 2", n)
		}
		b.Clock.Set(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC))
		if n, _ := settings.New(b.Eng, b.Store).DailyWriteUse(ctx, b.Site.ID); n != 0 {
			t.Fatalf("use after midnight UTC = %d, want 0", n)
		}
	})
}

func TestSetSiteTimeZone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("RelabelsButKeepsScheduledInstants", func(t *testing.T) {
		b := newBundle(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // 06:00Z, Istanbul
		before := b.Site
		site, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Admin, b.Site.ID, "Europe/Berlin", before.Rev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Eng.Site(ctx, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.TimeZone != "Europe/Berlin" || got.Rev != before.Rev+1 || got.Hash == before.Hash || got != site {
			t.Fatalf("site after the change: %+v (returned %+v), before %+v", got, site, before)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'site.time_zone' AND site_id = ?
			AND json_extract(details, '$.from') = 'Europe/Istanbul' AND json_extract(details, '$.to') = 'Europe/Berlin'
			AND json_extract(actor, '$.id') = ?`, b.Site.ID, b.Admin.ID); n != 1 {
			t.Fatalf("audit rows = %d", n)
		}

		// The release keeps its instant and its own zone: 09:00 Istanbul is
		// still 06:00Z, shown now as 07:00 Berlin.
		rel := b.Release(t, r.ID)
		if !rel.ExecuteAt.Equal(nine) || rel.When.TimeZone != "Europe/Istanbul" || rel.When.LocalTime != "2026-11-02T09:00" {
			t.Fatalf("release after the zone change: at %s when %+v", rel.ExecuteAt, rel.When)
		}
		berlin, _ := localtime.LoadZone("Europe/Berlin")
		if hm := rel.ExecuteAt.In(berlin).Format("15:04"); hm != "07:00" {
			t.Fatalf("in the new zone it shows %s, want 07:00", hm)
		}
		b.Clock.Set(nine.Add(-time.Millisecond))
		if rep := b.Tick(t); rep.Ran != 0 {
			t.Fatalf("early tick: %+v", rep)
		}
		b.Clock.Set(nine)
		if rep := b.Tick(t); rep.Published != 1 {
			t.Fatalf("tick at the original instant: %+v", rep)
		}
		// The pointer flip was guarded on the new hash and went through.
		if got, _ := b.Eng.Site(ctx, b.Site.ID); got.Rev != site.Rev+1 || got.PublishedSnapshotID == "" {
			t.Fatalf("site after the publish: %+v", got)
		}
		// New schedules use the new zone.
		n := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
			content.Body{Title: "Later", Slug: "later", Status: content.StatusDraft, Text: "More."})
		r2 := b.Schedule(t, b.Editor, n, "2026-11-02", "09:00")
		if want := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC); !r2.When.At.Equal(want) || r2.When.TimeZone != "Europe/Berlin" {
			t.Fatalf("a new schedule at 09:00: %+v, want 08:00Z in Berlin", r2.When)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		b := newBundle(t)
		before := b.settingsDump(t)
		for _, zone := range []string{"", "Mars/Olympus", "Local", "UTC+3", "Europe/../Istanbul", "europe/istanbul"} {
			_, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Admin, b.Site.ID, zone, b.Site.Rev)
			wantRefusal(t, err, releases.CodeUnknownZone, "timeZone")
		}
		_, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Editor, b.Site.ID, "Europe/Berlin", b.Site.Rev)
		wantRefusal(t, err, engine.CodeForbidden, "")
		_, err = settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Admin, b.Site.ID, "Europe/Berlin", b.Site.Rev+1)
		wantRefusal(t, err, engine.CodeStale, "")
		if after := b.settingsDump(t); after != before {
			t.Fatalf("refused zone changes changed the database:\n%s\n%s", before, after)
		}
	})

	t.Run("StaleAfterAPublish", func(t *testing.T) {
		// A publish moves the site's rev: a zone form from before it is stale.
		b := newBundle(t)
		b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusPublished})
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		_, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Owner, b.Site.ID, "Europe/Berlin", b.Site.Rev)
		wantRefusal(t, err, engine.CodeStale, "")
	})

	t.Run("SameZoneWritesNothing", func(t *testing.T) {
		b := newBundle(t)
		before := b.settingsDump(t)
		site, err := settings.New(b.Eng, b.Store).SetSiteTimeZone(ctx, b.Owner, b.Site.ID, " Europe/Istanbul ", b.Site.Rev)
		if err != nil || site.Rev != b.Site.Rev {
			t.Fatalf("same zone: %+v, %v", site, err)
		}
		if after := b.settingsDump(t); after != before {
			t.Fatalf("an unchanged zone wrote:\n%s\n%s", before, after)
		}
	})
}

func TestSchedulerHealth(t *testing.T) {
	t.Parallel()

	t.Run("Boundaries", func(t *testing.T) {
		hb := scheduler.Heartbeat{At: start, NextWakeAt: start.Add(5 * time.Minute)}
		for _, tc := range []struct {
			name    string
			found   bool
			now     time.Time
			dueSoon bool // something is due within 24 hours
			want    string
		}{
			{"NeverBeat", false, start, false, scheduler.HealthStopped},
			{"JustBeat", true, start, true, scheduler.HealthRunning},
			{"AtThePromise", true, hb.NextWakeAt, true, scheduler.HealthRunning},
			{"TwoMinutesOverdue", true, hb.NextWakeAt.Add(2 * time.Minute), true, scheduler.HealthRunning},
			{"JustPastGrace", true, hb.NextWakeAt.Add(2*time.Minute + time.Millisecond), true, scheduler.HealthLate},
			// §8.7's tiers: with nothing due within a day, the scheduler is
			// stalled only more than ten minutes past its promise.
			{"JustPastGraceIdle", true, hb.NextWakeAt.Add(2*time.Minute + time.Millisecond), false, scheduler.HealthRunning},
			{"TenMinutesOverdue", true, hb.NextWakeAt.Add(10 * time.Minute), true, scheduler.HealthLate},
			{"TenMinutesOverdueIdle", true, hb.NextWakeAt.Add(10 * time.Minute), false, scheduler.HealthRunning},
			{"PastTen", true, hb.NextWakeAt.Add(10*time.Minute + time.Millisecond), true, scheduler.HealthStopped},
			{"PastTenIdle", true, hb.NextWakeAt.Add(10*time.Minute + time.Millisecond), false, scheduler.HealthStopped},
			{"Days", true, hb.NextWakeAt.Add(72 * time.Hour), false, scheduler.HealthStopped},
		} {
			if got := scheduler.HealthOf(hb, tc.found, tc.now, tc.dueSoon); got != tc.want {
				t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
			}
			if running := scheduler.HealthOf(hb, tc.found, tc.now, tc.dueSoon) == scheduler.HealthRunning; running == scheduler.Stalled(hb, tc.found, tc.now, tc.dueSoon) {
				t.Errorf("%s: running %v disagrees with Stalled", tc.name, running)
			}
		}
	})

	t.Run("FromTheHeartbeat", func(t *testing.T) {
		b := newBundle(t)
		h, err := b.Sched.SchedulerHealth(context.Background())
		if err != nil || h.State != scheduler.HealthStopped || h.Beat != nil {
			t.Fatalf("before any tick: %+v, %v", h, err)
		}
		b.Tick(t)
		h, err = b.Sched.SchedulerHealth(context.Background())
		if err != nil || h.State != scheduler.HealthRunning || h.Beat == nil || !h.Beat.At.Equal(start) ||
			!h.Beat.NextWakeAt.Equal(start.Add(5*time.Minute)) || h.Beat.Trigger != "manual" {
			t.Fatalf("after a tick: %+v, %v", h, err)
		}
		b.Clock.Advance(8 * time.Minute)
		// §8.7's 24-hour tier: three minutes past the promise with nothing
		// due within a day is not stalled yet; with a release due tomorrow
		// morning it is.
		if h, _ := b.Sched.SchedulerHealth(context.Background()); h.State != scheduler.HealthRunning {
			t.Fatalf("8 minutes after the beat, nothing due: %s, want running", h.State)
		}
		if stalled, err := b.Sched.Stalled(context.Background()); err != nil || stalled {
			t.Fatalf("8 minutes after the beat, nothing due: stalled %v, %v", stalled, err)
		}
		b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		if h, _ := b.Sched.SchedulerHealth(context.Background()); h.State != scheduler.HealthLate {
			t.Fatalf("8 minutes after the beat, a release due within a day: %s, want late", h.State)
		}
		if stalled, err := b.Sched.Stalled(context.Background()); err != nil || !stalled {
			t.Fatalf("8 minutes after the beat, a release due within a day: stalled %v, %v", stalled, err)
		}
		b.Clock.Advance(8 * time.Minute)
		if h, _ := b.Sched.SchedulerHealth(context.Background()); h.State != scheduler.HealthStopped {
			t.Fatalf("16 minutes after the beat: %s, want stopped", h.State)
		}
	})
}
