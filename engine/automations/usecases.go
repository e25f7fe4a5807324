package automations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/engine"
	"studio/engine/ids"
	"studio/engine/jobs"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/recurrence"
	"studio/engine/releases"
)

// Input is a new automation (POST …/automations): a built-in job on a
// schedule. Preset "" means custom when Rule is set and once when not;
// with a preset other than custom, Rule must be empty and the rule is the
// preset's for Start. TimeZone "" is the site's.
type Input struct {
	Name    string
	Builtin automation.Builtin
	Preset  string
	Rule    string
	Start   string // YYYY-MM-DDTHH:MM on TimeZone's clock
	// TimeZone is an IANA zone; "" is the site's.
	TimeZone string
	// StaleAfterDays is stale-content's threshold (30..1095; 0 the
	// default, 365).
	StaleAfterDays int
	// Exclude lists path patterns broken-links does not report.
	Exclude []string
	// Task, when set, makes the automation an agent task (§4.3 job.kind
	// agent-task; Builtin stays empty): Create mints its own key.
	Task *TaskInput
}

// schedule is a checked recurrence with its preset and canonical rule.
type schedule struct {
	rc     recurrence.Recurrence
	preset string
	rule   string
	start  string
	zone   string
}

// checkSchedule validates a schedule: the zone, the start, the preset and
// the rule (D3: the subset, at least an hour apart, at most 24 a day, not
// COUNT with UNTIL, at least one occurrence). One code per rule.
func checkSchedule(preset, rule, start, zone string) (schedule, error) {
	rule, start, preset = strings.TrimSpace(rule), strings.TrimSpace(start), strings.TrimSpace(preset)
	loc, err := localtime.Zone(zone)
	if err != nil {
		return schedule{}, refuse(CodeBadZone, "timeZone")
	}
	w, err := localtime.ParseWall(start)
	if err != nil {
		return schedule{}, refuse(codeOf(err), "start")
	}
	if preset == "" {
		preset = string(recurrence.PresetCustom)
		if rule == "" {
			preset = string(recurrence.PresetOnce)
		}
	}
	p := recurrence.Preset(preset)
	if !slices.Contains(recurrence.Presets, p) {
		return schedule{}, refuse(CodeUnknownPreset, "preset")
	}
	var r *recurrence.Rule
	switch {
	case p == recurrence.PresetCustom && rule == "":
		return schedule{}, &engine.Error{Code: CodeBadRule, Field: "rule", Args: map[string]any{"Reason": recurrence.ErrMissingFreq.Code}}
	case p == recurrence.PresetCustom:
		parsed, err := recurrence.Parse(rule)
		if err != nil {
			return schedule{}, badRule(err)
		}
		r = &parsed
	case rule != "":
		return schedule{}, refuse(automation.CodeFieldNotAllowed, "rule") // a preset brings its own rule
	default:
		if r, err = recurrence.PresetRule(p, w); err != nil {
			return schedule{}, badRule(err)
		}
	}
	rc, err := recurrence.New(w, loc, r)
	if err != nil {
		return schedule{}, badRule(err)
	}
	s := schedule{rc: rc, preset: preset, start: w.String(), zone: zone}
	if r != nil {
		s.rule = rc.Rule.String()
		// A custom rule that says what a preset says is that preset.
		s.preset = string(recurrence.PresetOf(rc.Rule, w))
	}
	return s, nil
}

