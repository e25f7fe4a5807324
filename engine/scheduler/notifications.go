package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/policy"
	"studio/engine/release"
)

// Notification kinds (RFC §14).
const (
	NoticeApprovalDue = "schedule-approval-due"
	NoticeUpcoming    = "schedule-upcoming"
	NoticePublished   = "schedule-published"
	NoticeConflict    = "schedule-conflict"
	NoticeMissed      = "schedule-missed"
	NoticeExpired     = "schedule-expired"
	NoticeFailed      = "schedule-failed"
	NoticeStalled     = "scheduler-stalled"
	// NoticeDueNotClaimed: a release is more than a minute past its time
	// and no ticker has claimed it; NoticePastLease: a release's run ended
	// its lease and nobody took it over (Status).
	NoticeDueNotClaimed = "scheduler-due-not-claimed"
	NoticePastLease     = "scheduler-past-lease"
)

// How far notices look (§14): approvals due within an hour, releases due
// within 15 minutes, publications of the last day; problems for a week.
const (
	approvalDueWithin = time.Hour
	upcomingWithin    = 15 * time.Minute
	publishedFor      = 24 * time.Hour
	problemsFor       = 7 * 24 * time.Hour
	stalledDueWithin  = 24 * time.Hour
)

// Notification is derived from state on every read, never stored (§14).
// Its ID is stable, so a toast fires once.
type Notification struct {
	ID        string
	Kind      string
	ReleaseID string
	Title     string
	At        time.Time // the release's time, or the last tick for a stalled scheduler
	Outcome   *release.Outcome
}

// Notifications are the notices for u on a site, newest concern first.
func (t *Scheduler) Notifications(ctx context.Context, u engine.User, siteID string) ([]Notification, error) {
	now := t.e.Now()
	rows, err := t.store.Releases(ctx, siteID, now.Add(-problemsFor), now.Add(stalledDueWithin))
	if err != nil {
		return nil, err
	}
	mayDecide := policy.Has(u.Role, policy.ReleasesPublish)
	var out []Notification
	dueSoon := false
	mine := map[string]bool{}
	for _, r := range rows {
		mine[r.ID] = r.CreatedBy.ID == u.ID || (r.Approval != nil && r.Approval.By.ID == u.ID)
		if r.ExecuteAt == nil {
			continue
		}
		at := *r.ExecuteAt
		mine := r.CreatedBy.ID == u.ID || (r.Approval != nil && r.Approval.By.ID == u.ID)
		n := Notification{ReleaseID: r.ID, Title: r.Title, At: at, Outcome: r.Outcome}
		switch {
		case r.State == release.StateAwaitingApproval && at.Sub(now) <= approvalDueWithin && mayDecide && r.CreatedBy.ID != u.ID:
			n.Kind, n.ID = NoticeApprovalDue, fmt.Sprintf("%s:%s:%s", NoticeApprovalDue, r.ID, localtime.FormatInstant(at))
		case r.State == release.StateScheduled && at.Sub(now) <= upcomingWithin && mine:
			n.Kind, n.ID = NoticeUpcoming, fmt.Sprintf("%s:%s:%s", NoticeUpcoming, r.ID, localtime.FormatInstant(at))
		case r.State == release.StatePublished && r.Outcome != nil && now.Sub(r.Outcome.At) <= publishedFor && mine:
			n.Kind, n.ID = NoticePublished, NoticePublished+":"+r.ID
		case (r.State == release.StateConflict || r.State == release.StateMissed || r.State == release.StateFailed) && (mine || mayDecide):
			n.Kind = map[release.State]string{release.StateConflict: NoticeConflict, release.StateMissed: NoticeMissed,
				release.StateFailed: NoticeFailed}[r.State]
			n.ID = n.Kind + ":" + r.ID
		case r.State == release.StateExpired && (r.CreatedBy.ID == u.ID || mayDecide):
			n.Kind, n.ID = NoticeExpired, NoticeExpired+":"+r.ID
		}
		if (r.State == release.StateScheduled || r.State == release.StateAwaitingApproval) && at.After(now) {
			dueSoon = true
		}
		if n.Kind != "" {
			out = append(out, n)
		}
	}
	// The scheduler stalled: Administrators, and anyone with work due in a
	// day, need to know (§8.7).
	if policy.Has(u.Role, policy.SiteSettings) || dueSoon {
		hb, err := t.store.Heartbeat(ctx)
		if err != nil && !errors.Is(err, engine.ErrNotFound) {
			return nil, err
		}
		stalled, serr := t.stalled(ctx, hb, err == nil, now)
		if serr != nil {
			return nil, serr
		}
		if stalled {
			out = append(out, Notification{Kind: NoticeStalled, At: hb.At,
				ID: NoticeStalled + ":" + now.UTC().Format("2006-01-02T15")})
		}
	}
	// Releases the scheduler should have taken and has not, for those who
	// may act on them and for their people (the report of /health, Status).
	due, pastLease, err := t.stuck(ctx, siteID, now)
	if err != nil {
		return nil, err
	}
	for _, group := range []struct {
		kind string
		list []StuckRelease
	}{{NoticeDueNotClaimed, due}, {NoticePastLease, pastLease}} {
		kind := group.kind
		for _, r := range group.list {
			if !mayDecide && !policy.Has(u.Role, policy.SiteSettings) && !mine[r.ID] {
				continue
			}
			at := r.ExecuteAt
			if kind == NoticePastLease && r.LeaseUntil != nil {
				at = r.LeaseUntil
			}
			n := Notification{Kind: kind, ReleaseID: r.ID, Title: r.Title, ID: kind + ":" + r.ID}
			if at != nil {
				n.At, n.ID = *at, n.ID+":"+localtime.FormatInstant(*at)
			}
			out = append(out, n)
		}
	}
	return out, nil
}
