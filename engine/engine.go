// Package engine holds the use cases every surface calls (Studio pages, the
// JSON API, the CLI and the scheduler): releases, content, approvals, gates
// and settings, and what one release run does (RunRelease, shared by the
// scheduler's tick and Publish now), with the people they act for (User,
// its scopes and Require; Token). Business rules live here so the
// surfaces can never disagree; storage is reached through the Store
// interface that this package declares and package store implements.
//
// Other use-case families have their own packages with their own narrow
// store interfaces, wired beside the engine in cmd/studio: engine/calendar
// (the calendar read model), engine/scheduler (when due work runs, the
// health report and the notices), engine/public (the public view and
// preview links), engine/settings (kill switch, write cap, zone, language),
// engine/automations and engine/identity (accounts, sign-in and its
// throttle, passwords, access tokens). They import the root; the root
// imports none.
package engine

import (
	"context"
	"errors"
	"sync"

	"log/slog"

	"studio/engine/localtime"
	"studio/engine/release"
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

	mu        sync.Mutex
	dbProblem string    // the database problem last logged (checkDatabase)
	dbLogged  time.Time // and when
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
// blocks; a pending poke already covers this one.
func (e *Engine) Poke() {
	select {
	case e.pokes <- struct{}{}:
	default:
	}
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

// Refusal codes the engine returns besides those of engine/release.
const (
	CodeNotFound        = "not_found"
	CodeForbidden       = "forbidden"
	CodeStale           = "stale"
	CodeScheduledLocked = "scheduled_locked"
	CodeRunning         = "release_running"
	CodeBadState        = "bad_state"
)

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
