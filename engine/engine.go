// Package engine is the kernel every use-case family imports — Clock and
// the poke bus, Error and the refusals, User and its scopes, Site, the
// audit entry — and, until they move to engine/releases (issue 37), the
// release and approval use cases: drafts, schedule, move, re-pin and
// re-base, approvals, undo, diff, caps and the release views and
// abilities, with the people they act for and the rules they share (who
// may do what, live addresses). Business rules live in the engine packages
// so the surfaces can never disagree; storage is reached through the Store
// interface that this package declares and package store implements.
//
// Other use-case families have their own packages with their own narrow
// store interfaces, wired beside the engine in engine/services (which
// cmd/studio builds): engine/nodes (pages, entries and media files, the
// content list, a site's whole publish and its history), engine/calendar
// (the calendar read model),
// engine/scheduler (when due work runs and what one release run does: the
// tick's run and Publish now, the leases, the automations' occurrences
// stepped through their jobs, the retention system job, the health report
// and the notices), engine/public (the public view and preview links),
// engine/settings (kill switch, write cap, zone, language, address),
// engine/gates (setting and lifting embargoes and expiries),
// engine/identity (accounts, sign-in and its throttle, sessions,
// passwords, access tokens), engine/people (a site's members and
// invitations), engine/agents (agent keys), engine/automations
// (automations made from presets or rules, changed, paused, resumed, run
// now and deleted, rule previews, and the runs of automations and releases
// that History lists), engine/jobs (the built-in jobs' bodies) and
// engine/setup (the first run, new sites). They import the root; the root
// imports none: an approved "on-approval" release runs through the
// scheduler's manual run, which it registers (SetManualRunner).
// docs/ARCHITECTURE.md draws the whole map.
package engine

import (
	"context"
	"errors"
	"sync"

	"log/slog"

	"studio/engine/localtime"
	"studio/engine/model/release"
	"time"
)

// Clock is the engine's only source of time. Production wires the system
// clock in cmd/studio; tests wire a fake one.
type Clock interface {
	Now() time.Time
	// WakeAt fires once the clock reaches t. It takes an instant, not a
	// duration, so a clock that moves between reading the time and going
	// to sleep cannot push the wake-up later.
	WakeAt(t time.Time) <-chan time.Time
}

// Engine runs the use cases against a store at the clock's time.
type Engine struct {
	store Store
	clock Clock
	log   *slog.Logger
	pokes chan struct{}

	mu sync.Mutex
	// manualRunner is a person's manual run, Publish now: the scheduler's,
	// registered by scheduler.New (SetManualRunner); nil until then.
	manualRunner ManualRunner
	// announce tells the other instances on the same database about a
	// poke (SetAnnouncer); nil when this process is alone.
	announce func()
}

// New wires an engine. log may be nil.
func New(store Store, clock Clock, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{store: store, clock: clock, log: log, pokes: make(chan struct{}, 1)}
}

// Now is the engine clock's current time, truncated to milliseconds because
// instants are stored with millisecond precision.
func (e *Engine) Now() time.Time { return e.clock.Now().UTC().Truncate(time.Millisecond) }

// Poke wakes the ticker early: something was scheduled or moved. It never
// blocks; a pending poke already covers this one. The other instances on
// the same database are told too (SetAnnouncer).
func (e *Engine) Poke() {
	e.Woken()
	e.mu.Lock()
	announce := e.announce
	e.mu.Unlock()
	if announce != nil {
		announce()
	}
}

// Woken wakes this process's ticker only: another instance announced that
// something was scheduled or moved.
func (e *Engine) Woken() {
	select {
	case e.pokes <- struct{}{}:
	default:
	}
}

// SetAnnouncer makes every Poke also call announce, which must not block:
// the wiring's way to wake the tickers of other instances that share the
// database (store.Announce).
func (e *Engine) SetAnnouncer(announce func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.announce = announce
}

// Pokes receives a value after Poke: the scheduler's loop waits on it.
func (e *Engine) Pokes() <-chan struct{} { return e.pokes }

// WakeAt is the engine clock's wake-up at t, for the scheduler's loop.
func (e *Engine) WakeAt(t time.Time) <-chan time.Time { return e.clock.WakeAt(t) }

// Error is a refusal a person can act on. Code is the stable RFC-style code
// (API responses carry it); Field names the form field it belongs to, if any.
// Messages are looked up as "error.<code>" in the person's language.
type Error struct {
	Code  string
	Field string
	Args  map[string]any
}

func (e *Error) Error() string {
	if e.Field != "" {
		return "engine: " + e.Code + " (" + e.Field + ")"
	}
	return "engine: " + e.Code
}

// Refusal codes the engine returns besides those of engine/model/release.
const (
	CodeNotFound        = "not_found"
	CodeForbidden       = "forbidden"
	CodeStale           = "stale"
	CodeScheduledLocked = "scheduled_locked"
	CodeRunning         = "release_running"
	CodeBadState        = "bad_state"
)

