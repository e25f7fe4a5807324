package studio

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	refusals "studio/handlers/refusal"
	"studio/locales"
	"studio/web/templates"
)

// NewReleaseForm shows "New release…" (§5.2 "(new) → draft"): a title and
// the articles and pages to choose. ?node=… ticks the ones the content list
// sent.
func (h *Handler) NewReleaseForm(w http.ResponseWriter, r *http.Request) {
	h.renderNewRelease(w, r, http.StatusOK, templates.NewReleaseForm{}, setOf(r.URL.Query()["node"]), nil)
}

func (h *Handler) renderNewRelease(w http.ResponseWriter, r *http.Request, status int, f templates.NewReleaseForm, set, rm map[string]bool) {
	ctx := r.Context()
	st := stateOf(ctx)
	nodes, err := h.nodes.Nodes(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// Offered: what has something to publish, or is live to take down, and
	// is not held by another release; and whatever was ticked, so a
	// refusal shows beside the person's own choice.
	for _, n := range nodes {
		c := choice(n)
		if c.Checked = set[n.ID]; c.Checked || (n.Held == nil && hasNews(n)) {
			f.Nodes = append(f.Nodes, c)
		}
		if c.Checked = rm[n.ID]; c.Checked || (n.Held == nil && n.Live != nil) {
			f.Live = append(f.Live, c)
		}
	}
	h.render(w, r, status, templates.NewRelease(h.page(r, "drafts.new_title", "schedules"), f))
}

// CreateRelease creates the draft release and opens its page.
func (h *Handler) CreateRelease(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	r.ParseForm()
	in := releases.DraftInput{SiteID: st.site.ID, Title: r.PostFormValue("title"), NodeIDs: r.PostForm["node"], RemoveIDs: r.PostForm["remove"]}
	rel, err := h.releases.CreateDraft(ctx, *st.user, in)
	if msg, fields, status, ok := draftRefusal(ctx, err); ok {
		h.renderNewRelease(w, r, status, templates.NewReleaseForm{Title: in.Title, Errors: fields, Error: msg},
			setOf(in.NodeIDs), setOf(in.RemoveIDs))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "drafts.created")
	http.Redirect(w, r, to(r, "/studio/releases/"+rel.ID), http.StatusSeeOther)
}

// ReleaseOrDraft shows a release: a draft gets the page that edits it
// (items, Add items, Rename, Re-pin, Schedule…); any other the release page.
func (h *Handler) ReleaseOrDraft(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rel, err := h.releases.Release(ctx, *stateOf(ctx).user, stateOf(ctx).site.ID, chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rel.State != release.StateDraft {
		h.ReleasePage(w, r)
		return
	}
	h.renderDraft(w, r, http.StatusOK, rel.ID, templates.DraftView{Confirm: r.URL.Query().Get("confirm")})
}

// renderDraft shows a draft release as it is now; what seed holds (a
// refusal, the forms' typed values and errors) stays. A release that is no
// longer a draft shows the release page, with the refusal.
func (h *Handler) renderDraft(w http.ResponseWriter, r *http.Request, status int, id string, seed templates.DraftView) {
	ctx := r.Context()
	st := stateOf(ctx)
	rel, err := h.releases.Release(ctx, *st.user, st.site.ID, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rel.State != release.StateDraft {
		h.renderRelease(w, r, status, id, seed.Error)
		return
	}
	nodes, err := h.nodes.Nodes(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	byID := make(map[string]releases.NodeDetail, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	moved, err := h.releases.PinsMoved(ctx, *st.user, st.site.ID, rel.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	isMoved := setOf(moved)
	items := releaseItemViews(rel, byID)
	if err := h.addItemNotes(r, rel, items); err != nil {
		h.fail(w, r, err)
		return
	}
	can, err := h.releases.AbilitiesOfRelease(ctx, *st.user, rel)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	loc := siteLoc(st.site)
	v := templates.DraftView{ID: rel.ID, Title: releaseTitle(rel), Rev: rel.Rev, By: rel.CreatedBy.Name, Error: seed.Error, Confirm: seed.Confirm,
		Undo:        h.undoOffer(r, rel.ID),
		Latest:      loadLatest(status, "/studio/releases/"+rel.ID),
		Moved:       len(moved) > 0,
		CanChange:   can.Change,
		CanApprove:  can.Approves,
		RenameTitle: rel.Title, RenameError: seed.RenameError,
		Date: seed.Date, Time: seed.Time, ScheduleErrors: seed.ScheduleErrors,
		MinDate: h.eng.Now().In(loc).Format("2006-01-02")}
	for _, iv := range items {
		v.Items = append(v.Items, templates.DraftItemView{ReleaseItemView: iv, Moved: isMoved[iv.NodeID]})
	}
	if seed.RenameTitle != "" {
		v.RenameTitle = seed.RenameTitle
	}
	if v.Date == "" {
		v.Date, v.Time = h.eng.Now().In(loc).AddDate(0, 0, 1).Format("2006-01-02"), "09:00" // tomorrow morning
	}
	if v.ScheduleErrors["date"] == "" && v.ScheduleErrors["time"] == "" {
		v.Preview = h.preview(r, v.Date, v.Time) // a refused one has its error under its field
	}
	inRelease := map[string]bool{}
	for _, it := range rel.Items {
		inRelease[it.NodeID] = true
	}
	for _, n := range nodes {
		if inRelease[n.ID] || n.Held != nil {
			continue
		}
		if hasNews(n) {
			v.Addable = append(v.Addable, choice(n))
		}
		if n.Live != nil {
			v.AddableLive = append(v.AddableLive, choice(n))
		}
	}
	history, err := h.releases.ReleaseHistory(ctx, *st.user, st.site.ID, rel.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, a := range history {
		v.History = append(v.History, templates.HistoryRow{At: a.At.In(loc), Who: actorName(ctx, a.Actor),
			Action: "history." + strings.ReplaceAll(a.Action, ".", "_")})
	}
	h.render(w, r, status, templates.Draft(h.page(r, "release.page_title", "schedules"), v))
}

// releaseItemViews are a release's items with the titles, pins and live
// versions a page shows. A deleted node shows its id.
func releaseItemViews(rel releases.ReleaseRow, byID map[string]releases.NodeDetail) []templates.ReleaseItemView {
	var out []templates.ReleaseItemView
	for _, it := range rel.Items {
		iv := templates.ReleaseItemView{NodeID: it.NodeID, Title: it.NodeID, Kind: string(it.NodeKind), Op: string(it.Op)}
		if n, ok := byID[it.NodeID]; ok {
			iv.Title = n.Body.Title
			if n.Live != nil {
				iv.LiveRev = n.Live.Rev
			}
		}
		if it.Target != nil {
			iv.PinnedRev = it.Target.Rev
		}
		if it.Base != nil {
			iv.BaseRev = it.Base.Rev
		}
		out = append(out, iv)
	}
	return out
}

// addItemNotes fills in, for each item of rel, why the dependency closure
// added it (the title of the item that uses it) and the other pending
// releases that carry the same node, flagged on both (§6.1 step 2, §6.2,
// D15).
func (h *Handler) addItemNotes(r *http.Request, rel releases.ReleaseRow, items []templates.ReleaseItemView) error {
	ctx := r.Context()
	st := stateOf(ctx)
	overlaps, err := h.releases.Overlaps(ctx, *st.user, st.site.ID, rel.ID)
	if err != nil {
		return err
	}
	byNode := map[string][]templates.OverlapView{}
	for _, o := range overlaps {
		ov := templates.OverlapView{ReleaseID: o.ReleaseID, Title: o.Title}
		if ov.Title == "" {
			ov.Title = o.ReleaseID
		}
		if o.At != nil {
			at := o.At.In(siteLoc(st.site))
			ov.At = &at
		}
		for _, id := range o.NodeIDs {
			byNode[id] = append(byNode[id], ov)
		}
	}
	titles := map[string]string{}
	for _, iv := range items {
		titles[iv.NodeID] = iv.Title
	}
	because := map[string]string{}
	for _, c := range rel.ClosureAdded {
		because[c.NodeID] = c.Because
	}
	for i := range items {
		if b, ok := because[items[i].NodeID]; ok {
			items[i].AddedBecause = titles[b]
			if items[i].AddedBecause == "" {
				items[i].AddedBecause = b
			}
		}
		items[i].Overlaps = byNode[items[i].NodeID]
	}
	return nil
}

// RenameDraft gives a draft a new title.
func (h *Handler) RenameDraft(w http.ResponseWriter, r *http.Request) {
	title := r.PostFormValue("title")
	h.changeDraft(w, r, "drafts.renamed", func(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
		_, err := h.releases.RenameRelease(ctx, u, siteID, id, rev, title)
		return err
	}, func(v *templates.DraftView, fields templates.FieldErrors) {
		v.RenameTitle, v.RenameError = title, fields
	})
}

// AddDraftItems adds the ticked articles and pages to a draft: to publish
// (node) or to take down (remove), with their dependency closure.
func (h *Handler) AddDraftItems(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	set, rm := r.PostForm["node"], r.PostForm["remove"]
	h.changeDraft(w, r, "drafts.added", func(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
		_, err := h.releases.AddToDraft(ctx, u, siteID, id, rev, set, rm)
		return err
	}, nil)
}

// RemoveDraftItem takes one item (and what only it needed) out of a draft.
func (h *Handler) RemoveDraftItem(w http.ResponseWriter, r *http.Request) {
	node := r.PostFormValue("node")
	h.changeDraft(w, r, "drafts.removed", func(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
		_, err := h.releases.RemoveItem(ctx, u, siteID, id, rev, node)
		return err
	}, nil)
}

// RepinDraft re-pins a draft's items to their current versions ("Re-pin").
func (h *Handler) RepinDraft(w http.ResponseWriter, r *http.Request) {
	h.changeDraft(w, r, "drafts.repinned", func(ctx context.Context, u engine.User, siteID, id string, rev int64) error {
		_, err := h.releases.RepinDraft(ctx, u, siteID, id, rev)
		return err
	}, nil)
}

// changeDraft runs one change of a draft and comes back to its page: with
// a notice when it was made, or with the refusal (and, through seed, the
// form's values and field errors) when it was not; nothing changed then.
func (h *Handler) changeDraft(w http.ResponseWriter, r *http.Request, doneKey string,
	change func(context.Context, engine.User, string, string, int64) error,
	seed func(*templates.DraftView, templates.FieldErrors)) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	err := change(ctx, *st.user, st.site.ID, id, formRev(r))
	if msg, fields, status, ok := draftRefusal(ctx, err); ok {
		v := templates.DraftView{Error: msg}
		if seed != nil {
			seed(&v, fields)
		} else {
			for _, m := range fields {
				v.Error = m
			}
		}
		h.renderDraft(w, r, status, id, v)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, doneKey)
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}

// ScheduleDraft schedules a draft for a date and time in the site's zone:
// directly for someone who may approve it, else as a request (§5.2).
func (h *Handler) ScheduleDraft(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	id := chi.URLParam(r, "id")
	date, clock := r.PostFormValue("date"), r.PostFormValue("time")
	when := &releases.WhenInput{Date: date, Clock: clock}
	onApproval := r.PostFormValue("when") == "on-approval" // §15.1 "When approved"
	if onApproval {
		when = &releases.WhenInput{OnApproval: true}
	}
	rel, err := h.releases.ScheduleReleaseWhen(ctx, *st.user, st.site.ID, id, formRev(r), when)
	if msg, fields, status, ok := draftRefusal(ctx, err); ok {
		h.renderDraft(w, r, status, id, templates.DraftView{Error: msg, Date: date, Time: clock, ScheduleErrors: fields, OnApproval: onApproval})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	switch {
	case rel.State == release.StateAwaitingApproval:
		h.flash(r, "schedule.sent_for_approval")
	case onApproval: // approved by this person: it publishes now
		h.flash(r, "schedule.approved_now")
	default:
		h.flash(r, "schedule.done")
	}
	http.Redirect(w, r, to(r, "/studio/releases/"+id), http.StatusSeeOther)
}

// draftRows are the site's draft releases for the Schedules page, newest
// first. A failure only leaves the list out.
func (h *Handler) draftRows(r *http.Request) []templates.DraftRow {
	ctx := r.Context()
	st := stateOf(ctx)
	rows, err := h.releases.DraftReleases(ctx, *st.user, st.site.ID, asideDraftRows)
	if err != nil {
		h.log.Error("studio: draft releases", "err", err)
		return nil
	}
	out := make([]templates.DraftRow, 0, len(rows))
	for _, rel := range rows {
		out = append(out, templates.DraftRow{ID: rel.ID, Title: releaseTitle(rel), By: rel.CreatedBy.Name, Items: len(rel.Items)})
	}
	return out
}

// draftRefusal is refusal in the words of a draft's page: where
// drafts.error.<code> exists (a sentence that names the node, or offers
// Re-pin), it replaces the general one.
func draftRefusal(ctx context.Context, err error) (string, templates.FieldErrors, int, bool) {
	msg, fields, status, ok := refusal(ctx, err)
	if !ok {
		return msg, fields, status, ok
	}
	e, _ := engine.AsError(err)
	s := refusals.SentenceIn(locales.From(ctx), siteLoc(stateOf(ctx).site), e, "drafts.")
	if e.Field != "" {
		fields = templates.FieldErrors{e.Field: s}
	} else {
		msg = s
	}
	return msg, fields, status, true
}

func choice(n releases.NodeDetail) templates.NodeChoice {
	return templates.NodeChoice{ID: n.ID, Title: n.Body.Title, Kind: string(n.Kind), Status: string(n.Body.Status), Live: n.Live != nil}
}

// hasNews reports whether a node's working copy is not what is live.
func hasNews(n releases.NodeDetail) bool {
	return n.Live == nil || n.Live.Rev != n.Rev || n.Live.Hash != n.Hash
}

func setOf(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}
