// Package settings holds the site settings use cases (RFC §5.1, §11.5,
// §11.6): the kill switch and what pausing leaves running, the daily cap on
// automation writes, the site's zone, language and public address.
// engine/releases keeps releases.ScheduleSettings itself (releases read the
// kill switch); this package changes it through its own narrow Store.
package settings

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/setup"
)

// Store is what the settings use cases read and write.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	LiveNodes(ctx context.Context, snapshotID, nodeID string) ([]engine.LiveNode, error)
	calendar.Reads
	// SaveScheduleSettings writes next when the settings are still at
	// expectedRev (0: no row yet), with its audit row; ErrConflict otherwise.
	ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error)
	SaveScheduleSettings(ctx context.Context, next releases.ScheduleSettings, expectedRev int64, audit engine.AuditEntry) error
	// Automations lists a site's automations (the kill switch's moves are
	// computed from them).
	Automations(ctx context.Context, siteID string) ([]automations.Automation, error)
	// SetKillSwitch writes the kill switch's one transaction (w);
	// ErrConflict when the settings are no longer at w.ExpectedRev or an
	// automation moved since it was read, and then nothing is written.
	SetKillSwitch(ctx context.Context, w KillSwitchWrite) error
	// SetSiteTimeZone changes the site's zone when the site is still at
	// site's rev and hash, giving it newHash; ErrConflict otherwise.
	SetSiteTimeZone(ctx context.Context, site engine.Site, zone, newHash string, now time.Time, audit engine.AuditEntry) error
	// SetSiteLang changes the site's language, guarded on site's rev and
	// hash, with its audit row; ErrConflict when the site moved.
	SetSiteLang(ctx context.Context, site engine.Site, lang, newHash string, now time.Time, a engine.AuditEntry) error
	// SetSiteAddress sets the site's public URL and whether it answers
	// the hosts no site names (taking that from every other site), guarded
	// on site's rev and hash, with its audit row; ErrConflict when the
	// site moved.
	SetSiteAddress(ctx context.Context, site engine.Site, publicURL string, defaultHost bool, newHash string, now time.Time, a engine.AuditEntry) error
	Sites(ctx context.Context) ([]engine.Site, error)
	MemberByID(ctx context.Context, siteID, userID string) (engine.User, error)
	// AutomationWrites counts the site's audit rows written by automations
	// in [from, to).
	AutomationWrites(ctx context.Context, siteID string, from, to time.Time) (int, error)
}

// Engine is what the settings use cases need from the engine: the clock,
// the pokes that wake the scheduler, and the schedule settings as releases
// read them.
type Engine interface {
	Now() time.Time
	Poke()
}

// Settings is the site settings use cases.
type Settings struct {
	e     Engine
	store Store
}

// New wires the settings use cases.
func New(e Engine, store Store) *Settings { return &Settings{e: e, store: store} }

// Refusal codes of the settings use cases.
const (
	CodeReasonInvalid        = "reason_invalid" // longer than 500 characters, or more than one line
	CodeAlreadyPaused        = "already_paused"
	CodeNotPaused            = "not_paused"
	CodeDailyWriteCapInvalid = "daily_write_cap_out_of_range"
)

// SetKillSwitch turns the site's kill switch on (pause schedules and
// automations) or off (resume), for Administrators and above (§11.6 item 2,
// §10.2 site:settings), with a reason of one line, as the person last saw
// the settings at expectedRev.
//
// One transaction writes the settings row and what the switch does to the
// site's automations (automations.KillSwitchMoves), each with its audit
// row. On: every open run of the site's automations is killed with error
// kill-switch and every active automation is paused with reason
// kill-switch, so that no agent run outlives the switch by a single call
// (engine/automations.StartCall then refuses every agent call of the site
// but get_mode and pause_automation) and the Automations tab shows what
// the switch stopped. Off: exactly the automations the switch paused are
// active again, from now; those a person or an agent paused, auto-paused
// and broken ones stay as they are.
//
// While on, the ticker claims none of the site's releases: each waits, runs
// if the site resumes within its late limit of an hour, and otherwise
// becomes missed (§8.6; see RunDue). A release already running when the
// switch is turned on finishes: its outcome is seconds away (§8.5). The
// ticker starts no automation run and opens no window of a paused site
// (store.DueAutomations, ClaimOccurrence; begin_run refuses site_paused).
func (e *Settings) SetKillSwitch(ctx context.Context, u engine.User, siteID string, on bool, reason string, expectedRev int64) (releases.ScheduleSettings, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return releases.ScheduleSettings{}, err
	}
	reason, err := checkReason(reason)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	// A run begun, a step taken or an automation changed between the read
	// and the write makes the write conflict: read again, a few times.
	for attempt := 1; ; attempt++ {
		next, err := e.setKillSwitch(ctx, u, siteID, on, reason, expectedRev)
		if errors.Is(err, engine.ErrConflict) && attempt < killSwitchAttempts {
			continue // a settings row that moved is stale at the next read
		}
		if errors.Is(err, engine.ErrConflict) {
			return releases.ScheduleSettings{}, engine.Refuse(engine.CodeStale, "")
		}
		if err != nil {
			return releases.ScheduleSettings{}, err
		}
		if !on {
			e.e.Poke() // the releases that waited and the automations resumed run now
		}
		return next, nil
	}
}

