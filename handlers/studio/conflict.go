package studio

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/locales"
	"studio/web/templates"
)

// Conflicts (RFC §6.4) and "Edit and re-approve" (§6.2): the release page's
// three-way view with Re-pin, Re-base and Cancel, and the editor's path to
// change a held node.

// conflictPanel builds the three-way view of a conflict release; seed
// carries what the person typed and its errors after a refusal.
func (h *Handler) conflictPanel(r *http.Request, rel releases.ReleaseRow, seed *templates.ConflictPanel) (*templates.ConflictPanel, error) {
	ctx := r.Context()
	st := stateOf(ctx)
	v, err := h.releases.ConflictView(ctx, *st.user, st.site.ID, rel.ID)
	if err != nil {
		return nil, err
	}
	can, err := h.releases.AbilitiesOfRelease(ctx, *st.user, rel)
	if err != nil {
		return nil, err
	}
	loc := siteLoc(st.site)
	now := h.eng.Now().In(loc)
	c := &templates.ConflictPanel{
		CanResolve: can.ResolveConflict,
		Approves:   can.Approves,
		CanRebase:  v.Rebase.Possible,
		RebaseWhy:  rebaseWhy(ctx, v.Rebase),
		MinDate:    now.Format("2006-01-02"),
	}
	// The time has passed (that is when a conflict is found): suggest the
	// next whole hour at least a quarter of an hour away, or keep the
	// release's own time if it is still ahead (an early Publish now).
	next := now.Add(15 * time.Minute)
	next = time.Date(next.Year(), next.Month(), next.Day(), next.Hour()+1, 0, 0, 0, loc)
	if rel.ExecuteAt != nil && rel.ExecuteAt.After(now.Add(release.MinLead)) {
		next = rel.ExecuteAt.In(loc)
	}
	c.Date, c.Time = next.Format("2006-01-02"), next.Format("15:04")
	if seed != nil {
		c.Date, c.Time, c.Errors = seed.Date, seed.Time, seed.Errors
	}
	p := locales.From(ctx)
	for _, n := range v.Nodes {
		nv := templates.ConflictNodeView{NodeID: n.Item.NodeID, Title: n.Title, Kind: string(n.Item.NodeKind),
			WorkingRev: n.Working.Rev}
		if n.Item.Base != nil {
			nv.BaseRev = n.Item.Base.Rev
		}
		if n.Live != nil {
			nv.LiveRev = n.Live.Rev
		}
		if n.Item.Target != nil {
			nv.TargetRev = n.Item.Target.Rev
		}
		if !n.Rebase.Possible {
			nv.RebaseWhy = rebaseWhy(ctx, n.Rebase)
		}
		base, live, target := bodyOrZero(n.BaseToLive.Base), bodyOrZero(n.BaseToLive.Target), bodyOrZero(n.BaseToTarget.Target)
		status := func(b content.Body) string {
			if b.Status == "" {
				return ""
			}
			return p.T("status." + string(b.Status))
		}
		date := func(b content.Body) string {
			if b.PublishedAt == nil {
				return ""
			}
			return p.DateTime(b.PublishedAt.In(loc))
		}
		nv.Fields = []templates.ThreeWayField{
			{LabelKey: "editor.title", Base: base.Title, Live: live.Title, Target: target.Title},
			{LabelKey: "editor.slug", Base: base.Slug, Live: live.Slug, Target: target.Slug},
			{LabelKey: "editor.status", Base: status(base), Live: status(live), Target: status(target)},
			{LabelKey: "editor.summary", Base: base.Summary, Live: live.Summary, Target: target.Summary},
			{LabelKey: "approval.date", Base: date(base), Live: date(live), Target: date(target)},
		}
		for _, l := range n.BaseToLive.Text() {
			nv.ToLive = append(nv.ToLive, templates.DiffRow{Op: l.Op, Text: l.Text})
		}
		for _, l := range n.BaseToTarget.Text() {
			nv.ToTarget = append(nv.ToTarget, templates.DiffRow{Op: l.Op, Text: l.Text})
		}
		c.Nodes = append(c.Nodes, nv)
	}
	return c, nil
}

func bodyOrZero(b *content.Body) content.Body {
	if b == nil {
		return content.Body{}
	}
	return *b
}

