package studio

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/gates"
	"studio/engine/model/gate"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/locales"
	"studio/web/templates"
)

// The editor's Schedule card (RFC §7.6, §10.8 D8): a page's or an entry's
// gates, "Visible from…" and "Hide after…", entered as a date and a time in
// the site's zone. The engine decides what saving does (SetGates): saved
// with the working copy of a node that is not live, published at once as a
// one-item release on a live node by someone who may approve releases, or
// sent for approval. Lifting a live embargo early is LiftEmbargo.

// gateDone is the flash of each outcome of a gate change.
var gateDone = map[string]string{
	gates.GateSaved:            "gates.saved",
	gates.GateUnchanged:        "gates.unchanged",
	gates.GatePublished:        "gates.published",
	gates.GateAwaitingApproval: "gates.approval_pending",
	gates.GateScheduled:        "gates.scheduled",
}

// gatesCard builds the Schedule card of a saved page or entry, as it is now.
func (h *Handler) gatesCard(ctx context.Context, n releases.NodeDetail) (*templates.GatesCard, error) {
	if n.Kind != release.KindPage && n.Kind != release.KindContentEntry {
		return nil, nil
	}
	st := stateOf(ctx)
	v, err := h.gates.NodeGates(ctx, *st.user, st.site.ID, n.ID)
	if err != nil {
		return nil, err
	}
	loc := siteLoc(st.site)
	g := &templates.GatesCard{NodeID: n.ID, Kind: string(n.Kind), Title: n.Body.Title, Rev: n.Rev,
		Live: v.Live != nil, Pending: v.Pending, Approves: h.releases.NodeAbilities(*st.user, n).Approves,
		HasFrom: v.From != nil, HasUntil: v.Until != nil}
	g.FromDate, g.FromTime = wallFields(v.From, loc)
	g.UntilDate, g.UntilTime = wallFields(v.Until, loc)
	in := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		x := t.In(loc)
		return &x
	}
	if v.Live != nil {
		from, until := v.Live.Gates()
		switch {
		case v.LiveState == gate.Embargoed:
			g.State, g.StateAt = "embargoed", in(from)
		case v.LiveState == gate.Expired:
			g.State, g.StateAt = "expired", in(until)
		case until != nil:
			g.State, g.StateAt = "open_until", in(until)
		default:
			g.State = "open"
		}
	} else {
		switch {
		case v.From != nil:
			g.State, g.StateAt = "not_live_embargo", in(v.From)
		case v.Until != nil:
			g.State, g.StateAt = "not_live_expiry", in(v.Until)
		default:
			g.State = "not_live"
		}
	}
	if n.Held != nil {
		g.Locked, g.LockedAt = true, in(n.Held.At)
	}
	if g.Approves && v.LiftableUntil != nil && n.Held == nil {
		g.CanLift, g.LiftUntil = true, in(v.LiftableUntil)
		g.LiftDate, g.LiftTime = wallFields(v.LiftableUntil, loc) // "Move it earlier to…" starts from the embargo's time
	}
	return g, nil
}

// wallFields shows an instant as the date and time fields of the site's
// zone; empty when there is no gate.
func wallFields(t *time.Time, loc *time.Location) (date, clock string) {
	if t == nil {
		return "", ""
	}
	x := t.In(loc)
	return x.Format("2006-01-02"), x.Format("15:04")
}

// formGate reads one gate of the card's form: both fields left out keeps
// the gate (a Clear form sends neither), both empty clears it.
func formGate(r *http.Request, name string) gates.GateTime {
	_, hasDate := r.PostForm[name+"_date"]
	_, hasTime := r.PostForm[name+"_time"]
	if !hasDate && !hasTime {
		return gates.KeepGate()
	}
	return gates.GateWall(r.PostFormValue(name+"_date"), r.PostFormValue(name+"_time"))
}

