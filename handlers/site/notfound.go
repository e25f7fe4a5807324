package site

import (
	"context"
	"net/http"
	"sync"
	"time"

	"studio/engine/jobs"
)

// The public site's 404s are counted in memory and handed to the counter
// (NotFoundCounter) a few seconds later, all together in one write: a
// visitor's 404 costs a map update, not a write transaction, so a scan of
// missing paths (a bot, a reader polling for an article due this minute)
// moves neither the database's writes, which the ticker's publishes wait
// for, nor the public site's cached reads, which any commit renews. What
// was not handed over when the process stops is lost: a few seconds of a
// report's counts.
const (
	// notFoundFlushAfter is how long a 404 waits to be written.
	notFoundFlushAfter = 5 * time.Second
	// maxPendingNotFound bounds the paths waiting: past it, new ones are
	// dropped until the next write (the day's table is capped as well).
	maxPendingNotFound = jobs.MaxNotFoundPaths
)

// NotFoundCounter counts 404s of public paths: the path only, nothing
// about the visitor (no address, no cookie).
type NotFoundCounter interface {
	CountNotFound(ctx context.Context, counts ...jobs.NotFound) error
}

// notFoundKey is one path of one site on one UTC day.
type notFoundKey struct{ site, path, day string }

// notFounds holds the 404s not yet handed to the counter.
type notFounds struct {
	counter NotFoundCounter // nil: none are counted
	log     func(err error)

	mu      sync.Mutex
	pending map[notFoundKey]jobs.NotFound
	timer   *time.Timer
	closed  bool // Close was called: nothing more is counted
}

// count adds one 404 of path, seen at at, and makes sure a write follows.
func (n *notFounds) count(siteID, path string, at time.Time) {
	k := notFoundKey{siteID, path, at.UTC().Format(time.DateOnly)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	c, known := n.pending[k]
	if !known && len(n.pending) >= maxPendingNotFound {
		return
	}
	if n.pending == nil {
		n.pending = map[notFoundKey]jobs.NotFound{}
	}
	c.SiteID, c.Path, c.At = siteID, path, at
	c.Hits++
	n.pending[k] = c
	if n.timer == nil {
		n.timer = time.AfterFunc(notFoundFlushAfter, func() { n.flush(context.Background()) })
	}
}

// flush hands every pending 404 to the counter in one call.
func (n *notFounds) flush(ctx context.Context) error {
	n.mu.Lock()
	pending := n.pending
	n.pending = nil
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
	n.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	batch := make([]jobs.NotFound, 0, len(pending))
	for _, c := range pending {
		batch = append(batch, c)
	}
	err := n.counter.CountNotFound(ctx, batch...)
	if err != nil {
		n.log(err)
	}
	return err
}

// FlushNotFound writes the 404s counted so far now instead of a few
// seconds later.
func (h *Handler) FlushNotFound(ctx context.Context) error { return h.notFounds.flush(ctx) }

// Close writes the 404s still waiting and counts no more, so no timer of
// the handler's outlives it: the process calls it as it stops, before the
// database closes.
func (h *Handler) Close(ctx context.Context) error {
	h.notFounds.mu.Lock()
	h.notFounds.closed = true
	h.notFounds.mu.Unlock()
	return h.notFounds.flush(ctx)
}

// countNotFound counts a visitor's 404 of a public path (not a render's).
func (h *Handler) countNotFound(r *http.Request, q *request) {
	if h.notFounds.counter == nil || r.Context().Value(renderAtKey{}) != nil {
		return
	}
	h.notFounds.count(q.snap.site.ID, r.URL.Path, q.now)
}