// Refusal codes of Publish now (engine/scheduler's PublishNow; the gates
// and a draft's "Send and publish now" return some too), besides stale,
// bad_state, release_running, scheduled_locked and forbidden.
const (
	// CodePinnedChanged: a pinned node was edited after the release let go
	// of it, so its pinned version is no longer the working copy.
	CodePinnedChanged = "pinned_changed"
	// CodeSiteBusy: another release of the site is being published.
	CodeSiteBusy = "site_busy"
	// CodeSitePaused: the site's kill switch is on (§11.6).
	CodeSitePaused = "site_paused"
	// CodeConflict: the run found a live version changed since pinning
	// (§6.4); the release is held as a conflict and nothing was published.
	CodeConflict = "conflict"
	// CodeDependencyMissing: the run found a dependency that is not live
	// and not in the release; the release failed, nothing was published.
	CodeDependencyMissing = "dependency_missing"
	// CodeNotPublishedNow: the run ended without publishing for another
	// reason (the approval's binding no longer matches, the site is gone).
	CodeNotPublishedNow = "publish_now_failed"
)

// Scheduler is the actor of every effect the ticker has (§6.3), and of
// the engine's own system acts (a request withdrawn when its release moved).
var Scheduler = release.Actor{Kind: "system", ID: "sys_scheduler", Name: "Scheduler"}

// ManualRunner is a person's manual run of a release, Publish now
// ((*scheduler.Scheduler).PublishNow). The root cannot import the
// scheduler, so scheduler.New registers its own (SetManualRunner).
type ManualRunner interface {
	PublishNow(ctx context.Context, u User, siteID, id string, rev int64) (ReleaseRow, error)
}

// SetManualRunner registers the manual run the engine's approvals use to
// carry out an approved "on-approval" release at once; scheduler.New
// calls it. Without one, such a release is left to the ticker a minute later
// (its fallback time).
func (e *Engine) SetManualRunner(m ManualRunner) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.manualRunner = m
}

// publishNow is a person's manual run through the registered ManualRunner;
// without one it is refused as site_busy, which its callers take as "leave
// it to the ticker".
func (e *Engine) publishNow(ctx context.Context, u User, siteID, id string, rev int64) (ReleaseRow, error) {
	e.mu.Lock()
	m := e.manualRunner
	e.mu.Unlock()
	if m == nil {
		return ReleaseRow{}, refuse(CodeSiteBusy, "")
	}
	return m.PublishNow(ctx, u, siteID, id, rev)
}

// ChangedElsewhere reports whether the refusal means the state moved under
// the caller (HTTP 409 on every surface): a stale rev, a lock, a run in
// progress, or a run that found the release changed.
func (e *Error) ChangedElsewhere() bool {
	switch e.Code {
	case CodeStale, CodeScheduledLocked, CodeRunning, CodeStateChanged, CodeConflict, CodePinnedChanged, CodeSiteBusy:
		return true
	}
	return false
}

func refuse(code, field string) *Error { return &Error{Code: code, Field: field} }

// IsNotFound reports whether err answers not_found: ErrNotFound, or a
// refusal naming a thing that does not exist.
func IsNotFound(err error) bool {
	e, ok := AsError(err)
	return errors.Is(err, ErrNotFound) || ok && e.Code == CodeNotFound
}

// Refuse is refuse for the use-case packages beside the root.
func Refuse(code, field string) *Error { return refuse(code, field) }

// ErrNotFound is returned by stores when a row does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned by stores when a guarded write changed nothing:
// someone else changed the row first.
var ErrConflict = errors.New("changed elsewhere")

// AsError returns the engine refusal in err, if there is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Refusals returns every engine refusal in err, in order: a form that
// refuses several fields at once joins them (errors.Join).
func Refusals(err error) []*Error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var all []*Error
		for _, one := range j.Unwrap() {
			all = append(all, Refusals(one)...)
		}
		return all
	}
	if e, ok := AsError(err); ok {
		return []*Error{e}
	}
	return nil
}

// CodeOf is codeOf for the use-case packages beside the root (engine/gates).
func CodeOf(err error) string { return codeOf(err) }

// codeOf returns the stable code of a refusal from a pure engine package.
func codeOf(err error) string {
	var le *localtime.ParseError
	var re *release.Error
	switch {
	case errors.As(err, &le):
		return le.Code
	case errors.As(err, &re):
		return re.Code
	}
	return "invalid"
}

// changeRelease writes c settled (Change.Settled): what it does to the
// approval and the request is the engine's rule, not the store's.
func (e *Engine) changeRelease(ctx context.Context, c Change) error {
	return e.store.ChangeRelease(ctx, c.Settled())
}

// decideApproval writes d with its release change settled.
func (e *Engine) decideApproval(ctx context.Context, d Decision) error {
	d.Release = d.Release.Settled()
	return e.store.DecideApproval(ctx, d)
}