// checkConfig validates a built-in job's fields.
func checkConfig(b automation.Builtin, c jobs.Config) (jobs.Config, error) {
	if err := automation.ValidateJob(automation.Job{Kind: automation.JobBuiltin, Builtin: b, StaleAfterDays: c.StaleAfterDays}); err != nil {
		return c, fromModel(err)
	}
	if len(c.Exclude) > MaxExcludes {
		return c, refuse(CodeBadExclude, "exclude")
	}
	var out []string
	for _, p := range c.Exclude {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/") || utf8.RuneCountInString(p) > MaxExcludeLength || !oneLineName(p, MaxExcludeLength) ||
			strings.ContainsAny(p, " \t") {
			return c, refuse(CodeBadExclude, "exclude")
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	c.Exclude = out
	return c, nil
}

// withOffset moves a preset's :00 start by the automation's deterministic
// minute offset (§9.5), so many sites' built-ins do not all wake at :00. A
// start a person put on another minute is theirs and stays.
func withOffset(id, start string) string {
	w, err := localtime.ParseWall(start)
	if err != nil || w.Minute != 0 {
		return start
	}
	w.Minute = recurrence.MinuteOffset(id)
	return w.String()
}

// plan sets the runner's fields of a after its schedule changed at now:
// the next occurrence after max(now, handled), and when to look.
func plan(a *Automation, rc recurrence.Recurrence, now time.Time) {
	a.HandledAt = now
	a.NextRunAt, a.DueAt = nil, nil
	if next, ok := rc.Next(now); ok {
		at := next.At
		a.NextRunAt = &at
		if a.State == AutomationActive {
			a.DueAt = &at
		}
	}
	if a.OpenRunID != "" {
		a.DueAt = &now // its open run's next step
	}
}

// Create creates an active built-in automation of siteID (§11, §13 POST
// …/automations; people only, automations:manage). It is owned by u.
// Audited as automation.create.
func (e *Automations) Create(ctx context.Context, u engine.User, siteID string, in Input) (Automation, error) {
	if err := mayManage(u, siteID); err != nil {
		return Automation{}, err
	}
	if in.Task != nil {
		return e.createTask(ctx, u, siteID, in)
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Automation{}, err
	}
	name := strings.TrimSpace(in.Name)
	if !oneLineName(name, automation.MaxNameLength) {
		return Automation{}, refuse(automation.CodeBadName, "name")
	}
	if !slices.Contains(automation.Builtins, in.Builtin) {
		return Automation{}, refuse(automation.CodeUnknownBuiltin, "job")
	}
	cfg, err := checkConfig(in.Builtin, jobs.Config{StaleAfterDays: in.StaleAfterDays, Exclude: in.Exclude})
	if err != nil {
		return Automation{}, err
	}
	zone := strings.TrimSpace(in.TimeZone)
	if zone == "" {
		zone = site.TimeZone
	}
	id := ids.New("aut")
	start := strings.TrimSpace(in.Start)
	if p := strings.TrimSpace(in.Preset); p != "" && p != string(recurrence.PresetCustom) {
		start = withOffset(id, start)
	}
	s, err := checkSchedule(in.Preset, in.Rule, start, zone)
	if err != nil {
		return Automation{}, err
	}
	now := e.now()
	a := Automation{ID: id, SiteID: siteID, Name: name, Job: JobBuiltinPrefix + string(in.Builtin), Config: cfg,
		Rule: s.rule, Preset: s.preset, StartLocal: s.start, TimeZone: s.zone, State: AutomationActive,
		Owner: automation.Owner{ID: u.ID, Name: u.Name}, CreatedBy: u.Actor(), Origin: "person", Rev: 1,
		CreatedAt: now, UpdatedAt: now}
	plan(&a, s.rc, now)
	// The audit row names the automation in its details only: audit rows
	// carrying automation_id are the automation's own writes, which the
	// daily write cap counts (§11.5).
	audit := engine.AuditEntry{Action: "automation.create", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"automation": a.ID, "name": name, "job": a.Job, "rule": a.Rule, "preset": a.Preset,
			"start": a.StartLocal, "timeZone": a.TimeZone}}
	if err := e.store.CreateAutomation(ctx, a, audit); err != nil {
		return Automation{}, err
	}
	e.poke()
	return a, nil
}

// CreateAutomation creates an active automation of siteID in the site's
// zone from a job string and a rule (the demo's and the calendar tests'
// way; Create is the API's). job is "builtin:<name>" or "agent-task" (a
// task the runner does not run yet); rule "" is once.
func (e *Automations) CreateAutomation(ctx context.Context, u engine.User, siteID, name, job, rule, startLocal string) (Automation, error) {
	if b, ok := strings.CutPrefix(job, JobBuiltinPrefix); ok {
		return e.Create(ctx, u, siteID, Input{Name: name, Builtin: automation.Builtin(b), Rule: rule, Start: startLocal})
	}
	if err := mayManage(u, siteID); err != nil {
		return Automation{}, err
	}
	if job != JobAgentTask {
		return Automation{}, refuse(automation.CodeUnknownJobKind, "job")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Automation{}, err
	}
	name = strings.TrimSpace(name)
	if !oneLineName(name, automation.MaxNameLength) {
		return Automation{}, refuse(automation.CodeBadName, "name")
	}
	s, err := checkSchedule("", rule, startLocal, site.TimeZone)
	if err != nil {
		return Automation{}, err
	}
	now := e.now()
	a := Automation{ID: ids.New("aut"), SiteID: siteID, Name: name, Job: job, Rule: s.rule, Preset: s.preset,
		StartLocal: s.start, TimeZone: s.zone, State: AutomationActive, Owner: automation.Owner{ID: u.ID, Name: u.Name},
		CreatedBy: u.Actor(), Origin: "agent", Rev: 1, CreatedAt: now, UpdatedAt: now}
	plan(&a, s.rc, now)
	a.DueAt = nil // agent tasks open windows (§11.2); the built-in runner does not run them
	audit := engine.AuditEntry{Action: "automation.create", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"automation": a.ID, "name": name, "job": job, "rule": a.Rule, "start": a.StartLocal,
			"timeZone": a.TimeZone}}
	if err := e.store.CreateAutomation(ctx, a, audit); err != nil {
		return Automation{}, err
	}
	return a, nil
}

