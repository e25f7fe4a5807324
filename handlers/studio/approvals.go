package studio

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/web/templates"
)

// Approvals lists the requests waiting for a decision.
func (h *Handler) Approvals(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	list, err := h.releases.Approvals(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := make([]templates.ApprovalRow, 0, len(list))
	for _, v := range list {
		row := templates.ApprovalRow{ID: v.Request.ID, Title: releaseTitle(v.Release), RequestedBy: v.Request.RequestedBy.Name,
			Items: len(v.Release.Items)}
		if v.Release.ExecuteAt != nil {
			tp := timePair(r, *v.Release.ExecuteAt, st.site.TimeZone)
			row.When = &tp
		}
		rows = append(rows, row)
	}
	h.render(w, r, http.StatusOK, templates.ApprovalsPage(h.page(r, "approval.title", "approvals"), rows))
}

// ApprovalPage shows one request: the release exactly as it would be
// scheduled, each item's live base against its pinned target.
func (h *Handler) ApprovalPage(w http.ResponseWriter, r *http.Request) {
	h.renderApproval(w, r, http.StatusOK, templates.ApprovalPage{ID: chi.URLParam(r, "id")})
}

func (h *Handler) renderApproval(w http.ResponseWriter, r *http.Request, status int, a templates.ApprovalPage) {
	ctx := r.Context()
	st := stateOf(ctx)
	v, err := h.releases.Approval(ctx, *st.user, st.site.ID, a.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a.Latest = loadLatest(status, "/studio/approvals/"+a.ID)
	a.ReleaseID, a.Title, a.RequestedBy, a.RequestedAt = v.Release.ID, releaseTitle(v.Release), v.Request.RequestedBy.Name, v.Request.CreatedAt
	a.State = string(v.Release.State)
	a.CanDecide = releases.CanDecide(*st.user, v.Request)
	a.Own = v.Request.RequestedBy.ID == st.user.ID
	if at := v.Request.ExecuteAt; at != nil {
		tp := timePair(r, *at, st.site.TimeZone)
		a.When = &tp
	}
	loc := siteLoc(st.site)
	for _, d := range v.Items {
		it := reviewOf(r, v.Release.ID, d, loc)
		if from, to, moved := d.AddressChange(); moved {
			it.AddressFrom, it.AddressTo = from, to
		}
		a.Items = append(a.Items, it)
	}
	h.render(w, r, status, templates.Approval(h.page(r, "approval.page_title", "approvals"), a))
}

// Approve carries the release out as this person.
func (h *Handler) Approve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	rel, err := h.releases.Approve(ctx, *st.user, st.site.ID, id)
	done := "approval.approved"
	if err == nil && rel.State == release.StatePublished {
		done = "gates.approved_published" // an on-approval release (a gate change) runs at once
	}
	if h.backToCalendar(w, r, err, done) { // decided inline on the Schedules page
		return
	}
	if msg, _, status, ok := refusal(ctx, err); ok {
		if e, _ := engine.AsError(err); e.Code == engine.CodeStateChanged {
			// The request was denied as it should be; say so where it lives.
			h.flash(r, "error.state_changed")
			http.Redirect(w, r, to(r, "/studio/schedules"), http.StatusSeeOther)
			return
		}
		h.renderApproval(w, r, status, templates.ApprovalPage{ID: id, Error: msg})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, done)
	http.Redirect(w, r, to(r, "/studio/releases/"+rel.ID), http.StatusSeeOther)
}

// Deny answers no, with a reason.
func (h *Handler) Deny(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	reason := r.PostFormValue("reason")
	err := h.releases.Deny(ctx, *st.user, st.site.ID, id, reason)
	if h.backToCalendar(w, r, err, "approval.denied") { // decided inline on the Schedules page
		return
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderApproval(w, r, status, templates.ApprovalPage{ID: id, Reason: reason, Errors: fields, Error: msg})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "approval.denied")
	http.Redirect(w, r, to(r, "/studio/approvals"), http.StatusSeeOther)
}
