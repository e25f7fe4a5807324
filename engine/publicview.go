package engine

import (
	"context"
	"time"

	"studio/engine/gate"
)

// The public view's read model: what the public site reads on every
// request to know what is live and until when it stays so.
//
// The live site can change in three ways. A gate of a live node passes
// (RFC §7): that instant is content, in the snapshot's gate index. A
// release publishes, removes or rolls back (§6.3): its instant is in the
// releases table, and every request reads it afresh with the site's
// pointer, in the same statement, so a release scheduled, moved or
// canceled a moment ago counts on the next request, whichever process did
// it. A person publishes by hand ("Publish site", Publish now, resuming a
// paused site): no instant predicts that, so the public site's ceiling on
// the CDN's lifetime (--cdn-max-age) bounds it instead.

// PublicViewStore is what the public view needs from storage.
type PublicViewStore interface {
	// LiveSites lists every site, oldest first, each with NextRelease: the
	// earliest execute_at of its releases that are scheduled, awaiting
	// approval or running. One statement.
	LiveSites(ctx context.Context) ([]LiveSite, error)
}

// LiveSite is a site as the public site reads it on every request: its
// live snapshot pointer, and the earliest instant a release may change it.
type LiveSite struct {
	Site
	// NextRelease is the earliest time of the site's releases that can
	// still publish: scheduled, awaiting approval (an approval can come at
	// any moment before its time) or running. Zero when there is none.
	//
	// A paused site counts its releases too, conservatively: resuming is a
	// person's act at any moment, and a release already due then runs at
	// once. So a due release (a running one, one the ticker has not reached
	// yet, one held by the kill switch) is a change that may happen now.
	NextRelease time.Time
}

// LiveSites reads every site with the next instant one of its releases is
// due, for the public site (one statement).
func (e *Engine) LiveSites(ctx context.Context) ([]LiveSite, error) { return e.store.LiveSites(ctx) }

// NextChange is the next instant at or after now at which the live site
// can change: the snapshot's next gate after now (gates is its index) or
// the next due release, whichever comes first. A release whose time has
// come may run at any moment, so it gives now itself. False when neither
// gates nor releases lie ahead: only a person's publish can change the
// site then.
func (s LiveSite) NextChange(gates *gate.Index, now time.Time) (time.Time, bool) {
	next, ok := gates.Next(now)
	if r := s.NextRelease; !r.IsZero() {
		if !r.After(now) {
			r = now
		}
		if !ok || r.Before(next) {
			next, ok = r, true
		}
	}
	return next, ok
}

// CDNMaxAge is the lifetime in seconds a CDN may keep a public 200 rendered
// at now (§7.4, issue 10): until the next change of the live site
// (gate.MaxAge's rounding up and 1 s floor), and never more than ceiling
// seconds, because a person's publish cannot be foreseen. A ceiling below
// 1 counts as 1.
func (s LiveSite) CDNMaxAge(gates *gate.Index, now time.Time, ceiling int) int {
	next, ok := s.NextChange(gates, now)
	return min(gate.MaxAge(next, ok, now), max(ceiling, 1))
}
