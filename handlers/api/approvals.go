package api

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/wire"
)

// approvalJSON is an approval request (§10.4) with the release it asks for,
// in the §4.2 shape; Items are the diffs, on a single request only.
type approvalJSON struct {
	ID          string         `json:"id"`
	ReleaseID   string         `json:"releaseId"`
	Status      string         `json:"status"`
	StateHash   string         `json:"stateHash"`
	ExecuteAt   *time.Time     `json:"executeAt,omitempty"`
	RequestedBy release.Actor  `json:"requestedBy"`
	CreatedAt   time.Time      `json:"createdAt"`
	DecidedBy   *release.Actor `json:"decidedBy,omitempty"`
	DecidedAt   *time.Time     `json:"decidedAt,omitempty"`
	Reason      string         `json:"reason,omitempty"`
	CanDecide   bool           `json:"canDecide"` // the caller may approve or deny it
	Release     wire.Release   `json:"release"`
	Items       []itemDiffJSON `json:"items,omitempty"`
}

func approvalOf(u engine.User, v releases.ApprovalView) approvalJSON {
	q := v.Request
	return approvalJSON{ID: q.ID, ReleaseID: q.ReleaseID, Status: q.Status, StateHash: q.StateHash, ExecuteAt: q.ExecuteAt,
		RequestedBy: q.RequestedBy, CreatedAt: q.CreatedAt, DecidedBy: q.DecidedBy, DecidedAt: q.DecidedAt, Reason: q.Reason,
		CanDecide: releases.CanDecide(u, q), Release: wire.ReleaseOf(v.Release.Release)}
}

// Approvals lists the site's requests waiting for a decision in
// releases.WaitingOrder: the soonest due first, those without a time before.
func (h *Handler) Approvals(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := userOf(ctx)
	list, err := h.releases.Approvals(ctx, u, chi.URLParam(r, "siteId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := make([]approvalJSON, 0, len(list))
	for _, v := range list {
		out = append(out, approvalOf(u, v))
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": out})
}

// Approval answers one request with the diff of what it would schedule.
func (h *Handler) Approval(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := userOf(ctx)
	v, err := h.releases.Approval(ctx, u, chi.URLParam(r, "siteId"), chi.URLParam(r, "approvalId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	a := approvalOf(u, v)
	a.Items = itemDiffs(v.Items)
	writeJSON(w, http.StatusOK, a)
}

// Approve carries the release out as the caller (§10.4) and answers it. A
// release that changed after it was asked is refused with state_changed
// (409), and the request is denied.
func (h *Handler) Approve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !h.decodeOptional(w, r, &struct{}{}) {
		return
	}
	u := userOf(ctx)
	a, err := h.releases.Answering(ctx, u, func() (releases.ReleaseRow, error) {
		return h.releases.Approve(ctx, u, chi.URLParam(r, "siteId"), chi.URLParam(r, "approvalId"))
	})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerOf(a))
}

// Deny answers no, with a reason (body {"reason": "…"}); the release, a
// draft again, is the answer.
func (h *Handler) Deny(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body struct {
		Reason string `json:"reason"`
	}
	if !h.decode(w, r, &body) {
		return
	}
	site, id, u := chi.URLParam(r, "siteId"), chi.URLParam(r, "approvalId"), userOf(ctx)
	row, err := h.releases.DenyRelease(ctx, u, site, id, body.Reason)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.ReleaseOf(row.Release))
}
