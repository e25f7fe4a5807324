package studio

import (
	"net/http"
	"time"

	"studio/engine"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/locales"
	"studio/web/templates"
)

// Notifications lists what needs the person's attention, derived from state
// on every read (RFC §14).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	list, err := h.sched.Notifications(ctx, *st.user, st.site.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := locales.From(ctx)
	loc := siteLoc(st.site)
	mayDecide := engine.AbilitiesOfPerson(*st.user).ApproveAny
	rows := make([]templates.NoticeRow, 0, len(list))
	for _, n := range list {
		when := p.DateTime(n.At.In(loc))
		row := templates.NoticeRow{ID: n.ID, Kind: n.Kind, Link: "/studio/releases/" + n.ReleaseID, ActionKey: "notice.open",
			Sentence: p.T("notice."+n.Kind, "Title", n.Title, "Time", when)}
		o := n.Outcome
		switch n.Kind {
		case scheduler.NoticeApprovalDue:
			row.Link, row.ActionKey = "/studio/approvals", "notice.review"
		case scheduler.NoticePublished:
			if o != nil && o.LatenessSeconds != nil && *o.LatenessSeconds > 0 {
				row.Sentence = p.T("notice.published_late", "Title", n.Title, "Time", p.DateTime(o.At.In(loc)),
					"Late", p.Duration(time.Duration(*o.LatenessSeconds)*time.Second))
			}
		case scheduler.NoticeMissed:
			if o != nil && o.LatenessSeconds != nil {
				row.Sentence = p.T("notice.missed_by", "Title", n.Title, "Late", p.Duration(time.Duration(*o.LatenessSeconds)*time.Second))
			}
			if mayDecide {
				row.ActionKey = "notice.publish_now"
			}
		case scheduler.NoticeExpired:
			if o != nil && (o.Reason == "approval_lost" || o.Reason == releases.ReasonCreatorRemoved || o.Reason == releases.ReasonAutoWindowEnded) {
				// §10.6: Editors approve and publish it now
				row.Sentence = p.T("notice.expired_"+o.Reason, "Title", n.Title, "Time", when)
			}
			if mayDecide {
				row.ActionKey = "notice.approve_and_publish_now"
			}
		case scheduler.NoticeConflict:
			row.ActionKey = "notice.resolve"
		case scheduler.NoticeFailed:
			if o != nil && o.Code == engine.CodeDependencyMissing {
				row.Sentence = p.T("notice.failed_dependency_missing", "Title", n.Title, "Time", when)
			}
			if o != nil && o.Code == releases.CodeSlugTaken {
				row.Sentence = p.T("notice.failed_slug_taken", "Title", n.Title, "Time", when, "Path", o.Message)
			}
		case scheduler.NoticeAutomationDigest:
			// The digest's numbers, rebuilt from its run, after the sentence.
			d, err := h.jobs.Digest(ctx, n.AutomationID, n.RunID)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			for _, s := range d.Sentences() {
				row.Details = append(row.Details, p.T(s.Key, s.Args...))
			}
			row.Link = RunURL(n.RunID)
		case scheduler.NoticeAutomationPaused, scheduler.NoticeAutomationFailed:
			// The run that failed; a pause names no run: the automation's
			// History shows the three that failed.
			row.Link = HistoryURL(n.AutomationID)
			if n.RunID != "" {
				row.Link = RunURL(n.RunID)
			}
		case scheduler.NoticeStalled:
			row.Link, row.ActionKey = "", ""
			if engine.AbilitiesOfPerson(*st.user).Settings {
				row.Link, row.ActionKey = "/studio/settings", "notice.scheduler_status"
			}
		}
		rows = append(rows, row)
	}
	h.render(w, r, http.StatusOK, templates.NotificationsPage(h.page(r, "notice.title", "notifications"), rows))
}
