package jobs

import (
	"context"
	"time"
)

// MaxNotFoundPaths bounds the 404 paths a site keeps a day: past it, known
// paths still count and new ones are dropped.
const MaxNotFoundPaths = 1000

// CountNotFound counts one 404 of the public site (handlers/site calls it):
// the path normalised (NormalizePath: no query or fragment, slashes
// collapsed, at most MaxPathBytes), on at's UTC day. Nothing about the
// visitor is kept: no address, no cookie.
func (j *Jobs) CountNotFound(ctx context.Context, siteID, path string, at time.Time) error {
	return j.store.CountNotFound(ctx, siteID, at.UTC().Format(time.DateOnly), NormalizePath(path), MaxNotFoundPaths)
}

// TopNotFound lists the site's most frequent 404 paths of the week before
// now (NotFoundDays UTC days, now's included), at most limit.
func (j *Jobs) TopNotFound(ctx context.Context, siteID string, now time.Time, limit int) ([]NotFoundPath, error) {
	from, to := notFoundDays(now)
	return j.store.TopNotFound(ctx, siteID, from, to, limit)
}