// killSwitchAttempts bounds SetKillSwitch's reads again after a conflict.
const killSwitchAttempts = 8

// KillSwitchWrite is the kill switch's one transaction: the settings row
// at ExpectedRev, the site's automations as the switch moves them (each
// guarded on its rev and open run as read) with their open runs killed,
// and the audit rows: the settings' first, then one per automation paused
// or resumed and one per run killed.
type KillSwitchWrite struct {
	Settings    releases.ScheduleSettings
	ExpectedRev int64
	Moves       []automations.KillSwitchMove
	Audit       []engine.AuditEntry
	Now         time.Time
}

func (e *Settings) setKillSwitch(ctx context.Context, u engine.User, siteID string, on bool, reason string, expectedRev int64) (releases.ScheduleSettings, error) {
	cur, err := e.currentSettings(ctx, siteID, expectedRev)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	switch {
	case on && cur.Paused:
		return releases.ScheduleSettings{}, engine.Refuse(CodeAlreadyPaused, "")
	case !on && !cur.Paused:
		return releases.ScheduleSettings{}, engine.Refuse(CodeNotPaused, "")
	}
	as, err := e.store.Automations(ctx, siteID)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	now := e.e.Now().UTC().Truncate(time.Millisecond)
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
	w := KillSwitchWrite{Settings: next, ExpectedRev: cur.Rev, Moves: automations.KillSwitchMoves(as, on, now), Now: now}
	w.Audit = append(w.Audit, engine.AuditEntry{Action: action, Actor: by, SiteID: siteID, At: now, Details: details})
	moved, killed := 0, 0
	for _, m := range w.Moves {
		// The rows name the automation in their details only: rows that
		// carry automation_id are its own writes, which the daily write
		// cap counts (§11.5).
		if m.KillRun {
			killed++
			w.Audit = append(w.Audit, engine.AuditEntry{Action: "automation.run_killed", Actor: by, SiteID: siteID,
				RunID: m.Was.OpenRunID, At: now, Details: map[string]any{"automation": m.Was.ID, "state": string(automation.RunKilled),
					"error": automations.RunKilledByKillSwitch}})
		}
		if m.Now.State == m.Was.State {
			continue
		}
		moved++
		act := "automation.pause"
		if !on {
			act = "automation.resume"
		}
		w.Audit = append(w.Audit, engine.AuditEntry{Action: act, Actor: by, SiteID: siteID, At: now,
			Details: map[string]any{"automation": m.Was.ID, "name": m.Was.Name, "from": m.Was.State, "to": m.Now.State,
				"pausedReason": string(automation.ReasonKillSwitch)}})
	}
	if on {
		details["automationsPaused"], details["runsKilled"] = moved, killed
	} else {
		details["automationsResumed"] = moved
	}
	if err := e.store.SetKillSwitch(ctx, w); err != nil {
		return releases.ScheduleSettings{}, err
	}
	return next, nil
}

