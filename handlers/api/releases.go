package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/wire"
)

// Releases lists a site's releases timed in [from, to) (RFC 3339; default
// from now for 400 days) and the undated ones still open, a page at a time
// (issue 14: a site's thousands of releases are never read at once):
// ?limit= 1..200 (default 50), ?cursor= the nextCursor of the page before,
// ?state= one state; the answer carries nextCursor while more follow.
func (h *Handler) Releases(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := releases.ReleaseListQuery{SiteID: chi.URLParam(r, "siteId"), State: release.State(r.URL.Query().Get("state")),
		Cursor: r.URL.Query().Get("cursor")}
	for name, dst := range map[string]*time.Time{"from": &q.From, "to": &q.To} {
		if v := r.URL.Query().Get(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				h.badRequest(w, ctx, CodeBadInstant, name)
				return
			}
			*dst = t
		}
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			h.badRequest(w, ctx, releases.CodeBadReleaseLimit, "limit")
			return
		}
		q.Limit = n
	}
	page, err := h.releases.ReleaseList(ctx, userOf(ctx), q)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	body := map[string]any{"releases": wire.PageOf(page)}
	if page.NextCursor != "" {
		body["nextCursor"] = page.NextCursor
	}
	writeJSON(w, http.StatusOK, body)
}

// Release answers one release as §12's ReleaseView: the §4.2 release, its
// items with titles and paths, closureAdded, lockedNodes and the waiting
// request.
func (h *Handler) Release(w http.ResponseWriter, r *http.Request) {
	h.answerView(w, r, http.StatusOK, chi.URLParam(r, "releaseId"))
}

// answerView answers the release id of the request's site as §12's
// ReleaseView, with status.
func (h *Handler) answerView(w http.ResponseWriter, r *http.Request, status int, id string) {
	ctx := r.Context()
	v, err := h.releases.ReleaseView(ctx, userOf(ctx), chi.URLParam(r, "siteId"), id)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, status, wire.ReleaseViewOf(v))
}

// revBody is the body of a state change: the rev the caller last saw (CAS).
type revBody struct {
	Rev int64 `json:"rev"`
}

// Unschedule turns a release back into a draft; body {"rev": n}.
func (h *Handler) Unschedule(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, h.releases.Unschedule)
}

// Cancel ends a release without publishing; body {"rev": n}.
func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) { h.change(w, r, h.releases.Cancel) }

// PublishNow runs a missed, expired or scheduled release now, as the
// caller (§8.6, §13); body {"rev": n}.
func (h *Handler) PublishNow(w http.ResponseWriter, r *http.Request) {
	h.change(w, r, func(ctx context.Context, u engine.User, site, id string, rev int64) error {
		_, err := h.sched.PublishNow(ctx, u, site, id, rev)
		return err
	})
}

func (h *Handler) change(w http.ResponseWriter, r *http.Request, fn func(context.Context, engine.User, string, string, int64) error) {
	ctx := r.Context()
	var body revBody
	if !h.decode(w, r, &body) {
		return
	}
	if body.Rev < 1 {
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	}
	u, site, id := userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId")
	a, err := h.releases.AnsweringAfter(ctx, u, site, id, func() error { return fn(ctx, u, site, id, body.Rev) })
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerOf(a))
}

// rescheduleBody is a new time for a release and the rev the caller last
// saw: when as §12's reschedule takes it, or (for scripts written against
// the older form) a date and a time in the site's zone, or an instant.
type rescheduleBody struct {
	Rev  int64           `json:"rev"`
	When json.RawMessage `json:"when"`
	Date string          `json:"date"`
	Time string          `json:"time"`
	At   string          `json:"at"`
}

// Reschedule moves a scheduled or waiting release to a new time (D4, §12
// reschedule); body {"rev", "when"} with when {"at": instant} |
// {"localTime": "YYYY-MM-DDTHH:MM", "timeZone"?}, or {"rev", "date",
// "time"}, or {"rev", "at"}: one form. Whoever may approve it keeps its
// approval; anyone else's move asks again.
func (h *Handler) Reschedule(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body rescheduleBody
	if !h.decode(w, r, &body) {
		return
	}
	forms := 0
	for _, given := range []bool{len(body.When) > 0, body.Date != "" || body.Time != "", body.At != ""} {
		if given {
			forms++
		}
	}
	switch {
	case body.Rev < 1:
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	case forms != 1: // one form of the time, not two, not none
		h.badRequest(w, ctx, CodeBadWhen, "when")
		return
	}
	var when *releases.WhenInput
	switch {
	case len(body.When) > 0:
		var ok bool
		if when, ok = h.parseWhen(w, r, body.When); !ok {
			return
		}
	case body.At != "":
		at, err := time.Parse(time.RFC3339, body.At)
		if err != nil {
			h.badRequest(w, ctx, CodeBadInstant, "at")
			return
		}
		when = &releases.WhenInput{At: &at}
	default:
		when = &releases.WhenInput{Date: body.Date, Clock: body.Time}
	}
	u := userOf(ctx)
	a, err := h.releases.Answering(ctx, u, func() (releases.ReleaseRow, error) {
		return h.releases.Reschedule(ctx, u, chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId"), body.Rev, *when)
	})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.AnswerOf(a))
}