// Get is one automation of a site with its last run (GET …/automations/{id}).
func (e *Automations) Get(ctx context.Context, u engine.User, siteID, id string) (Automation, error) {
	if err := mayRead(u, siteID); err != nil {
		return Automation{}, err
	}
	return e.store.Automation(ctx, siteID, id)
}

// List is a site's automations, oldest first, each with its next run and
// last run (GET …/automations).
func (e *Automations) List(ctx context.Context, u engine.User, siteID string) ([]Automation, error) {
	if err := mayRead(u, siteID); err != nil {
		return nil, err
	}
	list, err := e.store.Automations(ctx, siteID)
	if err != nil {
		return nil, err
	}
	return list, e.store.LastRuns(ctx, list)
}

// Automations lists a site's automations, oldest first, for surfaces that
// have checked the reader already (the calendar).
func (e *Automations) Automations(ctx context.Context, siteID string) ([]Automation, error) {
	return e.store.Automations(ctx, siteID)
}

// Patch is a change to an automation (PATCH …/automations/{id}): nil
// fields stay. Rev is the rev the person saw (compare-and-swap).
type Patch struct {
	Rev  int64
	Name *string
	// Schedule: all four are read when any is set; a nil one keeps its
	// current value (Rule is cleared by a preset other than custom).
	Preset   *string
	Rule     *string
	Start    *string
	TimeZone *string
	// Job fields.
	StaleAfterDays *int
	Exclude        *[]string
	// Task changes an agent task's fields (refused on a built-in job).
	Task *TaskPatch
}

