package studio

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/locales"
	"studio/web/templates"
)

// HistoryURL is the History tab, filtered to one automation when id is set.
func HistoryURL(automationID string) string {
	if automationID == "" {
		return "/studio/schedules/history"
	}
	return "/studio/schedules/history?" + url.Values{"automation": {automationID}}.Encode()
}

// HistoryPageSize is how many runs History shows at a time: a screenful
// or two, then "Load more".
const HistoryPageSize = 25

// History lists the site's runs, of automations and releases alike, newest
// first (§15.1 History tab; §12 list_runs): filters by automation, state and
// outcome in the URL, and "Load more" with the cursor of the page before.
// As htmx asks it, the same page: the form's swap and Load more select the
// parts they need from it.
func (h *Handler) History(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	q := r.URL.Query()
	v := templates.HistoryView{Automation: q.Get("automation"), State: q.Get("state"), Outcome: q.Get("outcome"),
		ClearURL: HistoryURL("")}
	v.Filtered = v.Automation != "" || v.State != "" || v.Outcome != ""
	p := locales.From(ctx)
	list, err := h.aut.List(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	names := map[string]string{}
	for _, a := range list {
		names[a.ID] = a.Name
		v.Automations = append(v.Automations, templates.Option{Value: a.ID, Label: a.Name})
	}
	for _, s := range automation.RunStates {
		v.States = append(v.States, templates.Option{Value: string(s), Label: p.T("runs.state." + string(s))})
	}
	for _, o := range automation.Outcomes {
		v.Outcomes = append(v.Outcomes, templates.Option{Value: string(o), Label: p.T("runs.outcome." + string(o))})
	}
	page, err := h.aut.Runs(ctx, *st.user, st.site.ID, automations.RunsQuery{AutomationID: v.Automation, State: v.State,
		Outcome: v.Outcome, Cursor: q.Get("cursor"), Limit: HistoryPageSize})
	status := http.StatusOK
	if msg, fields, code, ok := refusal(ctx, err); ok {
		// A filter or a cursor the engine does not know: the form comes
		// back as it was asked, with the sentence, and no runs.
		v.Error, status = msg, code
		for _, m := range fields {
			v.Error = m
		}
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	rows, err := h.runRows(ctx, page.Runs, names)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Rows = rows
	if page.NextCursor != "" {
		more := url.Values{}
		for _, k := range []string{"automation", "state", "outcome"} {
			if s := q.Get(k); s != "" {
				more.Set(k, s)
			}
		}
		more.Set("cursor", page.NextCursor)
		v.MoreURL = "/studio/schedules/history?" + more.Encode()
	}
	h.render(w, r, status, templates.HistoryPage(h.page(r, "runs.title", "schedules"), v))
}

// runRows words runs for History and a run's page.
func (h *Handler) runRows(ctx context.Context, runs []automations.Run, names map[string]string) ([]templates.RunRow, error) {
	st := stateOf(ctx)
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	today := h.eng.Now().In(loc)
	releases := map[string]string{}
	out := make([]templates.RunRow, 0, len(runs))
	for _, run := range runs {
		at := run.OccurrenceAt.In(loc)
		row := templates.RunRow{ID: run.ID, At: run.OccurrenceAt, When: runWhen(p, at, today),
			SubjectKind: run.SubjectKind, State: run.State, Outcome: run.Outcome, Attempt: run.Attempt, URL: RunURL(run.ID),
			Trigger: p.T(triggerKey(run.SubjectKind, run.Trigger)), Counts: countWords(p, run.Counts, true)}
		switch run.SubjectKind {
		case automations.SubjectRelease:
			title, ok := releases[run.SubjectID]
			if !ok {
				rel, err := h.releases.Release(ctx, *st.user, st.site.ID, run.SubjectID)
				switch {
				case err == nil:
					title = rel.Title
				case errors.Is(err, engine.ErrNotFound):
				default:
					return nil, err
				}
				if title == "" {
					title = p.T("runs.release")
				}
				releases[run.SubjectID] = title
			}
			row.SubjectName, row.SubjectURL = title, "/studio/releases/"+run.SubjectID
		default:
			row.SubjectName = names[run.SubjectID]
			if row.SubjectName == "" { // deleted: its runs stay in History
				row.SubjectName = p.T("runs.automation_deleted")
			} else {
				row.SubjectURL = "/studio/schedules/automations/" + run.SubjectID
			}
		}
		if run.LatenessSeconds != nil {
			if d := time.Duration(*run.LatenessSeconds) * time.Second; d > 0 {
				row.Late = p.T("runs.late", "Late", p.Duration(d))
			} else if run.StartedAt != nil {
				row.Late = p.T("runs.on_time")
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// runWhen words a run's occurrence, both in the site's zone: "Today ·
// 09:07", "Yesterday · 07:10", else "2 November 2026, 07:10".
func runWhen(p *locales.Printer, at, today time.Time) string {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	switch day(today).Sub(day(at)) {
	case 0:
		return p.T("date.today") + " · " + locales.Clock(at)
	case 24 * time.Hour:
		return p.T("date.yesterday") + " · " + locales.Clock(at)
	}
	return p.DateTime(at)
}

// triggerKey names what started a run: a person's Run now (of an
// automation) or act that published at once (a release's Publish now, an
// embargo or expiry saved and published), or the schedule (the ticker, a
// visit's backstop, a system cron).
func triggerKey(subjectKind, trigger string) string {
	switch {
	case trigger == automations.TriggerManual && subjectKind == automations.SubjectRelease:
		return "runs.trigger.published_now"
	case trigger == automations.TriggerManual:
		return "runs.trigger.manual"
	case trigger == "request":
		return "runs.trigger.request"
	}
	return "runs.trigger.schedule"
}

// headlineCounts are the counts History shows on a run's row: what the job
// found. The run's page shows the work counts too.
var headlineCounts = []string{jobs.CountBrokenLinks, jobs.CodeNotFoundPath, jobs.CountStaleEntries, jobs.CountFeedProblems,
	jobs.CountStaleDrafts, jobs.CountUnusedAssets, jobs.CountPublished, jobs.CountNeedsAttention, jobs.CountOpenFindings,
	"coalesced"}

// workCounts are what a job went through.
var workCounts = []string{jobs.CountNodesScanned, jobs.CountLinksChecked, jobs.CountDocumentsChecked,
	jobs.CountEntriesScanned, jobs.CountExcluded}

// countWords words a run's counts ("2 broken links"): the headline ones
// that are not zero, or (on the run's page) all it has of both lists.
func countWords(p *locales.Printer, counts map[string]int, headlineOnly bool) []string {
	var out []string
	keys := headlineCounts
	if !headlineOnly {
		keys = slices.Concat(headlineCounts, workCounts)
	}
	for _, k := range keys {
		n, ok := counts[k]
		if !ok || headlineOnly && n == 0 {
			continue
		}
		out = append(out, p.T("runs.count."+k, "Count", n))
	}
	return out
}

// agentRun is what an agent task's run did, from its trail.
func (h *Handler) agentRun(ctx context.Context, run automations.Run) (*templates.AgentRunView, error) {
	st := stateOf(ctx)
	d, err := h.aut.RunDetail(ctx, *st.user, st.site.ID, run.ID)
	if err != nil {
		return nil, err
	}
	v := &templates.AgentRunView{Mode: run.Mode, Summary: run.Summary, Approvals: d.Approvals}
	for _, id := range d.Releases {
		rel, err := h.releases.Release(ctx, *st.user, st.site.ID, id)
		if errors.Is(err, engine.ErrNotFound) {
			continue // retained no longer
		}
		if err != nil {
			return nil, err
		}
		v.Releases = append(v.Releases, templates.RunReleaseLink{ID: rel.ID, Title: releaseTitle(rel), State: string(rel.State)})
	}
	return v, nil
}

// Run is one run's page: what ran, its state and apart from it its outcome,
// the trigger, attempt, lateness, counts and error; a built-in's findings
// grouped as new, still there and fixed (hidden ones behind ?hidden=1), a
// weekly digest's lines. While the run goes on, htmx polls its live region.
func (h *Handler) Run(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	run, err := h.aut.Run(ctx, *st.user, st.site.ID, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	names := map[string]string{}
	var au *automations.Automation
	if run.SubjectKind == automations.SubjectAutomation {
		a, err := h.aut.Get(ctx, *st.user, st.site.ID, run.SubjectID)
		switch {
		case err == nil:
			au, names[a.ID] = &a, a.Name
		case errors.Is(err, engine.ErrNotFound): // deleted; its runs stay
		default:
			h.fail(w, r, err)
			return
		}
	}
	rows, err := h.runRows(ctx, []automations.Run{run}, names)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.RunPage{Run: rows[0], Adjusted: run.Adjusted == "dst-gap", Counts: countWords(p, run.Counts, false),
		Open: run.Open(), ShowHidden: r.URL.Query().Get("hidden") == "1", BaseURL: RunURL(run.ID),
		HiddenURL: RunURL(run.ID) + "?hidden=1", DismissURL: RunURL(run.ID) + "/dismiss"}
	if run.StartedAt != nil {
		v.Started = p.DateTime(run.StartedAt.In(loc))
	}
	if run.EndedAt != nil {
		v.Ended = p.DateTime(run.EndedAt.In(loc))
	}
	switch {
	case run.State == string(automation.RunKilled):
		v.Error = p.T("runs.error.killed")
		if s, ok := p.Lookup("runs.error." + run.ErrorCode); run.ErrorCode != "" && ok { // the kill switch's
			v.Error = s
		}
	case run.State == string(automation.RunFailed) || run.ErrorCode != "":
		v.Error = p.T("runs.error.failed")
		if s, ok := p.Lookup("runs.error." + run.ErrorCode); run.ErrorCode != "" && ok {
			v.Error = s
		}
	}
	if au != nil {
		v.AutomationHistory = HistoryURL(au.ID)
		set, err := h.releases.ScheduleSettings(ctx, *st.user, st.site.ID)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if automations.AbilitiesFor(*st.user, *au, set.Paused).RunNow {
			v.CheckAgain = "/studio/schedules/automations/" + au.ID + "/run-now"
		}
	}
	v.CanDismiss = automations.AbilitiesOf(*st.user).Manage
	if run.Job == automations.JobAgentTask {
		if v.Agent, err = h.agentRun(ctx, run); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	if run.SubjectKind == automations.SubjectAutomation {
		if b, ok := builtinOf(au, run); ok && b == automation.BuiltinWeeklyDigest {
			d, err := h.jobs.Digest(ctx, run.SubjectID, run.ID)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			if !d.To.IsZero() {
				for _, s := range d.Sentences() {
					v.Digest = append(v.Digest, p.T(s.Key, s.Args...))
				}
			}
		} else {
			rf, err := h.jobs.RunFindings(ctx, run.SubjectID, run.ID, v.ShowHidden)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			titles := map[string]string{}
			word := func(fs []jobs.Finding) ([]templates.FindingRow, error) {
				var out []templates.FindingRow
				for _, f := range fs {
					row, err := h.findingRow(ctx, f, titles)
					if err != nil {
						return nil, err
					}
					out = append(out, row)
				}
				return out, nil
			}
			groups := []*[]templates.FindingRow{&v.New, &v.Still, &v.Fixed}
			for i, fs := range [][]jobs.Finding{rf.New, rf.Still, rf.Fixed} {
				if *groups[i], err = word(fs); err != nil {
					h.fail(w, r, err)
					return
				}
			}
			v.HiddenCount = rf.Hidden
			if v.ShowHidden { // the hidden ones are among the others: list them apart
				for _, g := range groups[:2] {
					kept := (*g)[:0]
					for _, f := range *g {
						if f.Hidden {
							v.Hidden = append(v.Hidden, f)
						} else {
							kept = append(kept, f)
						}
					}
					*g = kept
				}
				v.HiddenCount = len(v.Hidden)
			}
			v.HasFindings = true
		}
	}
	h.render(w, r, http.StatusOK, templates.RunPageView(h.page(r, "runs.run_title", "schedules"), v))
}

// builtinOf is the built-in job a run is of: its automation's, or for a
// deleted automation's run, unknown.
func builtinOf(au *automations.Automation, run automations.Run) (automation.Builtin, bool) {
	if au == nil {
		return "", run.Job == string(automation.JobBuiltin)
	}
	return au.Builtin()
}

// findingRow words a finding in the reader's language, with the node it is
// in to open in the editor.
func (h *Handler) findingRow(ctx context.Context, f jobs.Finding, titles map[string]string) (templates.FindingRow, error) {
	st := stateOf(ctx)
	p := locales.From(ctx)
	s := f.Sentence()
	args := s.Args
	if s.When != nil {
		args = append(slices.Clone(args), "When", p.DateTime(s.When.In(siteLoc(st.site))))
	}
	row := templates.FindingRow{Key: f.Key, Sentence: p.T(s.Key, args...), Hidden: f.Hidden()}
	if f.NodeID != "" {
		title, ok := titles[f.NodeID]
		if !ok {
			n, err := h.nodes.Node(ctx, *st.user, st.site.ID, f.NodeID)
			switch {
			case err == nil:
				title = n.Body.Title
			case errors.Is(err, engine.ErrNotFound): // deleted since
			default:
				return row, err
			}
			titles[f.NodeID] = title
		}
		if title != "" {
			row.NodeTitle, row.NodeURL = title, "/studio/content/"+f.NodeID
		}
	}
	return row, nil
}

// DismissFinding marks one finding of a run's automation "Not a problem"
// (jobs.Dismiss): hidden until it changes. The answer is the run's page
// again, with a notice.
func (h *Handler) DismissFinding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	run, err := h.aut.Run(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err == nil && run.SubjectKind != automations.SubjectAutomation {
		err = engine.ErrNotFound // a release's run has no findings
	}
	if err == nil {
		err = h.jobs.Dismiss(ctx, *st.user, st.site.ID, run.SubjectID, r.PostFormValue("key"))
	}
	h.answerRun(w, r, err, "runs.dismissed", run.ID)
}
