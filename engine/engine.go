// Package engine is the kernel every use-case family imports: the Clock
// and the poke bus that wakes the ticker, Error and the refusals, User and
// its scopes, Site, and the audit entry (with an agent call's scope). It
// holds no use case beyond the sites themselves; its Store is the small
// part of storage those need, and package store implements it.
//
// The use cases live in families above it, each with its own narrow store
// interface, wired together in engine/services (which cmd/studio builds):
// engine/releases (drafts, schedule, move, re-pin and re-base, approvals,
// undo, diff, caps, the release views and abilities), engine/nodes (pages,
// entries and media files, the content list, a site's whole publish and
// its history), engine/calendar (the calendar read model),
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
// engine/setup (the first run, new sites). They import the kernel; the
// kernel imports none of them. The pure models (engine/model/…,
// engine/content, engine/policy …) sit below it. docs/ARCHITECTURE.md
// draws the whole map.
package engine

import (
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

// Engine is the kernel of one process: its clock, its poke bus and its
// sites. The use-case families build on it (releases.New embeds it).
type Engine struct {
	store Store
	clock Clock
	log   *slog.Logger
	pokes chan struct{}

	mu sync.Mutex
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

// Log is the engine's logger, for the use-case families built on it.
func (e *Engine) Log() *slog.Logger { return e.log }

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
	// CodeBadRequest: an argument the use case does not take in this case
	// (the refusal names it), as a draft's re-pin takes no time.
	CodeBadRequest = "bad_request"
	// CodeStateChanged: the release changed after its approval was asked
	// (§10.4).
	CodeStateChanged = "state_changed"
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

// Refuse is refuse for the use-case packages above the kernel.
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

// CodeOf is codeOf for the use-case packages above the kernel (engine/gates).
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