// SetDailyWriteCap sets the site's cap on automation writes per UTC day
// (§11.5), for Administrators and above, as the person last saw the
// settings at expectedRev.
func (e *Settings) SetDailyWriteCap(ctx context.Context, u engine.User, siteID string, dailyCap int, expectedRev int64) (releases.ScheduleSettings, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return releases.ScheduleSettings{}, err
	}
	if err := automation.ValidateDailyWriteCap(dailyCap); err != nil || dailyCap > releases.MaxDailyWriteCap {
		return releases.ScheduleSettings{}, engine.Refuse(CodeDailyWriteCapInvalid, "dailyWriteCap")
	}
	cur, err := e.currentSettings(ctx, siteID, expectedRev)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	if cur.DailyWriteCap == dailyCap {
		return cur, nil // nothing to change, nothing to audit
	}
	now := e.e.Now()
	by := u.Actor()
	next := cur
	next.DailyWriteCap, next.Rev, next.UpdatedAt, next.UpdatedBy = dailyCap, cur.Rev+1, now, &by
	audit := engine.AuditEntry{Action: "site.daily_write_cap", Actor: by, SiteID: siteID, At: now,
		Details: map[string]any{"from": cur.DailyWriteCap, "to": dailyCap}}
	if err := e.saveSettings(ctx, next, cur.Rev, audit); err != nil {
		return releases.ScheduleSettings{}, err
	}
	return next, nil
}

// ParseDailyWriteCap reads a daily write cap as a form sends it: a whole
// number from 0 to releases.MaxDailyWriteCap.
func ParseDailyWriteCap(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > releases.MaxDailyWriteCap {
		return 0, engine.Refuse(CodeDailyWriteCapInvalid, "dailyWriteCap")
	}
	return n, nil
}

// DailyWriteUse counts the site's automation writes in the current UTC day
// (§11.5): audit rows that carry an automation, since midnight UTC. It is 0
// until automations exist.
func (e *Settings) DailyWriteUse(ctx context.Context, siteID string) (int, error) {
	from, to := automation.UTCDay(e.e.Now())
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
func (e *Settings) SetSiteTimeZone(ctx context.Context, u engine.User, siteID, zone string, expectedRev int64) (engine.Site, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return engine.Site{}, err
	}
	zone = strings.TrimSpace(zone)
	if _, err := localtime.LoadZone(zone); err != nil {
		return engine.Site{}, engine.Refuse(releases.CodeUnknownZone, "timeZone")
	}
	return e.changeSite(ctx, u, siteID, expectedRev, "site.time_zone",
		func(s *engine.Site) *string { return &s.TimeZone }, zone, e.store.SetSiteTimeZone)
}

// SetSiteLang changes the site's language — its public site's words and
// dates, and the language new pages and articles are written in unless
// their editor names one — for those with site settings, as the person
// last saw the site at expectedRev: a compare-and-swap on the site row. A
// language Studio does not speak is refused and changes nothing. Pages
// already written keep their own language.
func (e *Settings) SetSiteLang(ctx context.Context, u engine.User, siteID, lang string, expectedRev int64) (engine.Site, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return engine.Site{}, err
	}
	lang = strings.TrimSpace(lang)
	if !engine.ValidLanguage(lang) {
		return engine.Site{}, engine.Refuse("bad_language", "lang")
	}
	return e.changeSite(ctx, u, siteID, expectedRev, "site.lang",
		func(s *engine.Site) *string { return &s.Lang }, lang, e.store.SetSiteLang)
}

// Refusals of SetAddress.
const (
	// CodeDefaultOwnerOnly: only an Owner moves the default site, and only
	// from a site they own too.
	CodeDefaultOwnerOnly = "default_owner_only"
)

// AddressInput is a site's public address: its public URL ("" for the
// --public-url of serve) and whether it answers the hosts no site's URL
// names (public.SiteForHost).
type AddressInput struct {
	PublicURL   string
	DefaultHost bool
}

