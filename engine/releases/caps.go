package releases

import (
	"context"
	"errors"
	"time"

	"studio/engine"
	"studio/engine/policy"
)

// Limits on what one person without releases:publish (an Author, a
// Contributor) can hold open, so the lowest roles cannot exhaust a site or
// lock its live pages far ahead (issue 10 item 5).
const (
	// CodeTooManyOpenReleases: the person already has
	// MaxOpenReleasesPerPerson open releases on the site.
	CodeTooManyOpenReleases = "too_many_open_releases"
	// CodeTooFarForRequest: a request for approval for a time more than
	// RequestHorizon ahead (§10.5: every agent's; and people's without
	// releases:publish); on the "time" field.
	CodeTooFarForRequest = "too_far_for_request"
)

const (
	// MaxOpenReleasesPerPerson is the most open releases one person
	// without releases:publish may have created on a site. Open is what
	// the site's cap counts (§6.1 step 7): draft, awaiting_approval,
	// scheduled and running; a conflict, like the other outcomes, is
	// terminal (§5.2) and holds nothing.
	MaxOpenReleasesPerPerson = 20
	// RequestHorizon is how far ahead such a person may ask for approval.
	RequestHorizon = 30 * 24 * time.Hour
)

// OpenCaps bounds the open releases of a site when a release is inserted
// (NewRelease.Caps): the store counts them in the insert's own transaction,
// so two creations at once cannot both pass a cap. A zero cap is none.
type OpenCaps struct {
	Site      int    // the site's open releases
	CreatorID string // whose open releases Creator counts
	Creator   int    // the open releases created by CreatorID
}

// The store's answers when an insert would pass a cap of OpenCaps.
var (
	ErrSiteCap    = errors.New("the site has as many open releases as it may")
	ErrCreatorCap = errors.New("the creator has as many open releases as they may")
)

// openCaps are the caps on u's new release: the site's, and u's own when u
// may not approve releases.
func openCaps(u engine.User) OpenCaps {
	c := OpenCaps{Site: MaxOpenReleases}
	if !policy.Has(u.Role, policy.ReleasesPublish) {
		c.CreatorID, c.Creator = u.ID, MaxOpenReleasesPerPerson
	}
	return c
}

// insertRelease inserts u's new release under openCaps(u): too_many_releases
// when the site is full, too_many_open_releases when u is; nothing is
// written then. Every use case that creates a release goes through it.
func (e *Releases) insertRelease(ctx context.Context, u engine.User, nr NewRelease) error {
	nr.Caps = openCaps(u)
	err := e.store.CreateRelease(ctx, nr)
	switch {
	case errors.Is(err, ErrSiteCap):
		return &engine.Error{Code: CodeTooManyReleases, Args: map[string]any{"Count": MaxOpenReleases}}
	case errors.Is(err, ErrCreatorCap):
		return &engine.Error{Code: CodeTooManyOpenReleases, Args: map[string]any{"Max": MaxOpenReleasesPerPerson}}
	}
	return err
}

// InsertRelease is insertRelease for engine/gates, which creates its
// one-item releases itself: a pinned node that moved or is held since
// answers scheduled_locked or stale (pinConflict).
func (e *Releases) InsertRelease(ctx context.Context, u engine.User, nr NewRelease) error {
	err := e.insertRelease(ctx, u, nr)
	if errors.Is(err, engine.ErrConflict) {
		return e.pinConflict(ctx, nr.Release.SiteID, nr.Release.ID, nr.Release.Items)
	}
	return err
}

// checkRequestTime refuses a time more than RequestHorizon ahead of now
// for a release u would file a request for: always for an agent, whoever
// owns its key (§10.5: further out an agent proposes a draft and a person
// schedules it; an auto approval never reaches that far, §10.7), and for a
// person who may not approve releases (issue 10; someone who may gives
// their own approval and files no request). Every use case that files a
// request with a time calls it: scheduling, moving, re-pinning.
func checkRequestTime(u engine.User, at, now time.Time) error {
	bound := u.Agent != nil || !policy.Has(u.Role, policy.ReleasesPublish)
	if !bound || !at.After(now.Add(RequestHorizon)) {
		return nil
	}
	return &engine.Error{Code: CodeTooFarForRequest, Field: "time", Args: map[string]any{"Days": int(RequestHorizon / (24 * time.Hour))}}
}