// Update changes an automation's name, schedule or job fields (people only,
// automations:manage). A rev other than the current one is refused as
// stale and nothing changes. A new schedule starts counting from now: no
// occurrence before the change runs. Audited as automation.update with the
// fields changed.
func (e *Automations) Update(ctx context.Context, u engine.User, siteID, id string, p Patch) (Automation, error) {
	if err := mayManage(u, siteID); err != nil {
		return Automation{}, err
	}
	a, err := e.store.Automation(ctx, siteID, id)
	if err != nil {
		return Automation{}, err
	}
	if a.Rev != p.Rev {
		return Automation{}, refuse(engine.CodeStale, "rev")
	}
	if a.State == AutomationEnded && (p.Preset != nil || p.Rule != nil || p.Start != nil || p.TimeZone != nil) {
		// An ended automation gets a new life with a new schedule.
		a.State, a.EndedAt = AutomationActive, nil
	}
	changed := map[string]any{}
	if p.Name != nil {
		name := strings.TrimSpace(*p.Name)
		if !oneLineName(name, automation.MaxNameLength) {
			return Automation{}, refuse(automation.CodeBadName, "name")
		}
		if name != a.Name {
			a.Name, changed["name"] = name, name
		}
	}
	if b, ok := a.Builtin(); ok && (p.StaleAfterDays != nil || p.Exclude != nil) {
		cfg := a.Config
		if p.StaleAfterDays != nil {
			cfg.StaleAfterDays = *p.StaleAfterDays
		}
		if p.Exclude != nil {
			cfg.Exclude = *p.Exclude
		}
		if cfg, err = checkConfig(b, cfg); err != nil {
			return Automation{}, err
		}
		a.Config, changed["config"] = cfg, cfg
	}
	if p.Task != nil {
		if a.Task == nil {
			return Automation{}, refuse(CodeNotAgentTask, "job")
		}
		t, err := patchTask(u, *a.Task, *p.Task)
		if err != nil {
			return Automation{}, err
		}
		a.Task, changed["task"] = &t, taskDetails(t)
	}
	now := e.now()
	if p.Preset != nil || p.Rule != nil || p.Start != nil || p.TimeZone != nil {
		preset, rule, start, zone := a.Preset, a.Rule, a.StartLocal, a.TimeZone
		if p.Preset != nil {
			preset = *p.Preset
			if preset != string(recurrence.PresetCustom) && p.Rule == nil {
				rule = ""
			}
		}
		if p.Rule != nil {
			rule = *p.Rule
			if p.Preset == nil {
				preset = "" // a rule written out: custom, or the preset it says
			}
		}
		if p.Start != nil {
			start = *p.Start
		}
		if p.TimeZone != nil {
			zone = strings.TrimSpace(*p.TimeZone)
		}
		s, err := checkSchedule(preset, rule, start, zone)
		if err != nil {
			return Automation{}, err
		}
		a.Preset, a.Rule, a.StartLocal, a.TimeZone = s.preset, s.rule, s.start, s.zone
		changed["preset"], changed["rule"], changed["start"], changed["timeZone"] = s.preset, s.rule, s.start, s.zone
		if a.Task != nil {
			planTask(&a, s.rc, a.Task.WindowMinutes, now)
		} else {
			plan(&a, s.rc, now)
		}
	}
	if len(changed) == 0 {
		return a, nil
	}
	changed["automation"] = a.ID
	return e.write(ctx, u, a, false, "automation.update", changed, now)
}

// write saves a at its next rev with its audit row.
func (e *Automations) write(ctx context.Context, u engine.User, a Automation, killRun bool, action string, details map[string]any, now time.Time) (Automation, error) {
	rev := a.Rev
	a.Rev, a.UpdatedAt = rev+1, now
	details["automation"] = a.ID
	audit := engine.AuditEntry{Action: action, Actor: u.Actor(), SiteID: a.SiteID, At: now, Details: details}
	if err := e.store.UpdateAutomation(ctx, a, rev, killRun, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return Automation{}, refuse(engine.CodeStale, "rev")
		}
		return Automation{}, err
	}
	if killRun {
		a.OpenRunID = ""
	}
	return a, nil
}

// Delete removes an automation (people only, automations:manage) at rev:
// its open run is killed, its runs stay in History. Audited as
// automation.delete.
func (e *Automations) Delete(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
	if err := mayManage(u, siteID); err != nil {
		return err
	}
	a, err := e.store.Automation(ctx, siteID, id)
	if err != nil {
		return err
	}
	if a.Rev != rev {
		return refuse(engine.CodeStale, "rev")
	}
	// A request decided between the read and the write is a conflict:
	// read again, a few times.
	for range 3 {
		d, err := e.deletion(ctx, u, a)
		if err != nil {
			return err
		}
		if err = e.store.DeleteAutomation(ctx, d); !errors.Is(err, engine.ErrConflict) {
			return err
		}
		if a, err = e.store.Automation(ctx, siteID, id); err != nil {
			return err
		}
		if a.Rev != rev {
			return refuse(engine.CodeStale, "rev")
		}
	}
	return refuse(engine.CodeStale, "rev")
}

