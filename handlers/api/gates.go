package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"studio/engine/gates"
	"studio/handlers/wire"
	"time"

	"github.com/go-chi/chi/v5"
)

// gatesBody is POST …/gates (§13): a page's or an entry's gates as the
// caller last saw it at expectedRev. from and until are RFC 3339 instants,
// null to clear the gate, or left out to keep it.
type gatesBody struct {
	NodeID       string          `json:"nodeId"`
	ExpectedRev  int64           `json:"expectedRev"`
	From         json.RawMessage `json:"from"`
	Until        json.RawMessage `json:"until"`
	Apply        string          `json:"apply"`
	IncludeEdits bool            `json:"includeEdits"`
}

// liftBody is POST …/gates/{nodeId}/lift (§13, D8; §12 lift_embargo):
// from left out or null lifts the embargo now; an RFC 3339 instant moves
// it earlier to that time.
type liftBody struct {
	ExpectedRev  int64           `json:"expectedRev"`
	Reason       string          `json:"reason"`
	From         json.RawMessage `json:"from"`
	IncludeEdits bool            `json:"includeEdits"`
}

// SetGates changes a node's gates (§7.6, §13 POST …/gates): body {nodeId,
// expectedRev, from?, until?, apply: "with-next-publish" | "now",
// includeEdits?}. On a node that is not live, and with
// "with-next-publish", the working copy is saved; on a live node "now"
// publishes the gate-only change as a one-item release (at once for
// someone who may approve releases, otherwise sent for approval). A live
// node with other unpublished edits answers 422 other_edits unless
// includeEdits is true.
func (h *Handler) SetGates(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body gatesBody
	if !h.decode(w, r, &body) {
		return
	}
	switch {
	case body.NodeID == "":
		h.badRequest(w, ctx, CodeBadRequest, "nodeId")
		return
	case body.ExpectedRev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "expectedRev")
		return
	case body.Apply == "":
		h.badRequest(w, ctx, CodeBadRequest, "apply")
		return
	case len(body.From) == 0 && len(body.Until) == 0:
		h.badRequest(w, ctx, CodeNothingToChange, "")
		return
	}
	in := gates.GateInput{SiteID: chi.URLParam(r, "siteId"), NodeID: body.NodeID, ExpectedRev: body.ExpectedRev,
		Apply: body.Apply, IncludeEdits: body.IncludeEdits}
	for _, g := range []struct {
		name string
		raw  json.RawMessage
		dst  *gates.GateTime
	}{{"from", body.From, &in.From}, {"until", body.Until, &in.Until}} {
		t, ok := gateTime(g.raw)
		if !ok {
			h.badRequest(w, ctx, CodeBadInstant, g.name)
			return
		}
		*g.dst = t
	}
	res, err := h.gates.SetGates(ctx, userOf(ctx), in)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.GateOf(res))
}

// LiftEmbargo lifts the embargo in force on a live node (D8, §13 POST
// …/gates/{nodeId}/lift): body {expectedRev, reason, from?, includeEdits?};
// a person who may approve releases, with a reason, audited. from (an
// instant) moves the embargo earlier instead of removing it: it must be
// ahead (gate_in_past) and before the embargo in force (lift_not_earlier).
func (h *Handler) LiftEmbargo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body liftBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.ExpectedRev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "expectedRev")
		return
	}
	from, ok := gateTime(body.From)
	if !ok {
		h.badRequest(w, ctx, CodeBadInstant, "from")
		return
	}
	res, err := h.gates.LiftEmbargo(ctx, userOf(ctx), gates.LiftInput{SiteID: chi.URLParam(r, "siteId"),
		NodeID: chi.URLParam(r, "nodeId"), ExpectedRev: body.ExpectedRev, Reason: body.Reason, From: from, IncludeEdits: body.IncludeEdits})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.GateOf(res))
}

// gateTime reads one gate of the body: absent keeps it, null clears it, an
// RFC 3339 string sets it; anything else is not an instant.
func gateTime(raw json.RawMessage) (gates.GateTime, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return gates.KeepGate(), true
	case bytes.Equal(raw, []byte("null")):
		return gates.ClearGate(), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return gates.GateTime{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return gates.GateTime{}, false
	}
	return gates.GateAt(t), true
}
