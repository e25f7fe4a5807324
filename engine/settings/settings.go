package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine/automation"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/engine/release"
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

// Refusal codes of the settings use cases.
const (
	CodeUnknownZone          = "unknown_zone"
	CodeReasonInvalid        = "reason_invalid" // longer than 500 characters, or more than one line
	CodeAlreadyPaused        = "already_paused"
	CodeNotPaused            = "not_paused"
	CodeDailyWriteCapInvalid = "daily_write_cap_out_of_range"
)

// ScheduleSettings returns a site's schedule settings, or the defaults when
// nobody has changed them. Everyone who sees the Schedules page reads the
// kill switch (its banner), so reading needs no scope; changing does.
func (e *Engine) ScheduleSettings(ctx context.Context, siteID string) (ScheduleSettings, error) {
	return e.store.ScheduleSettings(ctx, siteID)
}

// SetKillSwitch turns the site's kill switch on (pause schedules and
// automations) or off (resume), for Administrators and above (§11.6 item 2,
// §10.2 site:settings), with a reason of one line, as the person last saw
// the settings at expectedRev. One transaction with its audit row.
//
// While on, the ticker claims none of the site's releases: each waits, runs
// if the site resumes within its late limit of an hour, and otherwise
// becomes missed (§8.6; see RunDue). A release already running when the
// switch is turned on finishes: its outcome is seconds away (§8.5).
func (e *Engine) SetKillSwitch(ctx context.Context, u User, siteID string, on bool, reason string, expectedRev int64) (ScheduleSettings, error) {
	if err := require(u, policy.SiteSettings); err != nil {
		return ScheduleSettings{}, err
	}
	reason, err := checkReason(reason)
	if err != nil {
		return ScheduleSettings{}, err
	}
	cur, err := e.currentSettings(ctx, siteID, expectedRev)
	if err != nil {
		return ScheduleSettings{}, err
	}
	switch {
	case on && cur.Paused:
		return ScheduleSettings{}, refuse(CodeAlreadyPaused, "")
	case !on && !cur.Paused:
		return ScheduleSettings{}, refuse(CodeNotPaused, "")
	}
	now := e.Now()
	by := u.Actor()
	next := cur
	next.Paused, next.Rev, next.UpdatedAt, next.UpdatedBy = on, cur.Rev+1, now, &by
	action := "site.schedules_resume"
	details := map[string]any{"reason": reason}
	if on {
		action = "site.schedules_pause"
		next.PausedBy, next.PausedAt, next.PausedReason = &by, &now, reason
	} else {
		next.PausedBy, next.PausedAt, next.PausedReason = nil, nil, ""
		if cur.PausedAt != nil {
			details["pausedAt"] = localtime.FormatInstant(*cur.PausedAt)
			details["pausedFor"] = int64(now.Sub(*cur.PausedAt) / time.Second)
		}
	}
	// Automations are not wired yet. When they are, this same transaction
	// also applies automation.KillSwitchPause (on) or KillSwitchResume (off)
	// to the site's automations, and kills the open runs with
	// automation.KillSwitchRun (§11.6 item 2: windows do not open, open runs
	// are killed); the ticker then opens no window of a paused site.
	audit := AuditEntry{Action: action, Actor: by, SiteID: siteID, At: now, Details: details}
	if err := e.saveSettings(ctx, next, cur.Rev, audit); err != nil {
		return ScheduleSettings{}, err
	}
	if !on {
		e.Poke() // the releases that waited run now
	}
	return next, nil
}

// SetDailyWriteCap sets the site's cap on automation writes per UTC day
// (§11.5), for Administrators and above, as the person last saw the
// settings at expectedRev.
func (e *Engine) SetDailyWriteCap(ctx context.Context, u User, siteID string, dailyCap int, expectedRev int64) (ScheduleSettings, error) {
	if err := require(u, policy.SiteSettings); err != nil {
		return ScheduleSettings{}, err
	}
	if err := automation.ValidateDailyWriteCap(dailyCap); err != nil || dailyCap > MaxDailyWriteCap {
		return ScheduleSettings{}, refuse(CodeDailyWriteCapInvalid, "dailyWriteCap")
	}
	cur, err := e.currentSettings(ctx, siteID, expectedRev)
	if err != nil {
		return ScheduleSettings{}, err
	}
	if cur.DailyWriteCap == dailyCap {
		return cur, nil // nothing to change, nothing to audit
	}
	now := e.Now()
	by := u.Actor()
	next := cur
	next.DailyWriteCap, next.Rev, next.UpdatedAt, next.UpdatedBy = dailyCap, cur.Rev+1, now, &by
	audit := AuditEntry{Action: "site.daily_write_cap", Actor: by, SiteID: siteID, At: now,
		Details: map[string]any{"from": cur.DailyWriteCap, "to": dailyCap}}
	if err := e.saveSettings(ctx, next, cur.Rev, audit); err != nil {
		return ScheduleSettings{}, err
	}
	return next, nil
}