// SaveGates saves the card's gates: POST /studio/content/{id}/gates with
// from_date, from_time, until_date, until_time (or clear=from|until), and
// include_edits=yes after the person saw the whole diff.
func (h *Handler) SaveGates(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	in := gates.GateInput{SiteID: st.site.ID, NodeID: id, ExpectedRev: formRev(r), Apply: gates.GateApplyNow,
		IncludeEdits: r.PostFormValue("include_edits") == "yes"}
	in.From, in.Until = formGate(r, "from"), formGate(r, "until")
	switch r.PostFormValue("clear") {
	case "from":
		in.From = gates.ClearGate()
	case "until":
		in.Until = gates.ClearGate()
	}
	res, err := h.gates.SetGates(ctx, *st.user, in)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.gatesRefused(w, r, status, id, msg, fields, func(g *templates.GatesCard) error {
			g.Rev = in.ExpectedRev // as the person saw it: a stale change is not saved over by a retry
			for _, f := range []struct {
				name       string
				date, time *string
			}{{"from", &g.FromDate, &g.FromTime}, {"until", &g.UntilDate, &g.UntilTime}} {
				if gt := map[string]gates.GateTime{"from": in.From, "until": in.Until}[f.name]; gt.Change {
					*f.date, *f.time = gt.Date, gt.Time
				}
			}
			e, _ := engine.AsError(err)
			if e.Code != gates.CodeOtherEdits {
				return nil
			}
			in.IncludeEdits = true
			plan, perr := h.gates.PlanGates(ctx, *st.user, in)
			if perr != nil {
				return nil // it moved meanwhile: the sentence stands without the offer
			}
			hidden := []templates.HiddenField{{Name: "rev", Value: r.PostFormValue("rev")}}
			for _, k := range []string{"from_date", "from_time", "until_date", "until_time", "clear"} {
				if vs, ok := r.PostForm[k]; ok && len(vs) > 0 {
					hidden = append(hidden, templates.HiddenField{Name: k, Value: vs[0]})
				}
			}
			g.IncludeEdits = &templates.IncludeEdits{Action: "/studio/content/" + id + "/gates", Hidden: hidden,
				Item: itemReview(ctx, plan.Diff(), siteLoc(st.site)), Approves: g.Approves}
			return nil
		})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, gateDone[res.Status])
	http.Redirect(w, r, to(r, "/studio/content/"+id), http.StatusSeeOther)
}

// LiftEmbargo lifts the live embargo (D8): POST
// /studio/content/{id}/gates/lift with the reason, and lift=now (the
// default) or lift=earlier with lift_date and lift_time, the new time in
// the site's zone.
func (h *Handler) LiftEmbargo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	in := gates.LiftInput{SiteID: st.site.ID, NodeID: id, ExpectedRev: formRev(r), Reason: r.PostFormValue("reason"),
		IncludeEdits: r.PostFormValue("include_edits") == "yes"}
	earlier := r.PostFormValue("lift") == "earlier"
	liftDate, liftTime := r.PostFormValue("lift_date"), r.PostFormValue("lift_time")
	var err error
	switch {
	case earlier && liftDate == "" && liftTime == "":
		err = &engine.Error{Code: "bad_date", Field: "from"} // "earlier" without a time is not "now"
	case earlier:
		in.From = gates.GateWall(liftDate, liftTime)
		fallthrough
	default:
		_, err = h.gates.LiftEmbargo(ctx, *st.user, in)
	}
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.gatesRefused(w, r, status, id, "", nil, func(g *templates.GatesCard) error {
			e, _ := engine.AsError(err)
			if earlier {
				g.LiftEarlier, g.LiftDate, g.LiftTime = true, liftDate, liftTime
			}
			switch {
			case e.Code == releases.CodeReason || e.Field == "from":
				g.ConfirmLift, g.LiftErrors, g.LiftReason = g.CanLift, fields, in.Reason
				if !g.CanLift {
					g.Error = fields[e.Field]
				}
			case e.Code == gates.CodeOtherEdits:
				g.Error = msg
				plan, perr := h.gates.PlanLift(ctx, *st.user, in)
				if perr != nil {
					return nil
				}
				hidden := []templates.HiddenField{{Name: "rev", Value: r.PostFormValue("rev")}, {Name: "reason", Value: in.Reason}}
				if earlier {
					hidden = append(hidden, templates.HiddenField{Name: "lift", Value: "earlier"},
						templates.HiddenField{Name: "lift_date", Value: liftDate}, templates.HiddenField{Name: "lift_time", Value: liftTime})
				}
				g.IncludeEdits = &templates.IncludeEdits{Action: "/studio/content/" + id + "/gates/lift", Hidden: hidden,
					Item: itemReview(ctx, plan.Diff(), siteLoc(st.site)), Approves: true}
			default:
				g.Error = msg
			}
			return nil
		})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if earlier {
		h.flash(r, "gates.lifted_earlier")
	} else {
		h.flash(r, "gates.lifted")
	}
	http.Redirect(w, r, to(r, "/studio/content/"+id), http.StatusSeeOther)
}