// deletion is a's deletion by u now, with the requests its runs filed that
// still wait withdrawn (§11.8 "Automation deleted: its waiting requests
// denied"): nobody is left to carry out what the run asked for.
func (e *Automations) deletion(ctx context.Context, u engine.User, a Automation) (Deletion, error) {
	now := e.now()
	d := Deletion{SiteID: a.SiteID, ID: a.ID, Rev: a.Rev, Now: now, Audit: engine.AuditEntry{Action: "automation.delete",
		Actor: u.Actor(), SiteID: a.SiteID, At: now, Details: map[string]any{"automation": a.ID, "name": a.Name}}}
	waiting, err := e.store.WaitingApprovals(ctx, a.SiteID)
	if err != nil {
		return Deletion{}, err
	}
	for _, q := range waiting {
		if q.RunID == "" {
			continue
		}
		run, err := e.store.Run(ctx, a.SiteID, q.RunID)
		if errors.Is(err, engine.ErrNotFound) {
			continue
		}
		if err != nil {
			return Deletion{}, err
		}
		if run.SubjectID != a.ID {
			continue
		}
		rel, err := e.store.Release(ctx, a.SiteID, q.ReleaseID)
		if err != nil {
			return Deletion{}, err
		}
		d.Denials = append(d.Denials, releases.Withdrawal(q, rel, u.Actor(), now, "automation_deleted"))
	}
	return d, nil
}

// Pause pauses an active automation (people only): no occurrence starts,
// and a run in progress is killed at its next step boundary. A pause over
// the kill switch's records the person's own (it outlasts the switch).
// Audited as automation.pause.
func (e *Automations) Pause(ctx context.Context, u engine.User, siteID, id string, rev int64) (Automation, error) {
	return e.move(ctx, u, siteID, id, rev, automation.StatePaused, automation.ReasonPerson, "automation.pause")
}

// Resume makes a paused or auto-paused automation active again (people
// only; an auto-paused one starts its failure count afresh). Occurrences
// while it was paused do not run: it counts from now. Audited as
// automation.resume.
func (e *Automations) Resume(ctx context.Context, u engine.User, siteID, id string, rev int64) (Automation, error) {
	return e.move(ctx, u, siteID, id, rev, automation.StateActive, "", "automation.resume")
}

func (e *Automations) move(ctx context.Context, u engine.User, siteID, id string, rev int64, to automation.State, reason automation.PausedReason, action string) (Automation, error) {
	if err := mayManage(u, siteID); err != nil {
		return Automation{}, err
	}
	a, err := e.store.Automation(ctx, siteID, id)
	if err != nil {
		return Automation{}, err
	}
	if a.Rev != rev {
		return Automation{}, refuse(engine.CodeStale, "rev")
	}
	from := a.AutomationState()
	next, err := automation.Change(from, to, reason, automation.ActorPerson)
	if err != nil {
		return Automation{}, fromModel(err)
	}
	a.setState(next)
	now := e.now()
	killRun := false
	if to == automation.StateActive {
		rc, err := a.Recurrence()
		if err != nil {
			return Automation{}, err
		}
		plan(&a, rc, now)
	} else {
		killRun = a.OpenRunID != ""
		a.DueAt, a.OpenRunID = nil, ""
	}
	out, err := e.write(ctx, u, a, killRun, action, map[string]any{"from": string(from.State), "to": string(to),
		"reason": string(reason)}, now)
	if err == nil && to == automation.StateActive {
		e.poke()
	}
	return out, err
}

// RunNow starts a run of a built-in automation now, a person's "Run now"
// or "Check again" (§13 run-now; people only); on an agent task it opens a
// window now instead (see openWindowNow). Its occurrence is now and
// its trigger manual; the ticker takes its steps at once. An ended or
// broken automation is refused (bad_state), and any while the site's kill
// switch is on (site_paused). It returns the run as it starts and true;
// when a run is in progress already (a double-clicked Run now, two people
// at once) or a person's window is open, that run or window and false:
// the act asked for is under way, and nothing is written.
func (e *Automations) RunNow(ctx context.Context, u engine.User, siteID, id string) (Run, bool, error) {
	if err := mayManage(u, siteID); err != nil {
		return Run{}, false, err
	}
	for range 3 {
		a, err := e.store.Automation(ctx, siteID, id)
		if err != nil {
			return Run{}, false, err
		}
		if r, ok, err := e.runUnderWay(ctx, a); err != nil || ok {
			return r, false, err
		}
		r, err := e.runNow(ctx, u, a)
		if ee, ok := engine.AsError(err); ok && ee.Code == CodeRunOpen {
			continue // started meanwhile: answer that one
		}
		return r, err == nil, err
	}
	return Run{}, false, refuse(CodeRunOpen, "")
}

