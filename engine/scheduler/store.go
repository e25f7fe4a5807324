package scheduler

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Store is what the scheduler reads and writes: what is due, the runs'
// claims, leases and guarded batches, what a run reads of the site and the
// release, and the heartbeat. Package store implements it.
type Store interface {
	// DueReleases lists releases that need the scheduler before before, in
	// each site's time order (execute_at; a running one when its lease ends
	// by then); a paused site's only when their late limit ends (rows say
	// SitePaused), at most limit. One statement: the tick reads nothing else
	// when idle.
	DueReleases(ctx context.Context, before time.Time, limit int) ([]releases.ReleaseRow, error)
	// DueWork is DueReleases and, in the same one statement, when the
	// automations and the system jobs need the tick next: the idle tick
	// reads nothing else. Rows due at the same instant come site by site,
	// from the first site whose id is at or after from, around to the
	// ones before it; each site's keep their time order.
	DueWork(ctx context.Context, before time.Time, limit int, from string) (DueWork, error)
	Heartbeat(ctx context.Context) (Heartbeat, error)
	// SchedulerGauges counts, in one statement, the releases and the
	// automation runs by state and the releases due at now not yet run
	// (Gauges without the heartbeat).
	SchedulerGauges(ctx context.Context, now time.Time) (Gauges, error)
	// PublishLateness lists how late each release run at its release's
	// time that published and was claimed at or after since went live (its
	// end less its time), on memberID's sites or on all for ""; a Publish
	// now is no such run.
	PublishLateness(ctx context.Context, since time.Time, memberID string) ([]time.Duration, error)
	// WallTimeReleases lists the scheduled and waiting releases with a
	// wall-clock time due after after.
	WallTimeReleases(ctx context.Context, after time.Time) ([]releases.ReleaseRow, error)
	// InstanceFact reads a fact of the deployment ("" when never written);
	// SetInstanceFact writes one.
	InstanceFact(ctx context.Context, name string) (string, error)
	SetInstanceFact(ctx context.Context, name, value string, at time.Time) error
	WriteHeartbeat(ctx context.Context, h Heartbeat) error
	// StuckReleases lists, for a site (siteID), the sites a person is a
	// member of (memberID) or all (both ""), scheduled releases due at or
	// before dueBefore on sites that are not paused and running ones whose
	// lease ended at or before leaseBefore.
	StuckReleases(ctx context.Context, siteID, memberID string, dueBefore, leaseBefore time.Time, limit int) ([]StuckRelease, error)
	// Releases lists a site's releases with execute_at in [from, to), and
	// every non-terminal one without a time, ordered by time then id.
	Releases(ctx context.Context, siteID string, from, to time.Time) ([]releases.ReleaseRow, error)

	// Liveness is nil while the database file is the one opened and takes
	// writes; otherwise an error wrapping ErrDatabaseGone,
	// ErrDatabaseReadOnly or ErrDiskFull. It looks again at most every few
	// seconds.
	Liveness(ctx context.Context) error
	ClaimRelease(ctx context.Context, c Claim) (bool, error)
	// RenewLease moves a claimed run's lease on; ErrConflict when the lease
	// is no longer ours or has ended.
	RenewLease(ctx context.Context, l Lease) error
	FinishRelease(ctx context.Context, f Finish) error
	// ApplyRelease returns false when the site moved between the reads and
	// the write, or a.Claim's guard failed (then with ErrNotClaimable):
	// nothing was written.
	ApplyRelease(ctx context.Context, a Apply) (bool, error)
	// RetryLater keeps a claimed run whose try failed with a transient
	// error (§8.8): it records the error and shortens the lease to
	// delay(attempt), so the next tick takes the run over then. ErrConflict
	// when the lease is no longer ours.
	RetryLater(ctx context.Context, r Retry) error
	// Reschedule moves a scheduled or waiting release's instant (never-early
	// recompute).
	Reschedule(ctx context.Context, id string, rev int64, at time.Time, audit engine.AuditEntry) error
	// ChangeRelease is engine.Store's: a guarded change of a release's
	// state without a claim (written settled, releases.Change.Settled).
	ChangeRelease(ctx context.Context, c releases.Change) error

	// What a run reads (engine.Store's reads of the same name).
	Release(ctx context.Context, siteID, id string) (releases.ReleaseRow, error)
	// LiveRefs is the site and the refs of its live snapshot's nodes among
	// ids, by id (none before its first publish): one statement, so they
	// agree, that reads those nodes by key whatever the site's size.
	LiveRefs(ctx context.Context, siteID string, ids []string) (engine.Site, []release.Ref, error)
	// MemberByID reads a person as a member of a site, with their role
	// there; engine.ErrNotFound when there is none or they are not one.
	MemberByID(ctx context.Context, siteID, id string) (engine.User, error)
	Node(ctx context.Context, siteID, id string) (content.Node, error)
	HeldNodes(ctx context.Context, siteID, nodeID string) (map[string]releases.Held, error)
	ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error)

	AutomationStore
	RetentionStore
}