// Diff answers each item of a release as its live base against its pinned
// target: the fields, and the body text line by line (§13 diff). After a
// conflict (§6.4) it is three-way: "threeWay" is true, "rebase" says
// whether Re-base is possible, and each conflicting item carries
// "conflict" with the pinned base, the version live now and the pinned
// target, as Studio's conflict page shows them.
func (h *Handler) Diff(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d, err := h.releases.ReleaseDiffs(ctx, userOf(ctx), chi.URLParam(r, "siteId"), chi.URLParam(r, "releaseId"))
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	out := map[string]any{"release": wire.ReleaseOf(d.Release.Release), "threeWay": d.Conflict != nil}
	items := itemDiffs(d.Items)
	if c := d.Conflict; c != nil {
		out["rebase"] = rebaseOf(c.Rebase)
		byNode := make(map[string]*conflictJSON, len(c.Nodes))
		for _, n := range c.Nodes {
			byNode[n.Item.NodeID] = conflictOf(n)
		}
		for i := range items {
			items[i].Conflict = byNode[items[i].NodeID]
		}
	}
	out["items"] = items
	writeJSON(w, http.StatusOK, out)
}

// conflictJSON is the three-way view of one conflicting node: the version
// live now (absent: not live) and the working copy Re-pin would take; each
// field as the pinned base, the live version and the pinned target have
// it; the body's lines base → live and base → target; whether Re-base may
// keep this node's target.
type conflictJSON struct {
	Live     *release.Version `json:"live,omitempty"`
	Working  release.Version  `json:"working"`
	Fields   []threeWayJSON   `json:"fields"`
	ToLive   []diffLineJSON   `json:"toLive"`
	ToTarget []diffLineJSON   `json:"toTarget"`
	Rebase   rebaseJSON       `json:"rebase"`
}

// threeWayJSON is one field in the three versions of a conflict.
type threeWayJSON struct {
	Field  string `json:"field"`
	Base   string `json:"base"`
	Live   string `json:"live"`
	Target string `json:"target"`
}

// rebaseJSON says whether Re-base is possible and, if not, which node
// stops it and why (engine.Rebase*: not_live, live_newer, …).
type rebaseJSON struct {
	Possible bool   `json:"possible"`
	NodeID   string `json:"nodeId,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func rebaseOf(c releases.RebaseCheck) rebaseJSON {
	return rebaseJSON{Possible: c.Possible, NodeID: c.NodeID, Reason: c.Reason}
}

func conflictOf(n releases.ConflictNode) *conflictJSON {
	c := &conflictJSON{Live: n.Live, Working: n.Working, Fields: []threeWayJSON{}, ToLive: lines(n.BaseToLive),
		ToTarget: lines(n.BaseToTarget), Rebase: rebaseOf(n.Rebase)}
	live, target := n.BaseToLive.Fields(), n.BaseToTarget.Fields()
	for i := range live {
		c.Fields = append(c.Fields, threeWayJSON{Field: live[i].Field, Base: live[i].Base, Live: live[i].Target, Target: target[i].Target})
	}
	return c
}

func lines(d releases.ItemDiff) []diffLineJSON {
	out := []diffLineJSON{}
	for _, l := range d.Text() {
		out = append(out, diffLineJSON{diffOps[l.Op], l.Text})
	}
	return out
}

// itemDiffJSON is one item of a diff: the §4.2 item, the fields that are
// compared and the body's line diff.
type itemDiffJSON struct {
	release.Item
	Title  string          `json:"title"`
	Fields []fieldDiffJSON `json:"fields"`
	Body   []diffLineJSON  `json:"body"`
	// AddressChange is set when a live item's public address moves.
	AddressChange *addressChangeJSON `json:"addressChange,omitempty"`
	// Conflict is the three-way view of an item whose node conflicts.
	Conflict *conflictJSON `json:"conflict,omitempty"`
}

type addressChangeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type fieldDiffJSON struct {
	Field   string `json:"field"`
	Base    string `json:"base"`
	Target  string `json:"target"`
	Changed bool   `json:"changed"`
}

// diffLineJSON is one line of the body: "same", "removed" (only in the
// base) or "added" (only in the target).
type diffLineJSON struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

var diffOps = map[byte]string{' ': "same", '-': "removed", '+': "added"}

func itemDiffs(items []releases.ItemDiff) []itemDiffJSON {
	out := make([]itemDiffJSON, 0, len(items))
	for _, d := range items {
		it := itemDiffJSON{Item: d.Item, Fields: []fieldDiffJSON{}, Body: []diffLineJSON{}}
		for _, b := range []*content.Body{d.Base, d.Target} {
			if b != nil {
				it.Title = b.Title // the target's, or the base's for a removal
			}
		}
		for _, f := range d.Fields() {
			it.Fields = append(it.Fields, fieldDiffJSON{f.Field, f.Base, f.Target, f.Changed()})
		}
		it.Body = lines(d)
		if from, to, moved := d.AddressChange(); moved {
			it.AddressChange = &addressChangeJSON{From: from, To: to}
		}
		out = append(out, it)
	}
	return out
}