// gatesRefused shows the editor again, as the node is now, with the card
// saying why: msg in the card, or fields beside the gates; then seed
// adjusts the card (the values as typed, the include-edits offer).
func (h *Handler) gatesRefused(w http.ResponseWriter, r *http.Request, status int, id, msg string, fields templates.FieldErrors,
	seed func(*templates.GatesCard) error) {
	ctx := r.Context()
	st := stateOf(ctx)
	n, err := h.nodes.Node(ctx, *st.user, st.site.ID, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := h.nodeForm(ctx, n)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if f.Gates, err = h.gatesCard(ctx, n); err != nil {
		h.fail(w, r, err)
		return
	}
	if f.Gates == nil {
		h.fail(w, r, engine.ErrNotFound)
		return
	}
	f.Gates.Error, f.Gates.Errors = msg, fields
	f.Gates.Latest = loadLatest(status, "/studio/content/"+id)
	if err := seed(f.Gates); err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderEditor(w, r, status, f)
}

// itemReview lays one item's diff out as the approval page does: the
// fields an editor reads, live against target, and the text line by line.
func itemReview(ctx context.Context, d releases.ItemDiff, loc *time.Location) templates.ItemReview {
	var base, target content.Body
	if d.Base != nil {
		base = *d.Base
	}
	if d.Target != nil {
		target = *d.Target
	}
	it := templates.ItemReview{Title: target.Title, Kind: string(d.Item.NodeKind),
		Fields: fieldChanges(locales.From(ctx), loc, base, target)}
	if d.Item.Base != nil {
		it.BaseRev = d.Item.Base.Rev
	}
	if d.Item.Target != nil {
		it.Rev = d.Item.Target.Rev
	}
	for _, l := range content.DiffLines(base.Text, target.Text) {
		it.Body = append(it.Body, templates.DiffRow{Op: l.Op, Text: l.Text})
	}
	return it
}

// fieldChanges is the fields of a body an editor or an approver compares,
// base against target: the gates too, since they are content (§7.6).
func fieldChanges(p *locales.Printer, loc *time.Location, base, target content.Body) []templates.FieldChange {
	at := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return p.DateTime(t.In(loc))
	}
	status := func(b content.Body) string {
		if b.Status == "" {
			return ""
		}
		return p.T("status." + string(b.Status))
	}
	bFrom, bUntil := base.Gates()
	tFrom, tUntil := target.Gates()
	return []templates.FieldChange{
		{LabelKey: "editor.title", Base: base.Title, Target: target.Title},
		{LabelKey: "editor.slug", Base: base.Slug, Target: target.Slug},
		{LabelKey: "editor.status", Base: status(base), Target: status(target)},
		{LabelKey: "editor.summary", Base: base.Summary, Target: target.Summary},
		{LabelKey: "approval.date", Base: at(base.PublishedAt), Target: at(target.PublishedAt)},
		{LabelKey: "gates.field_from", Base: at(bFrom), Target: at(tFrom)},
		{LabelKey: "gates.field_until", Base: at(bUntil), Target: at(tUntil)},
	}
}
