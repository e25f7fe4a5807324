package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"studio/engine/calendar"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine/localtime"
	"studio/engine/model/release"
)

// CodeBadFilter refuses a facet value the calendar does not know, or a
// limit that is not a whole number from 1 to 200. details.field names the
// parameter, details.value the value.
const CodeBadFilter = "bad_filter"

// calendarFacets are the query parameters that filter the calendar and the
// values each accepts, as the engine's facets name them.
var calendarFacets = []struct {
	name  string
	known []string
	dst   func(*calendar.CalendarQuery) *[]string
}{
	{"kind", calendar.ItemKinds, func(q *calendar.CalendarQuery) *[]string { return &q.Kinds }},
	{"state", calendar.StateFacets, func(q *calendar.CalendarQuery) *[]string { return &q.States }},
	{"origin", []string{"person", "agent"}, func(q *calendar.CalendarQuery) *[]string { return &q.Origins }},
	{"approval", calendar.ApprovalFacets, func(q *calendar.CalendarQuery) *[]string { return &q.Approvals }},
	{"collection", []string{string(release.KindContentEntry), string(release.KindPage), string(release.KindRedirect),
		string(release.KindTerm), string(release.KindTaxonomy), string(release.KindMenu), string(release.KindAsset)},
		func(q *calendar.CalendarQuery) *[]string { return &q.Collections }},
}

// Schedule lists a site's calendar items (RFC §12 list_schedule, §13 GET
// …/schedule): releases with a time, the gates of pages and entries, and
// the occurrences of automations, in time order (ties by id), one page at
// a time. It answers {"items", "nextCursor"?, "timeZone"}.
//
// Parameters: from and to (required; to after from, at most 62 days on the
// site's clock), each an RFC 3339 instant or a date, which means that day's
// midnight in the site's zone; the facets kind, state, origin, approval and
// collection as comma-separated values (state takes the grouped values
// scheduled, waiting, running, attention, done and canceled; canceled,
// denied and expired items are left out unless state or approval asks for
// them); mine=1 for the caller's own items; q, a text the titles have
// (case and Turkish letters folded, at most 100 characters); limit
// (1–200, default 200); cursor, the nextCursor of the page before.
func (h *Handler) Schedule(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	params := r.URL.Query()
	q := calendar.CalendarQuery{SiteID: chi.URLParam(r, "siteId"), Cursor: params.Get("cursor"), Text: params.Get("q")}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &q.From}, {"to", &q.To}} {
		t, ok := h.calendarInstant(r, params.Get(p.name))
		if !ok {
			h.badRequest(w, ctx, CodeBadInstant, p.name)
			return
		}
		*p.dst = t
	}
	for _, f := range calendarFacets {
		raw := params.Get(f.name)
		if raw == "" {
			continue
		}
		for v := range strings.SplitSeq(raw, ",") {
			if v = strings.TrimSpace(v); !slices.Contains(f.known, v) {
				h.problem(w, ctx, http.StatusBadRequest, CodeBadFilter, map[string]any{"field": f.name, "value": v})
				return
			}
			if dst := f.dst(&q); !slices.Contains(*dst, v) {
				*dst = append(*dst, v)
			}
		}
	}
	switch params.Get("mine") {
	case "", "0", "false":
	case "1", "true":
		q.Mine = true
	default:
		h.problem(w, ctx, http.StatusBadRequest, CodeBadFilter, map[string]any{"field": "mine", "value": params.Get("mine")})
		return
	}
	if raw := params.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > calendar.CalendarMaxItems {
			h.problem(w, ctx, http.StatusBadRequest, CodeBadFilter, map[string]any{"field": "limit", "value": raw})
			return
		}
		q.Limit = n
	}
	page, err := h.cal.Calendar(ctx, userOf(ctx), q)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// calendarInstant reads a range bound: an RFC 3339 instant, or a date
// (YYYY-MM-DD) meaning its first instant in the site's zone.
func (h *Handler) calendarInstant(r *http.Request, v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), true
	}
	w, err := localtime.ParseDateAndTime(v, "00:00")
	if err != nil {
		return time.Time{}, false
	}
	at, _ := localtime.Resolve(w, siteLoc(r.Context()))
	return at.UTC(), true
}