// runUnderWay is a's run in progress, or the window a person's Run now
// opened that no run has taken yet, if any.
func (e *Automations) runUnderWay(ctx context.Context, a Automation) (Run, bool, error) {
	if a.OpenRunID != "" {
		r, err := e.store.Run(ctx, a.SiteID, a.OpenRunID)
		if errors.Is(err, engine.ErrNotFound) {
			return Run{}, false, nil
		}
		return r, err == nil, err
	}
	if a.Task != nil && a.Task.ManualWindow != nil && a.Task.ManualWindow.Contains(e.now()) {
		return manualWindowRun(a, *a.Task.ManualWindow), true, nil
	}
	return Run{}, false, nil
}

func (e *Automations) runNow(ctx context.Context, u engine.User, a Automation) (Run, error) {
	siteID := a.SiteID
	_, builtin := a.Builtin()
	if (!builtin && a.Task == nil) || a.State == AutomationEnded || a.State == AutomationBroken {
		return Run{}, refuse(engine.CodeBadState, "")
	}
	// The site's kill switch holds every run (§11.6): a run started now
	// would be killed at its first step.
	if set, err := e.store.ScheduleSettings(ctx, siteID); err != nil {
		return Run{}, err
	} else if set.Paused {
		return Run{}, refuse(engine.CodeSitePaused, "")
	}
	now := e.now()
	if !builtin {
		return e.openWindowNow(ctx, u, a, now)
	}
	r := Run{ID: ids.RunID(a.ID, now), SiteID: siteID, SubjectKind: SubjectAutomation, SubjectID: a.ID,
		Job: string(automation.JobBuiltin), OccurrenceAt: now, State: string(automation.RunRunning), Trigger: TriggerManual,
		Attempt: 1, StartedAt: &now, Rev: 1, CreatedAt: now, UpdatedAt: now}
	lateness := int64(0)
	r.LatenessSeconds = &lateness
	audit := engine.AuditEntry{Action: "automation.run_now", Actor: u.Actor(), SiteID: siteID, RunID: r.ID, At: now,
		Details: map[string]any{"automation": a.ID}}
	if err := e.store.StartRun(ctx, r, a.Rev, audit); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return Run{}, refuse(CodeRunOpen, "")
		}
		return Run{}, err
	}
	e.poke()
	return r, nil
}

// PreviewOccurrence is one of a preview's next runs.
type PreviewOccurrence struct {
	At time.Time
	// Local is the wall-clock time it runs at in the zone.
	Local string
	// Adjusted is "dst-gap" when the clock change moved it (§9.2).
	Adjusted string
	// Meant is the wall-clock time the rule meant, when Adjusted.
	Meant string
}

// Preview is what POST …/automations/preview-rule answers.
type Preview struct {
	Preset      string
	Rule        string
	Occurrences []PreviewOccurrence
	// Sentence is the rule as data for the caller's language
	// (engine/recurrence's Describe; locales words it).
	Sentence recurrence.Sentence
	// DSTNotes counts the occurrences a clock change moved.
	DSTNotes int
}

// PreviewCount is how many next runs a preview lists.
const PreviewCount = 5

// PreviewRule checks a schedule and lists its next five runs from now
// (schedules:read), each with the clock change that moved it, and the
// sentence that says it. preset "" is custom with a rule and once without.
// Nothing is stored.
func (e *Automations) PreviewRule(ctx context.Context, u engine.User, siteID, preset, rule, start, zone string) (Preview, error) {
	if err := mayRead(u, siteID); err != nil {
		return Preview{}, err
	}
	if strings.TrimSpace(zone) == "" {
		site, err := e.store.Site(ctx, siteID)
		if err != nil {
			return Preview{}, err
		}
		zone = site.TimeZone
	}
	s, err := checkSchedule(preset, rule, start, zone)
	if err != nil {
		return Preview{}, err
	}
	now := e.now()
	p := Preview{Preset: s.preset, Rule: s.rule, Sentence: recurrence.Describe(s.rc)}
	after := now
	for range PreviewCount {
		o, ok := s.rc.Next(after)
		if !ok {
			break
		}
		po := PreviewOccurrence{At: o.At, Local: localtime.WallOf(o.At, s.rc.Zone).String(), Adjusted: string(o.Adjusted)}
		if o.Adjusted != "" {
			po.Meant = o.Local.String()
			p.DSTNotes++
		}
		p.Occurrences = append(p.Occurrences, po)
		after = o.At
	}
	return p, nil
}
