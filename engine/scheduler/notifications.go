package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
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
	// NoticeAutomationPaused: an automation the person owns was
	// auto-paused (three failures, a budget) or broke; its reason is
	// PausedReason. NoticeAutomationFailed: one of its runs failed in the
	// last week; the run is RunID, its error code ErrorCode.
	NoticeAutomationPaused = "automation-paused"
	NoticeAutomationFailed = "automation-failed"
	// NoticeAutomationDigest: the newest weekly digest of an automation the
	// person owns, from the last week; the run is RunID (engine/jobs'
	// Digest rebuilds its numbers).
	NoticeAutomationDigest = "automation-digest"
)

// automationFailuresListed bounds the failed runs the notices read.
const automationFailuresListed = 50

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
	// AutomationID, RunID, PausedReason and ErrorCode are set on the
	// automation notices (Title is then the automation's name).
	AutomationID string
	RunID        string
	PausedReason string
	ErrorCode    string
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
	due, pastLease, err := t.stuck(ctx, siteID, "", now)
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
	autos, err := t.automationNotices(ctx, u, siteID, now)
	if err != nil {
		return nil, err
	}
	return append(out, autos...), nil
}

// automationNotices are §14's automation-paused, automation-failed and
// automation-digest for the automations u owns: the site's automations,
// its newest failed runs, and its newest digests when u owns a digest.
func (t *Scheduler) automationNotices(ctx context.Context, u engine.User, siteID string, now time.Time) ([]Notification, error) {
	list, err := t.store.Automations(ctx, siteID)
	if err != nil {
		return nil, err
	}
	owned := map[string]automations.Automation{}
	digests := false
	var out []Notification
	for _, a := range list {
		if a.Owner.ID != u.ID {
			continue
		}
		owned[a.ID] = a
		if b, _ := a.Builtin(); b == automation.BuiltinWeeklyDigest {
			digests = true
		}
		if a.State == automations.AutomationAutoPaused || a.State == automations.AutomationBroken {
			out = append(out, Notification{Kind: NoticeAutomationPaused, ID: fmt.Sprintf("%s:%s:%d", NoticeAutomationPaused, a.ID, a.Rev),
				AutomationID: a.ID, Title: a.Name, At: a.UpdatedAt, PausedReason: a.PausedReason})
		}
	}
	if len(owned) == 0 {
		return out, nil
	}
	failed, err := t.store.Runs(ctx, automations.RunFilter{SiteID: siteID, State: "failed", Limit: automationFailuresListed})
	if err != nil {
		return nil, err
	}
	for _, r := range failed {
		a, ok := owned[r.SubjectID]
		if !ok || r.SubjectKind != automations.SubjectAutomation || now.Sub(r.OccurrenceAt) > problemsFor {
			continue
		}
		at := r.OccurrenceAt
		if r.EndedAt != nil {
			at = *r.EndedAt
		}
		out = append(out, Notification{Kind: NoticeAutomationFailed, ID: NoticeAutomationFailed + ":" + r.ID, AutomationID: a.ID,
			RunID: r.ID, Title: a.Name, At: at, ErrorCode: r.ErrorCode})
	}
	if !digests {
		return out, nil
	}
	done, err := t.store.Runs(ctx, automations.RunFilter{SiteID: siteID, State: string(automation.RunSucceeded), Limit: automationFailuresListed})
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, r := range done { // newest first: one digest per automation
		a, ok := owned[r.SubjectID]
		if b, _ := a.Builtin(); !ok || b != automation.BuiltinWeeklyDigest || shown[a.ID] || r.EndedAt == nil ||
			now.Sub(*r.EndedAt) > problemsFor {
			continue
		}
		shown[a.ID] = true
		out = append(out, Notification{Kind: NoticeAutomationDigest, ID: NoticeAutomationDigest + ":" + r.ID, AutomationID: a.ID,
			RunID: r.ID, Title: a.Name, At: *r.EndedAt})
	}
	return out, nil
}
