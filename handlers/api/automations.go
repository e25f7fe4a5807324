package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers/wire"
	"studio/locales"
)

// agentKeyJSON is the key minted with an agent task: in the create answer
// only (§13), its secret shown once.
type agentKeyJSON struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// answerAutomation writes one automation with status.
func (h *Handler) answerAutomation(w http.ResponseWriter, ctx context.Context, status int, change func() (automations.Automation, error)) {
	a, err := h.aut.Answering(ctx, userOf(ctx), change)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := wire.AutomationOf(a)
	if a.NewKey == nil {
		writeJSON(w, status, out)
		return
	}
	// Create's answer of an agent task carries its key's secret, once.
	writeJSON(w, status, struct {
		wire.Automation
		Key agentKeyJSON `json:"key"`
	}{out, agentKeyJSON{ID: a.NewKey.ID, Secret: a.NewKey.Secret}})
}

// Automations lists a site's automations with their next and last runs
// (§13 GET …/automations).
func (h *Handler) Automations(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	site := chi.URLParam(r, "siteId")
	list, err := h.aut.ListAnswers(ctx, userOf(ctx), site)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := make([]wire.Automation, 0, len(list))
	for _, a := range list {
		out = append(out, wire.AutomationOf(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"automations": out})
}

// Automation answers one automation (§13 GET …/automations/{id}).
func (h *Handler) Automation(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h.answerAutomation(w, ctx, http.StatusOK, func() (automations.Automation, error) {
		return h.aut.Get(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"))
	})
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
	h.answerAutomation(w, ctx, http.StatusCreated, func() (automations.Automation, error) {
		return h.aut.Create(ctx, userOf(ctx), chi.URLParam(r, "siteId"), in)
	})
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
	h.answerAutomation(w, ctx, http.StatusOK, func() (automations.Automation, error) {
		return h.aut.Update(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"), p)
	})
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
	h.answerAutomation(w, ctx, http.StatusOK, func() (automations.Automation, error) {
		return fn(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "automationId"), body.Rev)
	})
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
	writeJSON(w, status, wire.RunOf(run))
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
		m := map[string]any{"at": wire.Stamp(o.At), "localTime": o.Local}
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
	out := make([]wire.Run, 0, len(page.Runs))
	for _, run := range page.Runs {
		out = append(out, wire.RunOf(run))
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
	writeJSON(w, http.StatusOK, wire.RunOf(run))
}
