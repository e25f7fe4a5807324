package studio

import (
	"net/http"

	"studio/engine"
	"studio/engine/policy"
	"studio/locales"
	"studio/web/templates"
)

// Notifications lists what needs the person's attention, derived from state
// on every read (RFC §14).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	list, err := h.eng.Notifications(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	rows := make([]templates.NoticeRow, 0, len(list))
	for _, n := range list {
		row := templates.NoticeRow{ID: n.ID, Kind: n.Kind, Title: n.Title, When: p.DateTime(n.At.In(loc)),
			Link: "/studio/releases/" + n.ReleaseID, ActionKey: "notice.open"}
		switch n.Kind {
		case engine.NoticeApprovalDue:
			row.Link, row.ActionKey = "/studio/approvals", "notice.review"
		case engine.NoticeStalled:
			row.Link, row.ActionKey = "", ""
			if policy.Has(st.user.Role, policy.SiteSettings) {
				row.Link, row.ActionKey = "/studio/settings", "notice.scheduler_status"
			}
		}
		rows = append(rows, row)
	}
	h.render(w, r, http.StatusOK, templates.NotificationsPage(h.page(r, "notice.title", "notifications"), rows))
}
