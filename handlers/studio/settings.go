package studio

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/engine/settings"
	"studio/locales"
	"studio/web/templates"
)

// Settings shows Site settings. ?confirm=pause or ?confirm=resume is the
// kill switch's confirm step for browsers without JavaScript: the
// confirmation dialog comes open in the page.
func (h *Handler) Settings(w http.ResponseWriter, r *http.Request) {
	v := templates.SettingsPage{}
	if c := r.URL.Query().Get("confirm"); c == "pause" || c == "resume" {
		v.Confirm = c
	}
	h.renderSettings(w, r, http.StatusOK, v)
}

// renderSettings fills v with the site's settings as they are now; what v
// already holds (typed values, refusals, the open confirm step) stays.
func (h *Handler) renderSettings(w http.ResponseWriter, r *http.Request, status int, v templates.SettingsPage) {
	ctx := r.Context()
	st := stateOf(ctx)
	set, err := h.set.ScheduleSettingsAnswer(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	health, err := h.sched.Status(ctx, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now := h.eng.Now()
	v.SiteRev = st.site.Rev
	if v.ErrorFor != "timeZone" { // after a refusal the field keeps what was typed
		v.TimeZone = st.site.TimeZone
	}
	// After a refusal the field keeps what was chosen; a value the list
	// does not hold (a tampered form) shows the site's language instead, as
	// the browser would otherwise show the first one as if it were saved.
	v.Langs = locales.Languages
	if v.ErrorFor != "lang" || !slices.Contains(v.Langs, v.Lang) {
		v.Lang = st.site.Lang
	}
	if v.ErrorFor != "address" {
		v.PublicURL, v.DefaultHost = st.site.PublicURL, st.site.DefaultHost
	}
	v.ZoneLabel = zoneLabel(ctx, st.site.TimeZone, now)
	v.Zones = zoneOptions(ctx, now)
	if loc := viewerZone(r); loc != nil && loc.String() != st.site.TimeZone {
		v.BrowserZone = &templates.ZoneOption{Name: loc.String(), Label: zoneLabel(ctx, loc.String(), now)}
	}

	v.Health = templates.HealthView{State: health.State()}
	if hb := health.Scheduler.Beat; hb != nil {
		last, next := timePair(r, hb.At, st.site.TimeZone), timePair(r, hb.NextWakeAt, st.site.TimeZone)
		v.Health.LastTick, v.Health.NextWake, v.Health.Trigger = &last, &next, hb.Trigger
	}
	for _, s := range health.DueNotClaimed {
		v.Health.Stuck = append(v.Health.Stuck, templates.StuckRow{ID: s.ID, Title: stuckTitle(s), Key: "settings.stuck_due",
			At: timePair(r, *s.ExecuteAt, st.site.TimeZone)})
	}
	for _, s := range health.PastLease {
		v.Health.Stuck = append(v.Health.Stuck, templates.StuckRow{ID: s.ID, Title: stuckTitle(s), Key: "settings.stuck_lease",
			At: timePair(r, *s.LeaseUntil, st.site.TimeZone)})
	}

	v.Switch.Rev = set.Rev
	v.Switch.Paused = pausedView(r, st, set.ScheduleSettings)
	fx, err := h.set.PauseEffects(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Switch.Effects = pauseEffectsView(r, st, fx)
	v.DailyCap.Rev, v.DailyCap.Cap, v.DailyCap.Used = set.Rev, set.DailyWriteCap, set.DailyWritesToday
	if v.ErrorFor != "dailyWriteCap" {
		v.DailyCap.Value = strconv.Itoa(set.DailyWriteCap)
	}
	h.render(w, r, status, templates.Settings(h.page(r, "settings.title", "settings"), v))
}

// pausedView describes the site's pause, or is nil while schedules run.
func pausedView(r *http.Request, st *state, set releases.ScheduleSettings) *templates.PausedView {
	if !set.Paused {
		return nil
	}
	v := &templates.PausedView{Reason: set.PausedReason, CanResume: engine.AbilitiesOfPerson(*st.user).Settings}
	if set.PausedBy != nil {
		v.By = set.PausedBy.Name
	}
	if set.PausedAt != nil {
		v.At = timePair(r, *set.PausedAt, st.site.TimeZone)
	}
	return v
}

// pausedBanner is the kill switch's banner for a page, nil while the site's
// schedules run: who paused, why, what it holds and what still happens.
func (h *Handler) pausedBanner(r *http.Request) (*templates.PausedView, error) {
	st := stateOf(r.Context())
	set, err := h.releases.ScheduleSettings(r.Context(), *st.user, st.site.ID)
	if err != nil || !set.Paused {
		return nil, err
	}
	v := pausedView(r, st, set)
	fx, err := h.set.PauseEffects(r.Context(), *st.user, st.site.ID)
	if err != nil {
		return nil, err
	}
	v.Effects = pauseEffectsView(r, st, fx)
	return v, nil
}

// pauseEffectsView shows settings.PauseEffects in the site's zone: each gate
// links to its node's Schedule card, each held release to its page.
func pauseEffectsView(r *http.Request, st *state, fx settings.PauseEffects) templates.PauseEffectsView {
	v := templates.PauseEffectsView{MoreGates: fx.MoreGates, HeldCount: fx.HeldCount}
	for _, g := range fx.Gates {
		v.Gates = append(v.Gates, templates.GateAheadRow{Title: g.Title, Edge: g.Edge, When: timePair(r, g.At, st.site.TimeZone),
			EditURL: "/studio/content/" + url.PathEscape(g.NodeID) + "#gates-title"})
	}
	for _, h := range fx.Held {
		v.Held = append(v.Held, templates.HeldRow{Title: h.Title, When: timePair(r, h.At, st.site.TimeZone),
			URL: "/studio/releases/" + url.PathEscape(h.ID)})
	}
	return v
}

// zoneLocations are the zones of the time zone list, loaded once.
var zoneLocations = sync.OnceValue(func() map[string]*time.Location {
	m := map[string]*time.Location{}
	for _, name := range localtime.ZoneNames() {
		if loc, err := localtime.LoadZone(name); err == nil {
			m[name] = loc
		}
	}
	return m
})

// zoneOptions lists the zones a site may use, each as its city in the
// person's language and its offset at now: "İstanbul (UTC+3)".
func zoneOptions(ctx context.Context, now time.Time) []templates.ZoneOption {
	locs := zoneLocations()
	p := locales.From(ctx)
	names := localtime.ZoneNames()
	out := make([]templates.ZoneOption, 0, len(names))
	for _, name := range names {
		loc, ok := locs[name]
		if !ok {
			continue
		}
		out = append(out, templates.ZoneOption{Name: name, Label: locales.ZoneLabel(p.ZoneCity(name), localtime.OffsetLabel(now, loc))})
	}
	return out
}

// SaveTimeZone changes the site's time zone.
func (h *Handler) SaveTimeZone(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	zone := r.PostFormValue("timeZone")
	_, err := h.set.SetSiteTimeZone(ctx, *st.user, st.site.ID, zone, formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderSettings(w, r, status, templates.SettingsPage{TimeZone: zone, Errors: fields, Error: msg, ErrorFor: "timeZone"})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "settings.time_zone_saved")
	http.Redirect(w, r, to(r, "/studio/settings"), http.StatusSeeOther)
}

// SaveSiteLang changes the language of the site: its public site's, and
// the one new pages are written in.
func (h *Handler) SaveSiteLang(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	lang := r.PostFormValue("lang")
	_, err := h.set.SetSiteLang(ctx, *st.user, st.site.ID, lang, formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderSettings(w, r, status, templates.SettingsPage{Lang: lang, Errors: fields, Error: msg, ErrorFor: "lang"})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "settings.site_lang_saved")
	http.Redirect(w, r, to(r, "/studio/settings"), http.StatusSeeOther)
}

// SaveAddress sets the site's public address and whether it answers the
// hosts no site names (settings.SetAddress).
func (h *Handler) SaveAddress(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	in := settings.AddressInput{PublicURL: r.PostFormValue("publicUrl"), DefaultHost: r.PostFormValue("defaultHost") == "on"}
	_, err := h.set.SetAddress(ctx, *st.user, st.site.ID, in, formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderSettings(w, r, status, templates.SettingsPage{PublicURL: in.PublicURL, DefaultHost: in.DefaultHost,
			Errors: fields, Error: msg, ErrorFor: "address"})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "settings.address_saved")
	http.Redirect(w, r, to(r, "/studio/settings"), http.StatusSeeOther)
}

// PauseSchedules turns the site's kill switch on.
func (h *Handler) PauseSchedules(w http.ResponseWriter, r *http.Request) {
	h.killSwitch(w, r, true)
}

// ResumeSchedules turns the site's kill switch off.
func (h *Handler) ResumeSchedules(w http.ResponseWriter, r *http.Request) {
	h.killSwitch(w, r, false)
}

func (h *Handler) killSwitch(w http.ResponseWriter, r *http.Request, on bool) {
	ctx := r.Context()
	st := stateOf(ctx)
	step, done := "resume", "settings.resumed"
	if on {
		step, done = "pause", "settings.paused"
	}
	reason := r.PostFormValue("reason")
	v := templates.SettingsPage{Confirm: step, ErrorFor: step}
	v.Switch.Reason = reason
	// The ticked box is the confirmation of the page without JavaScript
	// (the dialog asks for it too): a form without it changes nothing.
	if r.PostFormValue("confirm") != "yes" {
		v.Errors = templates.FieldErrors{"confirm": locales.T(ctx, "error.confirm_required")}
		h.renderSettings(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	_, err := h.set.SetKillSwitch(ctx, *st.user, st.site.ID, on, reason, formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		v.Errors, v.Error = fields, msg
		if fields == nil {
			// Not the person's input: the settings changed meanwhile. The
			// page shows them as they are now, with the message above.
			v.Confirm = ""
		}
		h.renderSettings(w, r, status, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, done)
	http.Redirect(w, r, to(r, "/studio/settings"), http.StatusSeeOther)
}

// SaveDailyWriteCap sets the daily automation write cap.
func (h *Handler) SaveDailyWriteCap(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	value := r.PostFormValue("dailyWriteCap")
	dailyCap, err := settings.ParseDailyWriteCap(value)
	if err == nil {
		_, err = h.set.SetDailyWriteCap(ctx, *st.user, st.site.ID, dailyCap, formRev(r))
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		v := templates.SettingsPage{Errors: fields, Error: msg, ErrorFor: "dailyWriteCap"}
		v.DailyCap.Value = value
		h.renderSettings(w, r, status, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "settings.daily_cap_saved")
	http.Redirect(w, r, to(r, "/studio/settings"), http.StatusSeeOther)
}

// stuckTitle names a release the scheduler has not taken, as releaseTitle.
func stuckTitle(s scheduler.StuckRelease) string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}