// SetAddress changes where the site's public site is read (issue 15), as
// the person last saw the site at expectedRev. Another site's host is
// refused, as the public site is chosen by host. Making a site the
// default takes it from the site that is the default now, so only an
// Owner of both does it; giving it up is an Owner's too.
func (e *Settings) SetAddress(ctx context.Context, u engine.User, siteID string, in AddressInput, expectedRev int64) (engine.Site, error) {
	if err := engine.Require(u, siteID, policy.SiteSettings); err != nil {
		return engine.Site{}, err
	}
	var url string
	if strings.TrimSpace(in.PublicURL) != "" {
		var err error
		if url, err = public.ParsePublicURL(in.PublicURL); err != nil {
			return engine.Site{}, engine.Refuse(setup.CodeBadPublicURL, "publicUrl")
		}
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return engine.Site{}, err
	}
	if site.Rev != expectedRev {
		return engine.Site{}, engine.Refuse(engine.CodeStale, "")
	}
	sites, err := e.store.Sites(ctx)
	if err != nil {
		return engine.Site{}, err
	}
	for _, other := range sites {
		if other.ID != siteID && public.SameHost(other.PublicURL, url) {
			return engine.Site{}, engine.Refuse(setup.CodePublicURLTaken, "publicUrl")
		}
	}
	if in.DefaultHost != site.DefaultHost {
		if err := e.mayMoveDefault(ctx, u, sites); err != nil {
			return engine.Site{}, err
		}
	}
	if url == site.PublicURL && in.DefaultHost == site.DefaultHost {
		return site, nil
	}
	now := e.e.Now()
	next := site
	next.PublicURL, next.DefaultHost, next.Rev = url, in.DefaultHost, site.Rev+1
	next.Hash = engine.SiteHash(next)
	audit := engine.AuditEntry{Action: "site.address", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"from": site.PublicURL, "to": url, "defaultHost": in.DefaultHost}}
	if err := e.store.SetSiteAddress(ctx, site, url, in.DefaultHost, next.Hash, now, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return engine.Site{}, engine.Refuse(engine.CodeStale, "")
		}
		return engine.Site{}, err
	}
	return next, nil
}

// mayMoveDefault refuses u unless they are an Owner of the site they act
// on and of the site that answers unknown hosts now (if another does).
func (e *Settings) mayMoveDefault(ctx context.Context, u engine.User, sites []engine.Site) error {
	refused := engine.Refuse(CodeDefaultOwnerOnly, "defaultHost")
	if u.Role != policy.Owner {
		return refused
	}
	for _, s := range sites {
		if s.DefaultHost && s.ID != u.SiteID {
			if m, err := e.store.MemberByID(ctx, s.ID, u.ID); err != nil || m.Role != policy.Owner {
				return refused
			}
		}
	}
	return nil
}

// changeSite sets one field of the site row to value as the person last
// saw the site at expectedRev: a compare-and-swap on the row (a stale rev
// is refused), audited with the old and the new value, and nothing written
// when the field already has it.
func (e *Settings) changeSite(ctx context.Context, u engine.User, siteID string, expectedRev int64, action string,
	field func(*engine.Site) *string, value string,
	write func(ctx context.Context, site engine.Site, value, newHash string, now time.Time, a engine.AuditEntry) error) (engine.Site, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return engine.Site{}, err
	}
	if site.Rev != expectedRev {
		return engine.Site{}, engine.Refuse(engine.CodeStale, "")
	}
	from := *field(&site)
	if from == value {
		return site, nil
	}
	now := e.e.Now()
	next := site
	*field(&next) = value
	next.Rev = site.Rev + 1
	next.Hash = engine.SiteHash(next)
	audit := engine.AuditEntry{Action: action, Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"from": from, "to": value}}
	if err := write(ctx, site, value, next.Hash, now, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return engine.Site{}, engine.Refuse(engine.CodeStale, "")
		}
		return engine.Site{}, err
	}
	return next, nil
}

// currentSettings reads the settings the person means to change and refuses
// when they changed since the person saw them at expectedRev.
func (e *Settings) currentSettings(ctx context.Context, siteID string, expectedRev int64) (releases.ScheduleSettings, error) {
	if _, err := e.store.Site(ctx, siteID); err != nil {
		return releases.ScheduleSettings{}, err
	}
	cur, err := e.store.ScheduleSettings(ctx, siteID)
	if err != nil {
		return releases.ScheduleSettings{}, err
	}
	if cur.Rev != expectedRev {
		return releases.ScheduleSettings{}, engine.Refuse(engine.CodeStale, "")
	}
	return cur, nil
}

func (e *Settings) saveSettings(ctx context.Context, next releases.ScheduleSettings, expectedRev int64, audit engine.AuditEntry) error {
	err := e.store.SaveScheduleSettings(ctx, next, expectedRev, audit)
	if errors.Is(err, engine.ErrConflict) {
		return engine.Refuse(engine.CodeStale, "")
	}
	return err
}

// checkReason trims a kill-switch reason and refuses an empty one, one
// longer than 500 characters, or one with a line break or another control
// character: it is shown on one line in the banner and the audit.
func checkReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", engine.Refuse(releases.CodeReason, "reason") // the code of a denial without a reason
	}
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > releases.MaxReasonLength ||
		strings.IndexFunc(reason, breaksLine) >= 0 {
		return "", engine.Refuse(CodeReasonInvalid, "reason")
	}
	return reason, nil
}

func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' // line and paragraph separators
}
