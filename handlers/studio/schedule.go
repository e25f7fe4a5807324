package studio

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/locales"
	"studio/web/templates"
)

// ScheduleForm shows the "Schedule…" page of a node.
func (h *Handler) ScheduleForm(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	n, err := h.nodes.Node(r.Context(), *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f := templates.ScheduleForm{NodeID: n.ID, NodeTitle: n.Body.Title, Rev: n.Rev, Time: "09:00"}
	f.Date = h.eng.Now().In(siteLoc(st.site)).AddDate(0, 0, 1).Format("2006-01-02") // tomorrow morning is the usual pick
	if n.Held != nil {
		// Scheduling it again is an overlap: allowed and flagged (D15).
		f.Held = true
		if n.Held.At != nil {
			at := n.Held.At.In(siteLoc(st.site))
			f.HeldAt = &at
		}
	}
	h.renderSchedule(w, r, http.StatusOK, f)
}

func (h *Handler) renderSchedule(w http.ResponseWriter, r *http.Request, status int, f templates.ScheduleForm) {
	st := stateOf(r.Context())
	if n, err := h.nodes.Node(r.Context(), *st.user, st.site.ID, f.NodeID); err == nil {
		f.CanApprove = h.releases.NodeAbilities(*st.user, n).Approves
	}
	f.MinDate = h.eng.Now().In(siteLoc(st.site)).Format("2006-01-02")
	f.Latest = loadLatest(status, "/studio/content/"+f.NodeID+"/schedule")
	// What the dependency closure adds (§6.1 step 2), before confirming;
	// a closure that would be refused says so here already.
	added, err := h.releases.ScheduleClosure(r.Context(), *st.user, st.site.ID, f.NodeID)
	if msg, _, _, ok := refusal(r.Context(), err); ok && f.Error == "" {
		f.Error = msg
	}
	for _, c := range added {
		f.Closure = append(f.Closure, templates.ReleaseItemView{NodeID: c.NodeID, Title: c.Title, Kind: string(c.Kind),
			Op: string(release.OpSet), AddedBecause: c.Because})
	}
	if f.Errors["date"] == "" && f.Errors["time"] == "" {
		// A refused date or time has its error under its field: no preview.
		f.Preview = h.preview(r, f.Date, f.Time)
	}
	h.render(w, r, status, templates.Schedule(h.page(r, "schedule.page_title", "content"), f))
}

// preview is when a date and time in the site's zone would schedule a
// release, or, for a time the engine would refuse (passed, within the
// minute, beyond the horizon), only why. A date or time still being typed
// (one that does not parse) previews nothing.
func (h *Handler) preview(r *http.Request, date, clock string) templates.SchedulePreviewView {
	ctx := r.Context()
	st := stateOf(ctx)
	if _, err := localtime.ParseDateAndTime(date, clock); err != nil {
		return templates.SchedulePreviewView{}
	}
	t, err := h.releases.CheckScheduleTime(st.site, date, clock)
	if msg, fields, _, ok := refusal(ctx, err); ok {
		return templates.SchedulePreviewView{Error: msg + fields["time"] + fields["date"]}
	}
	if err != nil {
		return templates.SchedulePreviewView{}
	}
	v := templates.SchedulePreviewView{Time: timePair(r, t.At, st.site.TimeZone)}
	p := locales.From(ctx)
	if t.Gap { // "02:30 does not exist on 29 March in Berlin; it runs at 03:30"
		at := t.At.In(siteLoc(st.site))
		v.Notes = append(v.Notes, p.T("schedule.gap", "Time", clock, "Date", p.DayMonth(at), "City", p.ZoneCity(st.site.TimeZone),
			"At", locales.Clock(at)))
	}
	if t.Soon {
		v.Notes = append(v.Notes, p.T("schedule.soon", "Minutes", int(releases.SoonWarning/time.Minute)))
	}
	return v
}

// SchedulePreview is the htmx fragment under the date and time fields.
func (h *Handler) SchedulePreview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	h.render(w, r, http.StatusOK, templates.SchedulePreview(h.preview(r, q.Get("date"), q.Get("time"))))
}

