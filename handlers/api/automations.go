package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/locales"
)

// automationJSON is an automation as §4.3 writes it, with what the caller
// may do with it.
type automationJSON struct {
	SchemaVersion       int                 `json:"schemaVersion"`
	ID                  string              `json:"id"`
	SiteID              string              `json:"siteId"`
	Name                string              `json:"name"`
	Job                 jobJSON             `json:"job"`
	Recurrence          recurrenceJSON      `json:"recurrence"`
	State               string              `json:"state"`
	PausedReason        string              `json:"pausedReason,omitempty"`
	ConsecutiveFailures int                 `json:"consecutiveFailures"`
	Owner               ownerJSON           `json:"owner"`
	NextRunAt           string              `json:"nextRunAt,omitempty"`
	LastRun             *runJSON            `json:"lastRun,omitempty"`
	CreatedAt           string              `json:"createdAt"`
	UpdatedAt           string              `json:"updatedAt"`
	Rev                 int64               `json:"rev"`
	Abilities           automationAbilities `json:"abilities"`
}

type jobJSON struct {
	Kind           string   `json:"kind"`
	Builtin        string   `json:"builtin,omitempty"`
	StaleAfterDays int      `json:"staleAfterDays,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	// Agent tasks (§4.3): the key's id, never its secret.
	KeyID              string             `json:"keyId,omitempty"`
	Instructions       string             `json:"instructions,omitempty"`
	ModeCap            string             `json:"modeCap,omitempty"`
	ReadsUntrustedText *bool              `json:"readsUntrustedText,omitempty"`
	WindowMinutes      int                `json:"windowMinutes,omitempty"`
	Budget             *automation.Budget `json:"budget,omitempty"`
	Scopes             []string           `json:"scopes,omitempty"`
}

// agentKeyJSON is the key minted with an agent task: in the create answer
// only (§13), its secret shown once.
type agentKeyJSON struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

type recurrenceJSON struct {
	Start    string `json:"start"`
	TimeZone string `json:"timeZone"`
	Rule     string `json:"rule,omitempty"`
	Preset   string `json:"preset"`
}

type ownerJSON struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

type automationAbilities struct {
	Edit      bool `json:"edit"`
	Delete    bool `json:"delete"`
	Duplicate bool `json:"duplicate"`
	Pause     bool `json:"pause"`
	Resume    bool `json:"resume"`
	RunNow    bool `json:"runNow"`
	TakeOver  bool `json:"takeOver"`
}

// runJSON is a ScheduleRun as §4.4 writes it.
type runJSON struct {
	SchemaVersion   int            `json:"schemaVersion"`
	ID              string         `json:"id"`
	SiteID          string         `json:"siteId"`
	Subject         map[string]any `json:"subject"`
	OccurrenceAt    string         `json:"occurrenceAt"`
	State           string         `json:"state"`
	Outcome         string         `json:"outcome,omitempty"`
	Trigger         string         `json:"trigger,omitempty"`
	Attempt         int            `json:"attempt"`
	StartedAt       string         `json:"startedAt,omitempty"`
	EndedAt         string         `json:"endedAt,omitempty"`
	LatenessSeconds *int64         `json:"latenessSeconds,omitempty"`
	Adjusted        string         `json:"adjusted,omitempty"`
	Counts          map[string]int `json:"counts,omitempty"`
	Error           map[string]any `json:"error,omitempty"`
	// Agent runs (§4.4): when it ends, what it spent, its taint and
	// end_run's summary (plain text).
	EndsAt    string            `json:"endsAt,omitempty"`
	Usage     *automation.Usage `json:"usage,omitempty"`
	Taint     *automation.Taint `json:"taint,omitempty"`
	Summary   string            `json:"summary,omitempty"`
	CreatedAt string            `json:"createdAt"`
	UpdatedAt string            `json:"updatedAt"`
	Rev       int64             `json:"rev"`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stampPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return stamp(*t)
}

func runOf(r automations.Run) runJSON {
	out := runJSON{SchemaVersion: 1, ID: r.ID, SiteID: r.SiteID, OccurrenceAt: stamp(r.OccurrenceAt), State: r.State,
		Outcome: r.Outcome, Trigger: r.Trigger, Attempt: r.Attempt, StartedAt: stampPtr(r.StartedAt), EndedAt: stampPtr(r.EndedAt),
		LatenessSeconds: r.LatenessSeconds, Adjusted: r.Adjusted, Counts: r.Counts, CreatedAt: stamp(r.CreatedAt),
		UpdatedAt: stamp(r.UpdatedAt), Rev: r.Rev}
	if r.SubjectKind == automations.SubjectRelease {
		out.Subject = map[string]any{"kind": "release", "releaseId": r.SubjectID}
	} else {
		out.Subject = map[string]any{"kind": "automation", "automationId": r.SubjectID, "job": r.Job}
	}
	if r.Job == automations.JobAgentTask && r.StartedAt != nil {
		usage := r.Ledger.Usage
		out.EndsAt, out.Usage, out.Taint, out.Summary = stampPtr(r.EndsAt), &usage, r.Ledger.Taint, r.Summary
	}
	if r.ErrorCode != "" {
		out.Error = map[string]any{"code": r.ErrorCode}
		if r.ErrorMessage != "" {
			out.Error["message"] = r.ErrorMessage
		}
	}
	return out
}

func automationOf(u engine.User, a automations.Automation, sitePaused bool) automationJSON {
	out := automationJSON{SchemaVersion: 1, ID: a.ID, SiteID: a.SiteID, Name: a.Name,
		Recurrence: recurrenceJSON{Start: a.StartLocal, TimeZone: a.TimeZone, Rule: a.Rule, Preset: a.Preset},
		State:      a.State, PausedReason: a.PausedReason, ConsecutiveFailures: a.ConsecutiveFailures,
		Owner:     ownerJSON{ID: a.Owner.ID, Name: a.Owner.Name},
		NextRunAt: stampPtr(a.NextRunAt), CreatedAt: stamp(a.CreatedAt), UpdatedAt: stamp(a.UpdatedAt), Rev: a.Rev}
	if b, ok := a.Builtin(); ok {
		out.Job = jobJSON{Kind: string(automation.JobBuiltin), Builtin: string(b), StaleAfterDays: a.Config.StaleAfterDays,
			Exclude: a.Config.Exclude}
	} else if t := a.Task; t != nil {
		untrusted, budget := t.ReadsUntrustedText, t.Budget
		out.Job = jobJSON{Kind: a.Job, KeyID: t.KeyID, Instructions: t.Instructions, ModeCap: string(t.ModeCap),
			ReadsUntrustedText: &untrusted, WindowMinutes: t.WindowMinutes, Budget: &budget}
		for _, sc := range t.Scopes {
			out.Job.Scopes = append(out.Job.Scopes, string(sc))
		}
	} else {
		out.Job = jobJSON{Kind: a.Job}
	}
	if a.LastRun != nil {
		r := runOf(*a.LastRun)
		out.LastRun = &r
	}
	may := automations.AbilitiesFor(u, a, sitePaused)
	out.Abilities = automationAbilities{Edit: may.Edit, Delete: may.Delete, Duplicate: may.Duplicate, Pause: may.Pause,
		Resume: may.Resume, RunNow: may.RunNow, TakeOver: may.TakeOver}
	return out
}

// sitePaused is whether the site's kill switch is on: what may be run now
// depends on it.
func (h *Handler) sitePaused(ctx context.Context, siteID string) (bool, error) {
	s, err := h.releases.ScheduleSettings(ctx, userOf(ctx), siteID)
	return s.Paused, err
}

// answerAutomation writes one automation with status.
func (h *Handler) answerAutomation(w http.ResponseWriter, ctx context.Context, status int, a automations.Automation) {
	paused, err := h.sitePaused(ctx, a.SiteID)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := automationOf(userOf(ctx), a, paused)
	if a.NewKey == nil {
		writeJSON(w, status, out)
		return
	}
	// Create's answer of an agent task carries its key's secret, once.
	writeJSON(w, status, struct {
		automationJSON
		Key agentKeyJSON `json:"key"`
	}{out, agentKeyJSON{ID: a.NewKey.ID, Secret: a.NewKey.Secret}})
}

// Automations lists a site's automations with their next and last runs
// (§13 GET …/automations).
func (h *Handler) Automations(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	site := chi.URLParam(r, "siteId")
	list, err := h.aut.List(ctx, userOf(ctx), site)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	paused, err := h.sitePaused(ctx, site)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := make([]automationJSON, 0, len(list))
	for _, a := range list {
		out = append(out, automationOf(userOf(ctx), a, paused))
	}
	writeJSON(w, http.StatusOK, map[string]any{"automations": out})
}

// Automation answers one automation (§13 GET …/automations/{id}).
func (h *Handler) Automation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a, err := h.aut.Get(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.answerAutomation(w, ctx, http.StatusOK, a)
}

// automationBody is a new automation (§13 POST …/automations): a built-in
// job with its fields and its recurrence, from a preset or a D3 rule.
type automationBody struct {
	Name string `json:"name"`
	Job  struct {
		Kind           string   `json:"kind"`
		Builtin        string   `json:"builtin"`
		StaleAfterDays int      `json:"staleAfterDays"`
		Exclude        []string `json:"exclude"`
		// Agent tasks.
		Instructions       string             `json:"instructions"`
		ModeCap            string             `json:"modeCap"`
		ReadsUntrustedText *bool              `json:"readsUntrustedText"`
		WindowMinutes      int                `json:"windowMinutes"`
		Budget             *automation.Budget `json:"budget"`
		Scopes             []string           `json:"scopes"`
	} `json:"job"`
	Recurrence struct {
		Start    string `json:"start"`
		TimeZone string `json:"timeZone"`
		Rule     string `json:"rule"`
		Preset   string `json:"preset"`
	} `json:"recurrence"`
}

// CreateAutomation creates a built-in automation (people only:
// automations:manage); it answers 201 with the automation.
func (h *Handler) CreateAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body automationBody
	if !h.decode(w, r, &body) {
		return
	}
	in := automations.Input{Name: body.Name,
		Builtin: automation.Builtin(body.Job.Builtin), Preset: body.Recurrence.Preset, Rule: body.Recurrence.Rule,
		Start: body.Recurrence.Start, TimeZone: body.Recurrence.TimeZone, StaleAfterDays: body.Job.StaleAfterDays,
		Exclude: body.Job.Exclude}
	switch body.Job.Kind {
	case string(automation.JobBuiltin):
	case string(automation.JobAgentTask):
		j := body.Job
		in.Task = &automations.TaskInput{Instructions: j.Instructions, ModeCap: policy.Mode(j.ModeCap),
			ReadsUntrustedText: j.ReadsUntrustedText, WindowMinutes: j.WindowMinutes, Budget: j.Budget}
		for _, sc := range j.Scopes {
			in.Task.Scopes = append(in.Task.Scopes, policy.Scope(sc))
		}
	default:
		h.badRequest(w, ctx, automation.CodeUnknownJobKind, "job.kind")
		return
	}
	a, err := h.aut.Create(ctx, userOf(ctx), chi.URLParam(r, "siteId"), in)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.answerAutomation(w, ctx, http.StatusCreated, a)
}

// automationPatchBody changes an automation seen at rev: any of its name, recurrence
// and job fields; what is left out stays.
type automationPatchBody struct {
	Rev  int64   `json:"rev"`
	Name *string `json:"name"`
	Job  *struct {
		StaleAfterDays *int      `json:"staleAfterDays"`
		Exclude        *[]string `json:"exclude"`
		// Agent tasks.
		Instructions       *string            `json:"instructions"`
		ModeCap            *string            `json:"modeCap"`
		ReadsUntrustedText *bool              `json:"readsUntrustedText"`
		WindowMinutes      *int               `json:"windowMinutes"`
		Budget             *automation.Budget `json:"budget"`
	} `json:"job"`
	Recurrence *struct {
		Start    *string `json:"start"`
		TimeZone *string `json:"timeZone"`
		Rule     *string `json:"rule"`
		Preset   *string `json:"preset"`
	} `json:"recurrence"`
}

// PatchAutomation changes an automation (§13 PATCH, rev compare-and-swap:
// 409 stale when it changed meanwhile).
func (h *Handler) PatchAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body automationPatchBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.Rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	p := automations.Patch{Rev: body.Rev, Name: body.Name}
	if j := body.Job; j != nil {
		p.StaleAfterDays, p.Exclude = j.StaleAfterDays, j.Exclude
		if j.Instructions != nil || j.ModeCap != nil || j.ReadsUntrustedText != nil || j.WindowMinutes != nil || j.Budget != nil {
			p.Task = &automations.TaskPatch{Instructions: j.Instructions, ReadsUntrustedText: j.ReadsUntrustedText,
				WindowMinutes: j.WindowMinutes, Budget: j.Budget}
			if j.ModeCap != nil {
				m := policy.Mode(*j.ModeCap)
				p.Task.ModeCap = &m
			}
		}
	}
	if rc := body.Recurrence; rc != nil {
		p.Start, p.TimeZone, p.Rule, p.Preset = rc.Start, rc.TimeZone, rc.Rule, rc.Preset
	}
	a, err := h.aut.Update(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"), p)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.answerAutomation(w, ctx, http.StatusOK, a)
}

// revParam is the rev a DELETE names in its query (?rev=N): a DELETE has
// no body.
func revParam(r *http.Request) int64 {
	n, _ := strconv.ParseInt(r.URL.Query().Get("rev"), 10, 64)
	return n
}

// DeleteAutomation deletes an automation seen at ?rev=N (its runs stay in
// the history) and answers {"id", "deleted": true}.
func (h *Handler) DeleteAutomation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rev := revParam(r)
	if rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	if err := h.aut.Delete(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"), rev); err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": chi.URLParam(r, "automationId"), "deleted": true})
}

// PauseAutomation and ResumeAutomation turn an automation off and on;
// body {"rev"}.
func (h *Handler) PauseAutomation(w http.ResponseWriter, r *http.Request) {
	h.switchAutomation(w, r, h.aut.Pause)
}

func (h *Handler) ResumeAutomation(w http.ResponseWriter, r *http.Request) {
	h.switchAutomation(w, r, h.aut.Resume)
}

// TakeOverAutomation makes an agent task the caller's, an Owner's or an
// Administrator's (§11.8), with a new key: body {"rev"}; the answer carries
// the key's secret, once, as Create's does.
func (h *Handler) TakeOverAutomation(w http.ResponseWriter, r *http.Request) {
	h.switchAutomation(w, r, h.aut.TakeOver)
}

func (h *Handler) switchAutomation(w http.ResponseWriter, r *http.Request,
	fn func(context.Context, engine.User, string, string, int64) (automations.Automation, error)) {
	ctx := r.Context()
	var body revBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.Rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	a, err := fn(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"), body.Rev)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	h.answerAutomation(w, ctx, http.StatusOK, a)
}

// RunAutomationNow starts a manual occurrence now (§13 …/run-now; Studio's
// "Check again"); 202 with the run, which the next ticks step.
func (h *Handler) RunAutomationNow(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, started, err := h.aut.RunNow(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	status := http.StatusAccepted
	if !started {
		status = http.StatusOK // the run under way already: the same act asked twice
	}
	writeJSON(w, status, runOf(run))
}

// previewBody is a schedule to try: {start, timeZone?, rule?, preset?}.
type previewBody struct {
	Start    string `json:"start"`
	TimeZone string `json:"timeZone"`
	Rule     string `json:"rule"`
	Preset   string `json:"preset"`
}

// PreviewRule answers the next five runs of a schedule, each with the
// clock change that moved it, and the sentence that says it in the
// caller's language (§13 POST …/automations/preview-rule). Nothing is
// stored.
func (h *Handler) PreviewRule(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body previewBody
	if !h.decode(w, r, &body) {
		return
	}
	p, err := h.aut.PreviewRule(ctx, userOf(ctx), chi.URLParam(r, "siteId"), body.Preset, body.Rule, body.Start, body.TimeZone)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	next := make([]map[string]any, 0, len(p.Occurrences))
	for _, o := range p.Occurrences {
		m := map[string]any{"at": stamp(o.At), "localTime": o.Local}
		if o.Adjusted != "" {
			m["adjusted"], m["meant"] = o.Adjusted, o.Meant
		}
		next = append(next, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"preset": p.Preset, "rule": p.Rule, "next": next,
		"sentence": locales.From(ctx).Recurrence(p.Sentence), "dstNotes": p.DSTNotes})
}

// Runs lists a site's runs, releases' and automations' alike, newest
// first (§13 GET …/runs; §12 list_runs): filters automationId, releaseId,
// state, outcome; limit ≤ 200 and the nextCursor of the previous page.
func (h *Handler) Runs(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	limit := 0
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			h.badRequest(w, ctx, CodeBadRequest, "limit")
			return
		}
		limit = n
	}
	page, err := h.aut.Runs(ctx, userOf(ctx), chi.URLParam(r, "siteId"), automations.RunsQuery{AutomationID: q.Get("automationId"),
		ReleaseID: q.Get("releaseId"), State: q.Get("state"), Outcome: q.Get("outcome"), Cursor: q.Get("cursor"), Limit: limit})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := make([]runJSON, 0, len(page.Runs))
	for _, run := range page.Runs {
		out = append(out, runOf(run))
	}
	body := map[string]any{"runs": out}
	if page.NextCursor != "" {
		body["nextCursor"] = page.NextCursor
	}
	writeJSON(w, http.StatusOK, body)
}

// Run answers one run (§13 GET …/runs/{runId}).
func (h *Handler) Run(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, err := h.aut.Run(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "runId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, runOf(run))
}
