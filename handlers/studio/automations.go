package studio

import (
	"context"
	"github.com/a-h/templ"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/engine/recurrence"
	"studio/locales"
	"studio/web/templates"
)

// automationsURL is the Automations tab.
const automationsURL = "/studio/schedules/automations"

// builtinNames are the five built-in jobs, in §11.1's order.
func builtinNames() []string {
	out := make([]string, 0, len(automation.Builtins))
	for _, b := range automation.Builtins {
		out = append(out, string(b))
	}
	return out
}

// jobAgentTask is the editor's job choice for an agent task (§4.3
// job.kind agent-task), beside the built-in jobs.
const jobAgentTask = automations.JobAgentTask

// jobChoices are a new automation's jobs: the built-in ones, then an agent
// task.
func jobChoices() []string { return append(builtinNames(), jobAgentTask) }

// Automations is the Automations tab (§15.1, §11): the site's automations
// or, with none, the five built-in jobs to set up.
func (h *Handler) Automations(w http.ResponseWriter, r *http.Request) {
	h.renderAutomations(w, r, http.StatusOK, "")
}

func (h *Handler) renderAutomations(w http.ResponseWriter, r *http.Request, status int, msg string) {
	ctx := r.Context()
	st := stateOf(ctx)
	list, err := h.aut.List(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	paused, err := h.sitePaused(ctx, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.AutomationsPage{CanCreate: automations.AbilitiesOf(*st.user).Manage, Jobs: builtinNames()}
	for _, a := range list {
		v.Rows = append(v.Rows, automationRow(ctx, a, paused))
	}
	p := h.page(r, "automations.title", "schedules")
	if msg != "" {
		p.Flash = ""
	}
	h.render(w, r, status, templates.AutomationsList(p, v, msg))
}

// automationOf is the automation the URL names, and whether the site's
// kill switch is on (what may be run now depends on it).
func (h *Handler) automationOf(r *http.Request) (automations.Automation, bool, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	a, err := h.aut.Get(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err != nil {
		return a, false, err
	}
	paused, err := h.sitePaused(ctx, st.site.ID)
	return a, paused, err
}

// sitePaused is whether the site's kill switch is on: Run now depends on it.
func (h *Handler) sitePaused(ctx context.Context, siteID string) (bool, error) {
	s, err := h.releases.ScheduleSettings(ctx, *stateOf(ctx).user, siteID)
	return s.Paused, err
}

// automationRow is a as the list shows it: its times on the site's clock,
// its sentence in the page's language and what the person may do with it.
func automationRow(ctx context.Context, a automations.Automation, sitePaused bool) templates.AutomationRow {
	st := stateOf(ctx)
	loc := siteLoc(st.site)
	row := templates.AutomationRow{ID: a.ID, Name: a.Name, State: a.State, Rev: a.Rev, CSRF: st.csrf}
	if b, ok := a.Builtin(); ok {
		row.Job = string(b)
	} else if a.IsTask() {
		row.Job = jobAgentTask
	}
	row.PausedReason = shownReason(a)
	if rc, err := a.Recurrence(); err == nil {
		row.When = locales.From(ctx).Recurrence(recurrence.Describe(rc))
	}
	if a.NextRunAt != nil {
		next := a.NextRunAt.In(loc)
		row.Next = &next
	}
	if lr := a.LastRun; lr != nil {
		row.LastRun = &templates.RunCell{ID: lr.ID, At: lr.OccurrenceAt.In(loc), State: lr.State, Outcome: lr.Outcome}
	}
	may := automations.AbilitiesFor(*st.user, a, sitePaused)
	row.May = templates.AutomationActions{Edit: may.Edit, Delete: may.Delete, Duplicate: may.Duplicate, Pause: may.Pause,
		Resume: may.Resume, RunNow: may.RunNow, TakeOver: may.TakeOver}
	return row
}

// shownReason is the reason an automation's page and row say it stopped:
// every reason but a person's own pause (their switch says Off already),
// so that the site's kill switch, an agent, failures or a lost key are
// named.
func shownReason(a automations.Automation) string {
	if a.State == automations.AutomationActive || a.State == automations.AutomationEnded ||
		a.PausedReason == string(automation.ReasonPerson) {
		return ""
	}
	return a.PausedReason
}

// PauseAutomation is the On switch turned off (Pause with the rev seen).
func (h *Handler) PauseAutomation(w http.ResponseWriter, r *http.Request) {
	h.switchAutomation(w, r, h.aut.Pause, "automations.paused")
}

// ResumeAutomation is the On switch turned on (Resume with the rev seen).
func (h *Handler) ResumeAutomation(w http.ResponseWriter, r *http.Request) {
	h.switchAutomation(w, r, h.aut.Resume, "automations.resumed")
}

// TakeOverAutomation makes an agent task the Administrator's, with a new
// key whose secret the answer shows once, on the key's page (the secret
// is stored nowhere, so it cannot wait for a redirect).
func (h *Handler) TakeOverAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	a, err := h.aut.TakeOver(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"), formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		for _, m := range fields {
			msg = m
		}
		h.renderAutomations(w, r, status, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.showSecret(w, r, a.NewKey.ID, a.NewKey.Secret)
}

type automationMove func(ctx context.Context, u engine.User, siteID, id string, rev int64) (automations.Automation, error)

// switchAutomation pauses or resumes. htmx gets the row back (with the
// refusal beside the switch when there is one); a plain form the list.
func (h *Handler) switchAutomation(w http.ResponseWriter, r *http.Request, move automationMove, done string) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	a, err := move(ctx, *st.user, st.site.ID, id, formRev(r))
	msg, fields, status, refused := refusal(ctx, err)
	if refused && msg == "" {
		for _, m := range fields {
			msg = m
		}
	}
	if err != nil && !refused {
		h.fail(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") != "true" {
		if refused {
			h.renderAutomations(w, r, status, msg)
			return
		}
		h.flash(r, done)
		http.Redirect(w, r, to(r, automationsURL), http.StatusSeeOther)
		return
	}
	if refused { // the row as it is now, with the refusal beside the switch
		if a, err = h.aut.Get(ctx, *st.user, st.site.ID, id); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if a.LastRun == nil && !refused {
		// Pause and Resume answer the automation without its newest run.
		if fresh, err := h.aut.Get(ctx, *st.user, st.site.ID, id); err == nil {
			a = fresh
		}
	}
	paused, err := h.sitePaused(ctx, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	row := automationRow(ctx, a, paused)
	row.Error = msg
	h.render(w, r, http.StatusOK, templates.AutomationRowView(row))
}

// DeleteAutomationForm is Delete…'s confirm step without JavaScript.
func (h *Handler) DeleteAutomationForm(w http.ResponseWriter, r *http.Request) {
	h.renderDelete(w, r, http.StatusOK, "")
}

func (h *Handler) renderDelete(w http.ResponseWriter, r *http.Request, status int, msg string) {
	ctx := r.Context()
	a, paused, err := h.automationOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, status, templates.AutomationDeletePage(h.page(r, "automations.delete_page", "schedules"),
		templates.AutomationDelete{Row: automationRow(ctx, a, paused), Error: msg}))
}

// DeleteAutomation deletes an automation at the rev the person saw; its
// runs stay in History.
func (h *Handler) DeleteAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	err := h.aut.Delete(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"), formRev(r))
	if msg, fields, status, ok := refusal(ctx, err); ok {
		for _, m := range fields {
			msg = m
		}
		h.renderDelete(w, r, status, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "automations.deleted")
	http.Redirect(w, r, to(r, automationsURL), http.StatusSeeOther)
}

// presetInput is a new automation of job with a sensible schedule (the
// empty state's "Set up"), starting on the site's clock after now: broken
// links every Monday at 07:10, stale content on the 1st of each month,
// the feed check every day, the digest on Monday morning, the cleanup on
// Sunday night. None starts at :00 (§9.5).
func presetInput(ctx context.Context, job string, now time.Time, loc *time.Location) automations.Input {
	today := now.In(loc)
	nextWeekday := func(wd time.Weekday) time.Time {
		d := (int(wd) - int(today.Weekday()) + 7) % 7
		if d == 0 {
			d = 7
		}
		return today.AddDate(0, 0, d)
	}
	in := automations.Input{Builtin: automation.Builtin(job), Preset: "weekly"}
	day, clock := nextWeekday(time.Monday), "07:10"
	switch automation.Builtin(job) {
	case automation.BuiltinStaleContent:
		in.Preset = "monthly"
		day, clock = time.Date(today.Year(), today.Month()+1, 1, 12, 0, 0, 0, loc), "09:20"
	case automation.BuiltinFeedCheck:
		in.Preset = "daily"
		day, clock = today.AddDate(0, 0, 1), "06:40"
	case automation.BuiltinWeeklyDigest:
		clock = "08:30"
	case automation.BuiltinCleanup:
		day, clock = nextWeekday(time.Sunday), "03:25"
	case automation.BuiltinBrokenLinks:
	default:
		in.Builtin = ""
	}
	in.Start = day.Format("2006-01-02") + "T" + clock
	if in.Builtin != "" {
		in.Name = locales.T(ctx, "automations.job."+job)
	}
	return in
}

// NewAutomation is the editor of a new automation: ?job= fills in a job's
// preset, ?from=aut_… a copy of an automation (Duplicate).
func (h *Handler) NewAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	loc := siteLoc(st.site)
	in := presetInput(ctx, r.URL.Query().Get("job"), h.eng.Now(), loc)
	if from := r.URL.Query().Get("from"); from != "" {
		a, err := h.aut.Get(ctx, *st.user, st.site.ID, from)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		in = automations.InputOf(a)
		in.Name = locales.T(ctx, "automations.copy_name", "Name", a.Name)
	}
	f := formOfInput(in, loc)
	if r.URL.Query().Get("job") == jobAgentTask && f.Job == "" {
		f.Job = jobAgentTask
	}
	f.Preview = h.automationPreview(ctx, f.Rec, "")
	h.renderAutomationEditor(w, r, http.StatusOK, f)
}

// EditAutomation is the editor of a saved automation; someone who may not
// change it sees it read-only.
func (h *Handler) EditAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	a, paused, err := h.automationOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f := formOfInput(automations.InputOf(a), zoneOf(a.TimeZone, st.site))
	f.ID, f.Rev, f.Zone = a.ID, a.Rev, a.TimeZone
	f.ReadOnly = !automations.AbilitiesFor(*st.user, a, paused).Edit
	f.State, f.PausedReason = a.State, shownReason(a)
	f.Preview = h.automationPreview(ctx, f.Rec, a.TimeZone)
	h.renderAutomationEditor(w, r, http.StatusOK, f)
}

// zoneOf loads an automation's zone; the site's when it is not one.
func zoneOf(zone string, site engine.Site) *time.Location {
	if loc, err := localtime.LoadZone(zone); err == nil && zone != "" {
		return loc
	}
	return siteLoc(site)
}

// formOfInput fills the editor in from an automation's Input.
func formOfInput(in automations.Input, loc *time.Location) templates.AutomationForm {
	f := templates.AutomationForm{Name: in.Name, Job: string(in.Builtin), Jobs: jobChoices(),
		Exclude: strings.Join(in.Exclude, "\n"), Rec: recurrenceFormFor(in.Preset, in.Rule, in.Start, loc)}
	if in.StaleAfterDays != 0 {
		f.StaleAfterDays = strconv.Itoa(in.StaleAfterDays)
	}
	if t := in.Task; t != nil {
		f.Job, f.Instructions, f.ModeCap, f.Scopes = jobAgentTask, t.Instructions, string(t.ModeCap), scopeNames(t.Scopes)
		f.ReadsUntrusted = t.ReadsUntrustedText != nil && *t.ReadsUntrustedText
		if t.WindowMinutes != 0 {
			f.WindowMinutes = strconv.Itoa(t.WindowMinutes)
		}
	}
	return f
}

func scopeNames(scopes []policy.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// taskInput is an agent task's fields of f as the engine takes them; a
// window that is not a number is sent as -1, for the engine to refuse.
func taskInput(f templates.AutomationForm) *automations.TaskInput {
	untrusted := f.ReadsUntrusted
	in := &automations.TaskInput{Instructions: f.Instructions, ModeCap: policy.Mode(f.ModeCap), ReadsUntrustedText: &untrusted}
	if f.WindowMinutes != "" {
		n, err := strconv.Atoi(f.WindowMinutes)
		if err != nil {
			n = -1
		}
		in.WindowMinutes = n
	}
	for _, s := range f.Scopes {
		in.Scopes = append(in.Scopes, policy.Scope(s))
	}
	if in.Scopes == nil {
		in.Scopes = []policy.Scope{} // none ticked: refused, never the defaults unseen
	}
	return in
}

// formOfRequest is the editor as the person filled it in.
func formOfRequest(r *http.Request) templates.AutomationForm {
	v := r.Form
	return templates.AutomationForm{Name: v.Get("name"), Job: strings.TrimSpace(v.Get("job")), Jobs: jobChoices(),
		StaleAfterDays: strings.TrimSpace(v.Get("staleAfterDays")), Exclude: v.Get("exclude"), Zone: v.Get("zone"),
		Instructions: v.Get("instructions"), ModeCap: v.Get("modeCap"), Scopes: v["taskScope"],
		ReadsUntrusted: v.Get("readsUntrustedText") == "true", WindowMinutes: strings.TrimSpace(v.Get("windowMinutes")),
		Rec: recurrenceFormOf(v)}
}

// jobFields are the job's own fields of f as the engine takes them: only
// the job's own (another job's would be refused as not its field); a
// number that is not one is sent as -1, for the engine to refuse.
func jobFields(f templates.AutomationForm) (staleAfterDays int, exclude []string) {
	switch automation.Builtin(f.Job) {
	case automation.BuiltinStaleContent:
		if f.StaleAfterDays != "" {
			n, err := strconv.Atoi(f.StaleAfterDays)
			if err != nil {
				n = -1
			}
			staleAfterDays = n
		}
	case automation.BuiltinBrokenLinks:
		exclude = []string{}
		for _, line := range strings.Split(f.Exclude, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				exclude = append(exclude, line)
			}
		}
	}
	return staleAfterDays, exclude
}

// automationPreview is the next five runs of the schedule rec says (PreviewRule),
// or the sentence of its refusal.
func (h *Handler) automationPreview(ctx context.Context, rec templates.RecurrenceForm, zone string) templates.AutomationPreview {
	st := stateOf(ctx)
	loc := zoneOf(zone, st.site)
	preset, rule := RuleOf(rec, loc)
	p, err := h.aut.PreviewRule(ctx, *st.user, st.site.ID, preset, rule, rec.Start(), zone)
	if err != nil {
		if e, ok := engine.AsError(err); ok && e.Code != engine.CodeForbidden {
			return templates.AutomationPreview{Error: automationRefusalSentence(ctx, e)}
		}
		h.log.Error("studio: automation preview", "err", err)
		return templates.AutomationPreview{Error: locales.T(ctx, "error.internal")}
	}
	out := templates.AutomationPreview{Sentence: locales.From(ctx).Recurrence(p.Sentence)}
	for _, o := range p.Occurrences {
		run := templates.PreviewRun{At: o.At.In(loc), Adjusted: o.Adjusted != ""}
		if m, err := localtime.ParseWall(o.Meant); err == nil {
			run.Meant = m.Clock()
		}
		out.Runs = append(out.Runs, run)
	}
	return out
}

// automationRefusalSentence words a refusal of the editor's input: a rule
// the engine refused says why (recurrence's reason), others the general
// sentence.
func automationRefusalSentence(ctx context.Context, e *engine.Error) string {
	if reason, ok := e.Args["Reason"].(string); ok && e.Code == automations.CodeBadRule {
		if s, ok := locales.From(ctx).Lookup("recurrence.error." + reason); ok {
			return s
		}
	}
	msg, fields, _, _ := refusal(ctx, e)
	for _, m := range fields {
		msg = m
	}
	return msg
}

// AutomationPreviewFragment is the editor's live preview (htmx, as the
// fields change): the next five runs of the schedule in the query.
// While the start date is Studio's suggestion (date_auto) and the rule
// names its own days, the start moves to the first day it may run from
// now, and the field with it: a Monday-and-Thursday rule made on a Monday
// runs that Thursday.
func (h *Handler) AutomationPreviewFragment(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rec := recurrenceFormOf(q)
	moved := q.Get("date_auto") == "1" && namesItsDays(rec)
	if moved {
		st := stateOf(r.Context())
		rec.Date = firstStartDay(rec.Time, h.eng.Now().In(zoneOf(q.Get("zone"), st.site)))
	}
	w.Header().Set("Cache-Control", "no-store")
	preview := templates.AutomationPreviewView(h.automationPreview(r.Context(), rec, q.Get("zone")))
	if moved {
		preview = templ.Join(preview, templates.AutomationStartDate(rec.Date, true))
	}
	h.render(w, r, http.StatusOK, preview)
}

// namesItsDays reports whether a schedule says on which days it runs
// (hourly, daily, weekdays, or custom with days or a day of the month),
// rather than taking the start's day (once, weekly, monthly, custom weekly
// without days).
func namesItsDays(f RecurrenceForm) bool {
	switch f.Preset {
	case "hourly", "daily", "weekdays":
		return true
	case "custom":
		return f.Freq != "weekly" || len(f.Days) > 0
	}
	return false
}

// firstStartDay is the first day from now (in now's zone) a schedule at
// clock (HH:MM) may start: today while that time is still ahead, else
// tomorrow.
func firstStartDay(clock string, now time.Time) string {
	if clock > now.Format("15:04") {
		return now.Format("2006-01-02")
	}
	return now.AddDate(0, 0, 1).Format("2006-01-02")
}

// CreateAutomation creates the automation the editor describes; the
// Preview button brings the form back with the next runs instead.
func (h *Handler) CreateAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	f := formOfRequest(r)
	f.Zone = ""
	if r.PostFormValue("action") == "preview" {
		f.Preview = h.automationPreview(ctx, f.Rec, "")
		h.renderAutomationEditor(w, r, http.StatusOK, f)
		return
	}
	loc := siteLoc(st.site)
	preset, rule := RuleOf(f.Rec, loc)
	stale, exclude := jobFields(f)
	in := automations.Input{Name: f.Name, Builtin: automation.Builtin(f.Job),
		Preset: preset, Rule: rule, Start: f.Rec.Start(), StaleAfterDays: stale, Exclude: exclude}
	if f.Job == jobAgentTask {
		in.Builtin, in.Task = "", taskInput(f)
	}
	a, err := h.aut.Create(ctx, *st.user, st.site.ID, in)
	if h.refusedEditor(w, r, err, f) {
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if a.NewKey != nil { // an agent task's own key: its secret shows in this answer only
		h.showSecret(w, r, a.NewKey.ID, a.NewKey.Secret)
		return
	}
	h.flash(r, "automations.created")
	http.Redirect(w, r, to(r, automationsURL), http.StatusSeeOther)
}

// SaveAutomation saves the editor over the automation at the rev the
// person saw; one changed elsewhere meanwhile is refused, nothing changes.
func (h *Handler) SaveAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	f := formOfRequest(r)
	f.ID, f.Rev = chi.URLParam(r, "id"), formRev(r)
	if r.PostFormValue("action") == "preview" {
		f.Preview = h.automationPreview(ctx, f.Rec, f.Zone)
		h.renderAutomationEditor(w, r, http.StatusOK, f)
		return
	}
	preset, rule := RuleOf(f.Rec, zoneOf(f.Zone, st.site))
	start := f.Rec.Start()
	p := automations.Patch{Rev: f.Rev, Name: &f.Name, Preset: &preset, Start: &start}
	if preset == "custom" {
		p.Rule = &rule
	}
	stale, exclude := jobFields(f)
	switch automation.Builtin(f.Job) {
	case automation.BuiltinStaleContent:
		p.StaleAfterDays = &stale
	case automation.BuiltinBrokenLinks:
		p.Exclude = &exclude
	}
	_, err := h.aut.Update(ctx, *st.user, st.site.ID, f.ID, p)
	if h.refusedEditor(w, r, err, f) {
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "automations.saved")
	http.Redirect(w, r, to(r, automationsURL), http.StatusSeeOther)
}

// refusedEditor brings the editor back with the person's values and the
// refusal under its field (a stale save: above the form, with "Load the
// latest"); false when err is no refusal.
func (h *Handler) refusedEditor(w http.ResponseWriter, r *http.Request, err error, f templates.AutomationForm) bool {
	ctx := r.Context()
	e, ok := engine.AsError(err)
	if !ok || e.Code == engine.CodeForbidden {
		return false
	}
	_, _, status, _ := refusal(ctx, err)
	msg := automationRefusalSentence(ctx, e)
	switch {
	case e.ChangedElsewhere() || e.Field == "rev":
		f.Error, f.Latest = locales.T(ctx, "automations.changed_elsewhere"), "/studio/schedules/automations/"+f.ID
	case e.Field != "":
		// The engine names a job's own fields job.<field>; the form by
		// their names alone.
		field := strings.TrimPrefix(e.Field, "job.")
		if e.Code == automation.CodeUntrustedScope {
			field = "scopes" // it names the ticked scope a reader of visitor text may not hold
		}
		f.Errors = templates.FieldErrors{field: msg}
	default:
		f.Error = msg
	}
	f.Preview = h.automationPreview(ctx, f.Rec, f.Zone)
	h.renderAutomationEditor(w, r, status, f)
	return true
}

// renderAutomationEditor shows the automation editor.
func (h *Handler) renderAutomationEditor(w http.ResponseWriter, r *http.Request, status int, f templates.AutomationForm) {
	st := stateOf(r.Context())
	f.ZoneLabel = zoneLabel(r.Context(), zoneOf(f.Zone, st.site).String(), h.eng.Now())
	if f.Zone == "" {
		f.ZoneLabel = zoneLabel(r.Context(), st.site.TimeZone, h.eng.Now())
	}
	title := "automations.new_title"
	if f.ID != "" {
		title = "automations.edit_title"
	}
	mode := policy.Mode(f.ModeCap)
	if !slices.Contains(agents.Modes(), mode) || agents.CapMode(mode, st.user.Role) != mode {
		mode = policy.ModeManual // the task's default cap: proposals free, everything else waits
	}
	var scopes []policy.Scope // nil: the mode's defaults, as a task created without scopes gets
	if f.Scopes != nil {
		scopes = []policy.Scope{}
		for _, s := range f.Scopes {
			scopes = append(scopes, policy.Scope(s))
		}
	}
	f.TaskModes, f.TaskScopes = keyForm(st.user.Role, mode, scopes)
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, templates.AutomationEditor(h.page(r, title, "schedules"), f))
}