// Schedule creates the release.
func (h *Handler) Schedule(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	in := releases.ScheduleInput{SiteID: st.site.ID, NodeID: chi.URLParam(r, "id"), ExpectedRev: formRev(r),
		Date: r.PostFormValue("date"), Time: r.PostFormValue("time")}
	rel, err := h.releases.ScheduleNode(ctx, *st.user, in)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		f := templates.ScheduleForm{NodeID: in.NodeID, Rev: in.ExpectedRev, Date: in.Date, Time: in.Time, Errors: fields, Error: msg}
		if n, err := h.nodes.Node(ctx, *st.user, st.site.ID, in.NodeID); err == nil {
			f.NodeTitle = n.Body.Title
		}
		h.renderSchedule(w, r, status, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rel.State == release.StateScheduled {
		h.flash(r, "schedule.done")
	} else {
		h.flash(r, "schedule.sent_for_approval")
	}
	http.Redirect(w, r, to(r, "/studio/schedules"), http.StatusSeeOther)
}

func releaseTitle(rel releases.ReleaseRow) string {
	if rel.Title != "" {
		return rel.Title
	}
	return rel.ID
}

// ReleasePage shows one release. ?confirm=publish-now (cancel,
// unschedule) is that action's confirm step for browsers without
// JavaScript: the confirmation dialog comes open in the page.
func (h *Handler) ReleasePage(w http.ResponseWriter, r *http.Request) {
	h.renderReleaseView(w, r, http.StatusOK, chi.URLParam(r, "id"), templates.ReleaseView{Confirm: r.URL.Query().Get("confirm")})
}

func (h *Handler) renderRelease(w http.ResponseWriter, r *http.Request, status int, id, errMsg string) {
	h.renderReleaseView(w, r, status, id, templates.ReleaseView{Error: errMsg})
}

func (h *Handler) renderReleaseForm(w http.ResponseWriter, r *http.Request, status int, id, errMsg string,
	moveErrors templates.FieldErrors, moveDate, moveTime string) {
	h.renderReleaseView(w, r, status, id, templates.ReleaseView{Error: errMsg, MoveErrors: moveErrors, MoveDate: moveDate, MoveTime: moveTime})
}

// renderReleaseView shows the release as it is now; what seed holds (a
// refusal, the move form's typed values and errors, the open Publish now
// confirmation) stays.
func (h *Handler) renderReleaseView(w http.ResponseWriter, r *http.Request, status int, id string, seed templates.ReleaseView) {
	ctx := r.Context()
	st := stateOf(ctx)
	rel, err := h.releases.Release(ctx, *st.user, st.site.ID, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	nodes, err := h.nodes.Nodes(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	byID := map[string]releases.NodeDetail{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	can, err := h.releases.AbilitiesOfRelease(ctx, *st.user, rel)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := templates.ReleaseView{ID: rel.ID, Title: releaseTitle(rel), State: string(rel.State), Rev: rel.Rev,
		By: rel.CreatedBy.Name, Error: seed.Error, Outcome: outcomeSentence(ctx, rel),
		Latest:        loadLatest(status, "/studio/releases/"+rel.ID),
		CanUnschedule: can.Unschedule,
		CanCancel:     can.Cancel,
		CanMove:       can.Move,
		CanUndo:       can.Undo,
		MoveErrors:    seed.MoveErrors,
		Confirm:       seed.Confirm}
	if rel.State == release.StateCanceled {
		v.UndoCancelSeconds = h.undoCancelOffer(r, rel.ID)
	}
	if v.Approval, err = h.approvalCard(r, rel); err != nil {
		h.fail(w, r, err)
		return
	}
	if can.PublishNow {
		v.CanPublishNow, v.PublishNowErrors = true, seed.PublishNowErrors
	}
	if rel.ExecuteAt != nil {
		tp := timePair(r, *rel.ExecuteAt, st.site.TimeZone)
		v.When = &tp
		v.MoveDate, v.MoveTime = tp.At.Format("2006-01-02"), tp.At.Format("15:04")
	}
	if seed.MoveDate != "" {
		v.MoveDate, v.MoveTime = seed.MoveDate, seed.MoveTime // what the person typed, beside its error
	}
	if rel.State == release.StateConflict { // the three-way view and its ways on (§6.4)
		if v.Conflict, err = h.conflictPanel(r, rel, seed.Conflict); err != nil {
			h.fail(w, r, err)
			return
		}
		v.CanCancel = false // the view offers it, with what it means
	}
	history, err := h.releases.ReleaseHistory(ctx, *st.user, st.site.ID, rel.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.ByAgent = rel.CreatedBy.Kind == "agent"
	for _, a := range history {
		v.History = append(v.History, templates.HistoryRow{At: a.At.In(siteLoc(st.site)), Who: actorName(ctx, a.Actor),
			Action: "history." + strings.ReplaceAll(a.Action, ".", "_")})
		if v.ByAgent && v.RunID == "" && a.Actor.Kind == "agent" {
			v.RunID = a.RunID // the run that proposed it
		}
	}
	v.Items = releaseItemViews(rel, byID)
	if err := h.addItemNotes(r, rel, v.Items); err != nil { // closure reasons and overlaps (drafts.go)
		h.fail(w, r, err)
		return
	}
	h.render(w, r, status, templates.Release(h.page(r, "release.page_title", "schedules"), v))
}

// outcomeSentence says how a finished release ended.
func outcomeSentence(ctx context.Context, rel releases.ReleaseRow) string {
	o := rel.Outcome
	if o == nil {
		return ""
	}
	p := locales.From(ctx)
	loc, err := localtime.LoadZone(stringOr(rel.When, "UTC"))
	if err != nil {
		loc = time.UTC
	}
	at := p.DateTime(o.At.In(loc))
	switch o.Kind {
	case "published":
		if o.By != nil { // a person's Publish now: theirs, at the real time
			return p.T("outcome.published_now", "When", at, "Name", o.By.Name)
		}
		late := int64(0)
		if o.LatenessSeconds != nil {
			late = *o.LatenessSeconds
		}
		if late == 0 {
			return p.T("outcome.published_on_time", "When", at)
		}
		return p.T("outcome.published", "When", at, "Late", p.Duration(time.Duration(late)*time.Second))
	case "expired":
		switch o.Reason { // §10.6: the approver can no longer approve it
		case "approval_lost", releases.ReasonCreatorRemoved, releases.ReasonAutoWindowEnded:
			return p.T("outcome.expired_"+o.Reason, "When", at)
		}
		return p.T("outcome.expired", "When", at)
	case "canceled":
		if o.Reason == "node_gone" || o.Reason == "site_gone" { // by the system (§10.6)
			return p.T("outcome.canceled_gone", "When", at)
		}
		return p.T("outcome.canceled", "When", at)
	case "missed", "conflict":
		return p.T("outcome."+o.Kind, "When", at)
	default:
		if o.Code == "dependency_missing" {
			return p.T("outcome.failed_dependency_missing", "When", at, "Node", o.Message)
		}
		if o.Code == releases.CodeSlugTaken { // Message is the address
			return p.T("outcome.failed_slug_taken", "When", at, "Node", o.Message)
		}
		return p.T("outcome.failed", "When", at)
	}
}

func stringOr(w *release.When, fallback string) string {
	if w == nil || w.TimeZone == "" {
		return fallback
	}
	return w.TimeZone
}

// Unschedule turns a release back into a draft; its page then offers, for
// a few seconds, to schedule it again at the time it had (undoOffer).
func (h *Handler) Unschedule(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	var at *time.Time
	if rel, err := h.releases.Release(ctx, *st.user, st.site.ID, chi.URLParam(r, "id")); err == nil && r.PostFormValue("next") == "" {
		at = rel.ExecuteAt // none: it was to publish when approved, and Undo has no time to put back
	}
	h.changeRelease(w, r, h.releases.Unschedule, "release.unscheduled", func(id string) {
		if at != nil {
			h.offerUndo(r, id, *at)
		}
	})
}

// Cancel ends a release without publishing; its page then offers, for a
// few seconds, to take the Cancel back (undoCancelOffer).
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) {
	h.changeRelease(w, r, h.releases.Cancel, "release.canceled", func(id string) { h.offerUndoCancel(r, id) })
}

// UndoCancel takes a Cancel back (the engine says whether it still may).
func (h *Handler) UndoCancel(w http.ResponseWriter, r *http.Request) {
	h.changeRelease(w, r, h.releases.UndoCancel, "release.uncanceled", nil)
}

// changeRelease makes change and goes to the release's page with the
// doneKey notice; done, when set, runs after the change succeeded.
func (h *Handler) changeRelease(w http.ResponseWriter, r *http.Request,
	change func(context.Context, engine.User, string, string, int64) error, doneKey string, done func(id string)) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	err := change(ctx, *st.user, st.site.ID, id, formRev(r))
	if h.backToCalendar(w, r, err, doneKey) { // from an item's menu on the Schedules page
		return
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		for _, m := range fields {
			msg = m
		}
		h.renderRelease(w, r, status, id, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, doneKey)
	if done != nil {
		done(id)
	}
	next := "/studio/releases/" + id
	if n := r.PostFormValue("next"); n != "" {
		next = safeNext(n) // "Unschedule and edit" goes back to the editor
	}
	http.Redirect(w, r, to(r, next), http.StatusSeeOther)
}

// Move gives the release a new time (D4).
func (h *Handler) Move(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	date, clock := r.PostFormValue("date"), r.PostFormValue("time")
	rel, err := h.releases.Move(ctx, *st.user, st.site.ID, id, formRev(r), date, clock)
	done := "release.moved"
	if err == nil && rel.State != release.StateScheduled {
		done = "release.moved_for_approval"
	}
	if h.backToCalendar(w, r, err, done) { // the Agenda's Move to… dialog
		return
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderReleaseForm(w, r, status, id, msg, fields, date, clock)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, done)
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}

// PublishNow runs a missed, expired or scheduled release now, as the
// person's manual run (RFC §8.6, §10.6, §13). The ticked box is the
// confirmation of the page without JavaScript (the dialog asks for it
// too): a form without it changes nothing.
func (h *Handler) PublishNow(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	if r.PostFormValue("confirm") != "yes" {
		h.renderReleaseView(w, r, http.StatusUnprocessableEntity, id, templates.ReleaseView{Confirm: "publish-now",
			PublishNowErrors: templates.FieldErrors{"confirm": locales.T(ctx, "error.confirm_required")}})
		return
	}
	_, err := h.sched.PublishNow(ctx, *st.user, st.site.ID, id, formRev(r))
	if msg, _, status, ok := refusal(ctx, err); ok {
		// The page shows the release as it is now: after a run that
		// published nothing, its outcome says why, beside this sentence.
		h.renderRelease(w, r, status, id, msg)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "release.published_now")
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}

// approvalCard is the release's Approval card (§15.1): its approval, or the
// request waiting for one; nil when it has neither.
func (h *Handler) approvalCard(r *http.Request, rel releases.ReleaseRow) (*templates.ApprovalCard, error) {
	st := stateOf(r.Context())
	loc := siteLoc(st.site)
	if a := rel.Approval; a != nil && rel.State != release.StateAwaitingApproval {
		c := &templates.ApprovalCard{Approved: true, Automatic: a.Kind == release.ApprovalAuto, By: a.By.Name, At: a.At.In(loc)}
		if a.ExecuteAt != nil {
			at := a.ExecuteAt.In(loc)
			c.For = &at
		}
		if a.ApprovalID != "" {
			c.ReviewURL = "/studio/approvals/" + a.ApprovalID
		}
		return c, nil
	}
	if rel.State != release.StateAwaitingApproval {
		return nil, nil
	}
	qs, err := h.releases.WaitingRequestsOf(r.Context(), *st.user, st.site.ID, []string{rel.ID})
	if err != nil || len(qs) == 0 {
		return nil, err
	}
	return &templates.ApprovalCard{By: qs[0].RequestedBy.Name, At: qs[0].CreatedAt.In(loc), ReviewURL: "/studio/approvals/" + qs[0].ID}, nil
}
