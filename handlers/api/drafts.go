package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/wire"
)

// Draft releases over the API (RFC §5.2 "(new) → draft", §6.1, §13 POST
// …/releases, PATCH, POST …/items, …/schedule, …/repin) and the conflict
// resolutions (§6.4 …/repin, …/rebase). Each handler checks the shape of
// the body, calls one engine use case and answers the release as it is
// now; the engine decides who may, what state allows it and what the items
// become. Refusals of a draft's items are said as Studio's draft page says
// them (failDraft): the sentence names the node.

// CodeOneReleaseChange refuses a PATCH that both renames a draft and removes
// an item: each is its own guarded change with its own rev and audit row,
// and doing one after the other could leave the first done when the second
// is refused. Send two requests.
const CodeOneReleaseChange = "one_release_change"

// createBody is a new draft: the nodes whose working copies it publishes,
// the live ones it takes down, and an optional title (empty: the first
// node's title).
type createBody struct {
	Title     string          `json:"title"`
	NodeIDs   []string        `json:"nodeIds"`
	RemoveIDs []string        `json:"removeIds"`
	When      json.RawMessage `json:"when"`
}

// CreateRelease creates a draft release (§13 POST …/releases); body
// {"title"?, "nodeIds": […], "removeIds"?: […], "when"?} with when as
// POST …/schedule takes it: the time the draft proposes, checked now and
// taken when the draft is scheduled without one. It answers 201 with the
// release as GET answers it (§12's ReleaseView), closureAdded naming what
// the dependency closure added and why. At least one id is needed (no_items, 400).
func (h *Handler) CreateRelease(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body createBody
	if !h.decode(w, r, &body) {
		return
	}
	if len(body.NodeIDs)+len(body.RemoveIDs) == 0 {
		h.badRequest(w, ctx, release.CodeNoItems, "nodeIds")
		return
	}
	when, ok := h.parseWhen(w, r, body.When)
	if !ok {
		return
	}
	u, site := userOf(ctx), chi.URLParam(r, "siteId")
	v, err := h.releases.Viewing(ctx, u, func() (releases.ReleaseRow, error) {
		return h.releases.CreateDraft(ctx, u, releases.DraftInput{SiteID: site, Title: body.Title,
			NodeIDs: body.NodeIDs, RemoveIDs: body.RemoveIDs, When: when})
	})
	if err != nil {
		h.failDraft(w, ctx, err)
		return
	}
	w.Header().Set("Location", "/api/sites/"+site+"/releases/"+v.Release.ID)
	writeJSON(w, http.StatusCreated, wire.ReleaseViewOf(v))
}

// releasePatchBody changes a draft as the caller last saw it (rev): a new title,
// or one item out (with what only it needed). Pointers tell "absent" from
// an empty value, which the engine refuses.
type releasePatchBody struct {
	Rev        int64   `json:"rev"`
	Title      *string `json:"title"`
	RemoveItem *string `json:"removeItem"`
}

// PatchRelease renames a draft or takes one item out of it (§13 PATCH);
// body {"rev", "title"} or {"rev", "removeItem": nodeId}. One of the two
// per request: both together are refused (one_release_change, 400) rather
// than applied as two changes of which the second could fail after the
// first was made. Neither is nothing_to_change (400).
func (h *Handler) PatchRelease(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body releasePatchBody
	if !h.decode(w, r, &body) {
		return
	}
	switch {
	case body.Rev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	case body.Title == nil && body.RemoveItem == nil:
		h.badRequest(w, ctx, CodeNothingToChange, "")
		return
	case body.Title != nil && body.RemoveItem != nil:
		h.badRequest(w, ctx, CodeOneReleaseChange, "removeItem")
		return
	}
	h.changeDraft(w, r, body.Rev, func(ctx context.Context, u engine.User, site, id string, rev int64) (releases.ReleaseRow, error) {
		if body.Title != nil {
			return h.releases.RenameRelease(ctx, u, site, id, rev, *body.Title)
		}
		return h.releases.RemoveItem(ctx, u, site, id, rev, *body.RemoveItem)
	})
}

// itemsBody adds items to a draft the caller last saw at rev: nodes to
// publish and live nodes to take down.
type itemsBody struct {
	Rev       int64    `json:"rev"`
	NodeIDs   []string `json:"nodeIds"`
	RemoveIDs []string `json:"removeIds"`
}

// AddReleaseItems adds items to a draft with their dependency closure (§13
// POST …/items); body {"rev", "nodeIds"?, "removeIds"?}, at least one id.
func (h *Handler) AddReleaseItems(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body itemsBody
	if !h.decode(w, r, &body) {
		return
	}
	switch {
	case body.Rev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	case len(body.NodeIDs)+len(body.RemoveIDs) == 0:
		h.badRequest(w, ctx, release.CodeNoItems, "nodeIds")
		return
	}
	h.changeDraft(w, r, body.Rev, func(ctx context.Context, u engine.User, site, id string, rev int64) (releases.ReleaseRow, error) {
		return h.releases.AddToDraft(ctx, u, site, id, rev, body.NodeIDs, body.RemoveIDs)
	})
}