// rebaseWhy is the sentence that says why Re-base is not possible.
func rebaseWhy(ctx context.Context, c releases.RebaseCheck) string {
	if c.Possible {
		return ""
	}
	return locales.T(ctx, "conflict.rebase_"+c.Reason, "Title", c.Title)
}

// Repin resolves a conflict by pinning every item's current working copy.
func (h *Handler) Repin(w http.ResponseWriter, r *http.Request) {
	h.resolveConflict(w, r, h.releases.Repin, "conflict.repinned")
}

// Rebase resolves a conflict by keeping the targets on the live versions.
func (h *Handler) Rebase(w http.ResponseWriter, r *http.Request) {
	h.resolveConflict(w, r, h.releases.Rebase, "conflict.rebased")
}

func (h *Handler) resolveConflict(w http.ResponseWriter, r *http.Request,
	resolve func(context.Context, engine.User, string, string, int64, string, string) (releases.ReleaseRow, error), doneKey string) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	date, clock := r.PostFormValue("date"), r.PostFormValue("time")
	rel, err := resolve(ctx, *st.user, st.site.ID, id, formRev(r), date, clock)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		h.renderReleaseView(w, r, status, id, templates.ReleaseView{Error: msg,
			Conflict: &templates.ConflictPanel{Date: date, Time: clock, Errors: fields}})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rel.State == release.StateScheduled {
		h.flash(r, doneKey)
	} else {
		h.flash(r, doneKey+"_for_approval")
	}
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}

// offerEdit fills in what the editor of a held node offers, by the
// release rule: "Edit and re-approve" for a person who may approve
// releases, "Edit and send for approval" for the release's creator
// otherwise, while it is scheduled or waiting; and Unschedule.
func (h *Handler) offerEdit(ctx context.Context, f *templates.NodeForm, n releases.NodeDetail) error {
	if n.Held == nil || f.Held == nil {
		return nil
	}
	can, err := h.releases.HeldAbilities(ctx, *stateOf(ctx).user, n)
	if err != nil {
		return err
	}
	f.Held.CanEdit, f.Held.Approves, f.Held.CanUnschedule = can.Edit, can.Approves, can.Unschedule
	return nil
}

// EditScheduledForm is the editor of a held node with its fields open:
// saving pins the edit to the release (§6.2).
func (h *Handler) EditScheduledForm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	n, err := h.nodes.Node(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := h.nodeForm(ctx, n)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// Not held any more, or not theirs to change: the ordinary editor, which
	// says which.
	f.EditScheduled = f.Held != nil && f.Held.CanEdit
	h.renderEditor(w, r, http.StatusOK, f)
}

// EditScheduled saves the edit of a held node as its next version and pins
// it to the release, re-approved or sent for approval (§6.2).
func (h *Handler) EditScheduled(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	in := content.Edit{Title: r.PostFormValue("title"), Slug: r.PostFormValue("slug"), Summary: r.PostFormValue("summary"),
		Text: r.PostFormValue("body"), Status: content.StatusPublished, Lang: r.PostFormValue("lang"), Cover: formCover(r)}
	relRev := parseRev(r.PostFormValue("release_rev"))
	rel, err := h.releases.EditAndRepin(ctx, *st.user, st.site.ID, id, formRev(r), relRev, in)
	if msg, fields, status, ok := refusal(ctx, err); ok {
		n, nerr := h.nodes.Node(ctx, *st.user, st.site.ID, id)
		if nerr != nil {
			h.fail(w, r, nerr)
			return
		}
		f, ferr := h.nodeForm(ctx, n)
		if ferr != nil {
			h.fail(w, r, ferr)
			return
		}
		// What the person typed stays, beside the sentence; the revs stay
		// as they saw them, so a stale edit is not saved over by a retry.
		f.Rev, f.Title, f.Slug, f.Summary, f.Body = formRev(r), in.Title, in.Slug, in.Summary, in.Text
		f.Errors, f.Error = fields, msg
		if f.Held != nil && f.Held.CanEdit {
			f.EditScheduled = true
			f.Held.Rev = relRev
		}
		h.renderEditor(w, r, status, f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rel.State == release.StateScheduled {
		h.flash(r, "editor.saved_reapproved")
	} else {
		h.flash(r, "editor.saved_for_approval")
	}
	http.Redirect(w, r, to(r, "/studio/content/"+id), http.StatusSeeOther)
}

func parseRev(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
