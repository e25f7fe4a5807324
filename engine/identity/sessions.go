package identity

import (
	"context"
	"errors"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/ids"
)

// Session is one browser signed in to an account (issue 15, Your
// account's list): which browser on which system, from when, last seen
// when. Only that is kept of the browser: no address, no full User-Agent.
type Session struct {
	ID      string
	UserID  string
	Epoch   int64 // the account's session epoch it lives at
	Browser string
	OS      string
	Created time.Time
	Seen    time.Time
	Ended   bool
}

const (
	// sessionSeenEvery is how often a session's "last seen" is written: a
	// write at most every few minutes a session, not one a request.
	sessionSeenEvery = 5 * time.Minute
	// SessionIdle is how long a session lives unused (serve's scs idle
	// timeout): one not seen for longer is no longer listed.
	SessionIdle = 48 * time.Hour
	// sessionKept is how long an ended or idle session's row is kept.
	sessionKept = 30 * 24 * time.Hour
)

// StartSession records a new session of u's from the browser that sent
// userAgent, at the account's current epoch, and returns its id (kept in
// the session).
func (e *Identity) StartSession(ctx context.Context, u engine.User, userAgent string) (string, error) {
	now := e.e.Now()
	browser, os := BrowserOf(userAgent)
	s := Session{ID: ids.New("ses"), UserID: u.ID, Epoch: u.SessionEpoch, Browser: browser, OS: os, Created: now, Seen: now}
	return s.ID, e.store.CreateSession(ctx, s, now.Add(-sessionKept))
}

// SessionUser is the account a Studio session is signed in as: the
// account userID, while the session lives. It has ended (ErrNotFound) when
// the account's epoch moved on from epoch (a password change, "sign out
// everywhere else"), when it was signed out from another browser, or when
// the account is gone. A session from before the list (sid "") lives by
// the epoch alone.
func (e *Identity) SessionUser(ctx context.Context, userID, sid string, epoch int64) (engine.User, error) {
	if sid == "" {
		u, err := e.store.UserByID(ctx, userID)
		if err == nil && u.SessionEpoch != epoch {
			err = engine.ErrNotFound
		}
		return u, err
	}
	u, s, err := e.store.SessionOf(ctx, userID, sid)
	if err != nil {
		return engine.User{}, err
	}
	if s.Ended || u.SessionEpoch != epoch {
		return engine.User{}, engine.ErrNotFound
	}
	if now := e.e.Now(); now.Sub(s.Seen) >= sessionSeenEvery {
		if err := e.store.TouchSession(ctx, sid, now); err != nil {
			e.log.Warn("identity: session last seen", "err", err) // the list is a little behind
		}
	}
	return u, nil
}

// Sessions lists u's live sessions, the last seen first.
func (e *Identity) Sessions(ctx context.Context, u engine.User) ([]Session, error) {
	return e.store.Sessions(ctx, u.ID, u.SessionEpoch, e.e.Now().Add(-SessionIdle))
}

// EndSession signs u out of their session sid (another browser of
// theirs): its next request is signed out. ErrNotFound for a session
// that is not theirs, or has ended.
func (e *Identity) EndSession(ctx context.Context, u engine.User, sid string) error {
	if sid == "" {
		return engine.ErrNotFound
	}
	return e.store.EndSession(ctx, u.ID, sid, e.e.Now(),
		engine.AuditEntry{Action: "account.session_ended", Actor: u.Actor(), At: e.e.Now(), Details: map[string]any{"session": sid}})
}

// KeepSession moves the session sid of u's to the account's new epoch:
// the session that changed the password or signed out everywhere else
// stays signed in, and listed.
func (e *Identity) KeepSession(ctx context.Context, u engine.User, sid string, epoch int64) error {
	if sid == "" {
		return nil
	}
	err := e.store.SetSessionEpoch(ctx, u.ID, sid, epoch)
	if errors.Is(err, engine.ErrNotFound) {
		return nil // a session signed out meanwhile stays so
	}
	return err
}

// BrowserOf names the browser and the system of a User-Agent, as a person
// knows them ("Firefox", "Linux"); "" for what it does not recognise.
func BrowserOf(userAgent string) (browser, os string) {
	has := func(s string) bool { return strings.Contains(userAgent, s) }
	switch {
	case has("Edg/"):
		browser = "Edge"
	case has("OPR/"):
		browser = "Opera"
	case has("Firefox/"):
		browser = "Firefox"
	case has("HeadlessChrome/"), has("Chromium/"):
		browser = "Chromium"
	case has("Chrome/"):
		browser = "Chrome"
	case has("Safari/"):
		browser = "Safari"
	}
	switch {
	case has("iPhone"), has("iPad"):
		os = "iOS"
	case has("Android"):
		os = "Android"
	case has("Windows"):
		os = "Windows"
	case has("Mac OS X"), has("Macintosh"):
		os = "macOS"
	case has("CrOS"):
		os = "ChromeOS"
	case has("Linux"):
		os = "Linux"
	}
	return browser, os
}