// ParseDailyWriteCap reads a daily write cap as a form sends it: a whole
// number from 0 to MaxDailyWriteCap.
func ParseDailyWriteCap(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > MaxDailyWriteCap {
		return 0, refuse(CodeDailyWriteCapInvalid, "dailyWriteCap")
	}
	return n, nil
}

// DailyWriteUse counts the site's automation writes in the current UTC day
// (§11.5): audit rows that carry an automation, since midnight UTC. It is 0
// until automations exist.
func (e *Engine) DailyWriteUse(ctx context.Context, siteID string) (int, error) {
	from, to := automation.UTCDay(e.Now())
	return e.store.AutomationWrites(ctx, siteID, from, to)
}

// SetSiteTimeZone changes the site's time zone, for Administrators and
// above, as the person last saw the site at expectedRev: a compare-and-swap
// on the site row, whose rev and hash change with it.
//
// Releases already scheduled keep their instant: each stores its instant
// with the zone and wall-clock time it was scheduled in (RFC §9.1), and the
// never-early recompute uses that zone, not the site's. Studio shows them in
// the new zone from now on: the same instant with a new label.
func (e *Engine) SetSiteTimeZone(ctx context.Context, u User, siteID, zone string, expectedRev int64) (Site, error) {
	if err := require(u, policy.SiteSettings); err != nil {
		return Site{}, err
	}
	zone = strings.TrimSpace(zone)
	if _, err := localtime.LoadZone(zone); err != nil {
		return Site{}, refuse(CodeUnknownZone, "timeZone")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Site{}, err
	}
	if site.Rev != expectedRev {
		return Site{}, refuse(CodeStale, "")
	}
	if site.TimeZone == zone {
		return site, nil
	}
	now := e.Now()
	next := site
	next.TimeZone, next.Rev = zone, site.Rev+1
	next.Hash = siteHash(next)
	audit := AuditEntry{Action: "site.time_zone", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"from": site.TimeZone, "to": zone}}
	if err := e.store.SetSiteTimeZone(ctx, site, zone, next.Hash, now, audit); err != nil {
		if errors.Is(err, ErrConflict) {
			return Site{}, refuse(CodeStale, "")
		}
		return Site{}, err
	}
	return next, nil
}

// SetSiteLang changes the site's language — its public site's words and
// dates, and the language new pages and articles are written in unless
// their editor names one — for those with site settings, as the person
// last saw the site at expectedRev: a compare-and-swap on the site row. A
// language Studio does not speak is refused and changes nothing. Pages
// already written keep their own language.
func (e *Engine) SetSiteLang(ctx context.Context, u User, siteID, lang string, expectedRev int64) (Site, error) {
	if err := require(u, policy.SiteSettings); err != nil {
		return Site{}, err
	}
	lang = strings.TrimSpace(lang)
	if !ValidLanguage(lang) {
		return Site{}, refuse("bad_language", "lang")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Site{}, err
	}
	if site.Rev != expectedRev {
		return Site{}, refuse(CodeStale, "")
	}
	if site.Lang == lang {
		return site, nil
	}
	now := e.Now()
	next := site
	next.Lang, next.Rev = lang, site.Rev+1
	next.Hash = siteHash(next)
	audit := AuditEntry{Action: "site.lang", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"from": site.Lang, "to": lang}}
	if err := e.store.SetSiteLang(ctx, site, lang, next.Hash, now, audit); err != nil {
		if errors.Is(err, ErrConflict) {
			return Site{}, refuse(CodeStale, "")
		}
		return Site{}, err
	}
	return next, nil
}

// currentSettings reads the settings the person means to change and refuses
// when they changed since the person saw them at expectedRev.
func (e *Engine) currentSettings(ctx context.Context, siteID string, expectedRev int64) (ScheduleSettings, error) {
	if _, err := e.store.Site(ctx, siteID); err != nil {
		return ScheduleSettings{}, err
	}
	cur, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil {
		return ScheduleSettings{}, err
	}
	if cur.Rev != expectedRev {
		return ScheduleSettings{}, refuse(CodeStale, "")
	}
	return cur, nil
}

func (e *Engine) saveSettings(ctx context.Context, next ScheduleSettings, expectedRev int64, audit AuditEntry) error {
	err := e.store.SaveScheduleSettings(ctx, next, expectedRev, audit)
	if errors.Is(err, ErrConflict) {
		return refuse(CodeStale, "")
	}
	return err
}

// checkReason trims a kill-switch reason and refuses an empty one, one
// longer than 500 characters, or one with a line break or another control
// character: it is shown on one line in the banner and the audit.
func checkReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", refuse(CodeReason, "reason") // the code of a denial without a reason
	}
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxReasonLength ||
		strings.IndexFunc(reason, breaksLine) >= 0 {
		return "", refuse(CodeReasonInvalid, "reason")
	}
	return reason, nil
}

func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' // line and paragraph separators
}
