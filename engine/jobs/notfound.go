package jobs

import (
	"context"
	"time"
)

// MaxNotFoundPaths bounds the 404 paths a site keeps a day: past it, known
// paths still count and new ones are dropped.
const MaxNotFoundPaths = 1000

// NotFound is a number of 404s of one public path, seen at At (its UTC
// day is what is kept).
type NotFound struct {
	SiteID string
	Path   string
	At     time.Time
	Hits   int
}

// CountNotFound adds 404s of the public site (handlers/site collects a few
// seconds' worth in memory and hands them over together) in one
// transaction: each path normalised (NormalizePath: no query or fragment,
// slashes collapsed, at most MaxPathBytes), on its UTC day. Nothing about
// the visitor is kept: no address, no cookie.
func (j *Jobs) CountNotFound(ctx context.Context, counts ...NotFound) error {
	hits := make([]NotFoundHits, 0, len(counts))
	for _, c := range counts {
		hits = append(hits, NotFoundHits{SiteID: c.SiteID, Day: c.At.UTC().Format(time.DateOnly), Path: NormalizePath(c.Path),
			Hits: max(c.Hits, 1)})
	}
	return j.store.CountNotFound(ctx, hits, MaxNotFoundPaths)
}

// TopNotFound lists the site's most frequent 404 paths of the week before
// now (NotFoundDays UTC days, now's included), at most limit.
func (j *Jobs) TopNotFound(ctx context.Context, siteID string, now time.Time, limit int) ([]NotFoundPath, error) {
	from, to := notFoundDays(now)
	return j.store.TopNotFound(ctx, siteID, from, to, limit)
}