// ErrNotClaimable is ApplyRelease's answer when a.Claim's guard failed:
// the release is no longer as the tick read it (another ticker published
// or claimed it), an earlier release of its site is running, or the site
// is paused. ClaimRelease, with the same guard, would refuse it too.
var ErrNotClaimable = errors.New("scheduler: the release cannot be claimed as read")

// DueWork is what one statement tells the tick (Store.DueWork).
type DueWork struct {
	Releases []releases.ReleaseRow
	// AutomationsAt is the earliest due_at of the automations (a paused
	// site's count only with an open run); nil when none is ever due.
	AutomationsAt *time.Time
	// SystemAt is the earliest next_at of the system jobs; nil when none
	// is scheduled.
	SystemAt *time.Time
}

// Claim is the ticker's claim on one due release (§8.5).
type Claim struct {
	RunID      string
	SiteID     string
	ReleaseID  string
	Rev        int64
	State      release.State // scheduled, or running with an expired lease
	OldToken   string        // the expired lease being taken over, if any
	ExecuteAt  time.Time
	Token      string
	LeaseUntil time.Time
	Trigger    string
	Now        time.Time
	// Manual is a person's manual run, "Publish now" (§8.6, §13): the
	// release is claimed from State (missed, expired or scheduled) at Rev
	// whatever its time, with Approval as its approval, and its items are
	// held again while it runs. The claim also needs every pinned node to
	// be as the release left it: no other release holds it, and a set
	// item's working copy is its pinned target or the draft the release
	// put back when it let go (restore_rev, written as the next version).
	Manual   bool
	Approval *release.Approval
}

// Finish ends a claimed run without publishing (missed, expired, conflict,
// failed); every write is guarded on the lease token.
type Finish struct {
	ReleaseID string
	RunID     string
	Token     string
	State     release.State
	RunState  string
	Outcome   release.Outcome
	Lateness  int64
	Audit     engine.AuditEntry
	Now       time.Time
}

// Apply is the guarded batch that publishes a release (§6.3): the site
// pointer flips from Site (rev, hash) to Snapshot with NewHash, and every
// later write happens only if that flip did.
type Apply struct {
	Site      engine.Site
	NewHash   string
	Snapshot  engine.Snapshot
	ReleaseID string
	RunID     string
	Token     string
	Outcome   release.Outcome
	Lateness  int64
	Audit     engine.AuditEntry
	Now       time.Time
	// Repromote is set for a manual run: a pinned node whose working copy
	// is the draft the release put back gets its pinned target again, as a
	// new version, so the working copy is what goes live (otherwise the
	// next ordinary publish would take the article down again).
	Repromote bool
	// ExecuteAt, when set, becomes the release's time as it publishes: an
	// "on-approval" release is recorded at the instant it went live.
	ExecuteAt *time.Time
	// Claim, when set, is claimed in the same transaction, guarded as
	// ClaimRelease is, and no lease is taken (Token is empty): the tick's
	// publish of a scheduled release in one transaction.
	Claim *Claim
}

// Retry is a failed try of a claimed run, to be tried again (§8.8).
type Retry struct {
	ReleaseID string
	RunID     string
	Token     string
	Error     string
	Now       time.Time
	// Delay is the wait after the run's attempt-th failed try.
	Delay func(attempt int) time.Duration
}

// Heartbeat is the scheduler's one row of health (§8.7).
type Heartbeat struct {
	At         time.Time
	Trigger    string
	NextWakeAt time.Time
	Ran        int
	More       bool
	LagSeconds int64
}