// changeDraft runs one change of a draft at rev and answers the release,
// or the refusal in the words of a draft.
func (h *Handler) changeDraft(w http.ResponseWriter, r *http.Request, rev int64,
	fn func(context.Context, engine.User, string, string, int64) (releases.ReleaseRow, error)) {
	ctx := r.Context()
	u := userOf(ctx)
	a, err := h.releases.Answering(ctx, u, func() (releases.ReleaseRow, error) {
		return fn(ctx, u, chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId"), rev)
	})
	if err != nil {
		h.failDraft(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerOf(a))
}

// whenBody is a state change at a date and a time in the site's zone, as
// the caller last saw the release (rev).
type whenBody struct {
	Rev  int64  `json:"rev"`
	Date string `json:"date"`
	Time string `json:"time"`
}

// scheduleBody schedules a draft the caller last saw at rev: at when (as
// §12's schedule_release takes it), or at a date and a time in the site's
// zone (Studio's form, kept for scripts written against it), or, with
// neither, at the time the draft was created with.
type scheduleBody struct {
	Rev  int64           `json:"rev"`
	When json.RawMessage `json:"when"`
	Date string          `json:"date"`
	Time string          `json:"time"`
}

// ScheduleRelease schedules a draft (§5.2, §13 POST …/schedule); body
// {"rev", "when"} with when {"at": instant} | {"localTime":
// "YYYY-MM-DDTHH:MM", "timeZone"?} | "on-approval", or {"rev", "date",
// "time"}, or {"rev"} for the draft's own time. Someone who may approve
// releases schedules it with their own approval (status "scheduled"; on
// approval it publishes now); anyone else's waits for approval
// ("approval-pending", with the request's approvalId).
func (h *Handler) ScheduleRelease(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body scheduleBody
	if !h.decode(w, r, &body) {
		return
	}
	switch {
	case body.Rev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	case len(body.When) > 0 && (body.Date != "" || body.Time != ""): // one form of the time
		h.badRequest(w, ctx, CodeBadWhen, "when")
		return
	}
	when, ok := h.parseWhen(w, r, body.When)
	if !ok {
		return
	}
	if body.Date != "" || body.Time != "" {
		when = &releases.WhenInput{Date: body.Date, Clock: body.Time}
	}
	u, site := userOf(ctx), chi.URLParam(r, "siteId")
	a, err := h.releases.Scheduling(ctx, u, func() (releases.ReleaseRow, error) {
		return h.releases.ScheduleReleaseWhen(ctx, u, site, chi.URLParam(r, "releaseId"), body.Rev, when)
	})
	if err != nil {
		h.failDraft(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.ScheduleOf(a))
}

// Repin pins a release's items again to what is current (§13 POST
// …/repin); body {"rev", "date"?, "time"?}: releases' RepinRelease, which
// re-pins a draft as it is and a conflict at the date and time given.
// Refusals are in a draft's words, which name the item.
func (h *Handler) Repin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body whenBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.Rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	h.changeDraft(w, r, body.Rev, func(ctx context.Context, u engine.User, site, id string, rev int64) (releases.ReleaseRow, error) {
		return h.releases.RepinRelease(ctx, u, site, id, rev, body.Date, body.Time)
	})
}

// Rebase resolves a conflict by keeping every target on the live versions
// now (§6.4), when the engine's re-base check passes; body {"rev",
// "date"?, "time"?} as for re-pinning a conflict.
func (h *Handler) Rebase(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body whenBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.Rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	h.resolve(w, r, body, h.releases.Rebase)
}

// resolve runs a conflict's re-pin or re-base and answers the release.
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, body whenBody,
	fn func(context.Context, engine.User, string, string, int64, string, string) (releases.ReleaseRow, error)) {
	ctx := r.Context()
	u := userOf(ctx)
	a, err := h.releases.Answering(ctx, u, func() (releases.ReleaseRow, error) {
		return fn(ctx, u, chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId"), body.Rev, body.Date, body.Time)
	})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerOf(a))
}

// CodeBadWhen refuses a when that is none of §12's three forms.
const CodeBadWhen = wire.CodeBadWhen

// parseWhen is ParseWhen answering its refusal itself (400 on the field);
// false when the value will not do. The engine checks the time itself.
func (h *Handler) parseWhen(w http.ResponseWriter, r *http.Request, raw json.RawMessage) (*releases.WhenInput, bool) {
	in, err := wire.ParseWhen(raw)
	if err != nil {
		h.badRequest(w, r.Context(), err.Code, err.Field)
		return nil, false
	}
	return in, true
}
