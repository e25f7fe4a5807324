package studio

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"studio/engine/nodes"
	"studio/locales"
	"studio/web/templates"
)

// SiteHistoryURL is the History page in filter, from the row before
// (0: the newest).
func SiteHistoryURL(f nodes.HistoryFilter, before int64) string {
	return "/studio/history" + historyQuery(f, before)
}

func historyQuery(f nodes.HistoryFilter, before int64) string {
	q := url.Values{}
	if f.Kind != "" {
		q.Set("kind", string(f.Kind))
	}
	if f.ActorKind != "" {
		q.Set("actor", f.ActorKind)
	}
	if f.ReleaseID != "" {
		q.Set("release", f.ReleaseID)
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func historyFilterOf(r *http.Request) (nodes.HistoryFilter, int64) {
	q := r.URL.Query()
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	return nodes.HistoryFilter{Kind: nodes.HistoryKind(q.Get("kind")), ActorKind: q.Get("actor"), ReleaseID: q.Get("release")}, before
}

// SiteHistory is the site's History page: its audit rows, newest first, a
// page at a time, filtered by the URL.
func (h *Handler) SiteHistory(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	f, before := historyFilterOf(r)
	page, err := h.nodes.SiteHistory(ctx, *st.user, st.site.ID, f, before, 0)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := locales.From(ctx)
	v := templates.SiteHistoryView{Kind: string(page.Filter.Kind), Actor: page.Filter.ActorKind, ClearURL: SiteHistoryURL(nodes.HistoryFilter{}, 0),
		CSVURL: "/studio/history.csv" + historyQuery(page.Filter, 0)}
	v.Filtered = page.Filter != nodes.HistoryFilter{}
	for _, k := range nodes.HistoryKinds {
		v.Kinds = append(v.Kinds, templates.Option{Value: string(k), Label: p.T("sitehistory.kind_" + string(k))})
	}
	for _, a := range nodes.ActorKinds {
		v.Actors = append(v.Actors, templates.Option{Value: a, Label: p.T("sitehistory.actor_" + a)})
	}
	loc := siteLoc(st.site)
	for _, row := range page.Rows {
		v.Rows = append(v.Rows, historyRow(ctx, row, loc))
	}
	if page.Next > 0 {
		v.NextURL = SiteHistoryURL(page.Filter, page.Next)
	}
	h.render(w, r, http.StatusOK, templates.SiteHistory(h.page(r, "sitehistory.title", "history"), v))
}

// historyRow words one act for the person.
func historyRow(ctx context.Context, row nodes.HistoryRow, loc *time.Location) templates.SiteHistoryRow {
	p := locales.From(ctx)
	out := templates.SiteHistoryRow{At: row.At.In(loc), What: historyWhat(p, row.Action), ActorKind: row.Actor.Kind}
	switch row.Actor.Kind {
	case "system":
		out.Who = p.T("sitehistory.scheduler")
	case "agent":
		out.Who = p.T("sitehistory.agent", "Name", row.Actor.Name)
	default:
		out.Who = row.Actor.Name
	}
	if row.OnBehalfOf != nil {
		out.OnBehalfOf = row.OnBehalfOf.Name
	}
	if row.ReleaseID != "" {
		out.ReleaseURL, out.ReleaseTitle = "/studio/releases/"+row.ReleaseID, row.ReleaseID
		if row.Release != nil {
			out.ReleaseTitle = row.Release.Title
		}
	}
	if id, _ := row.Details["node"].(string); id != "" {
		out.NodeURL = "/studio/content/" + id
		if out.NodeName, _ = row.Details["title"].(string); out.NodeName == "" {
			out.NodeName = id
		}
	}
	out.Reason, _ = row.Details["reason"].(string)
	return out
}

// historyWhat is an audit action in the person's words; one Studio has
// no words for yet is named as it is stored.
func historyWhat(p *locales.Printer, action string) string {
	key := "sitehistory.action." + strings.ReplaceAll(action, ".", "_")
	if s, ok := p.Lookup(key); ok {
		return s
	}
	return p.T("sitehistory.action_other", "Action", action)
}

// historyCSVRows bounds an export: the newest rows in the filter.
const historyCSVRows = 10000

// SiteHistoryCSV exports the History page's filter as CSV, newest first:
// instants in UTC and in the site's zone, the act in the person's words and
// as stored, who, for whom, the release and the reason.
func (h *Handler) SiteHistoryCSV(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	f, _ := historyFilterOf(r)
	var rows []nodes.HistoryRow
	for before := int64(0); len(rows) < historyCSVRows; {
		page, err := h.nodes.SiteHistory(ctx, *st.user, st.site.ID, f, before, 1000)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		rows = append(rows, page.Rows...)
		if before = page.Next; before == 0 {
			break
		}
	}
	p, loc := locales.From(ctx), siteLoc(st.site)
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="history-`+st.site.ID+"-"+h.eng.Now().In(loc).Format("2006-01-02")+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	cols := []string{"col_at_utc", "col_at_site", "col_what", "col_action", "col_who", "col_actor", "col_on_behalf_of", "col_release", "col_release_title", "col_reason"}
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = p.T("sitehistory.csv_" + c)
	}
	cw.Write(head)
	for _, row := range rows {
		v := historyRow(ctx, row, loc)
		cw.Write(csvSafe(row.At.UTC().Format(time.RFC3339), v.At.Format("2006-01-02 15:04"), v.What, row.Action, v.Who,
			row.Actor.Kind, v.OnBehalfOf, row.ReleaseID, v.ReleaseTitle, v.Reason))
	}
	cw.Flush()
}

// csvSafe keeps a spreadsheet from reading a cell as a formula: what
// someone typed (a title, a reason) never starts with =, +, - or @ there.
func csvSafe(cells ...string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
