package site

import (
	"context"
	"sync"

	"studio/engine/public"
)

// siteReader reads the sites (and so the live snapshot pointer) for the
// public site's requests, sharing one read among the requests that arrive
// together. Each request waits for a read that starts after it arrived, so
// it never sees a pointer older than its own arrival (a release that went
// live before a request came in is always in its answer), yet under load
// one database read serves a whole batch of requests instead of one each.
//
// With generation (the database's commit counter, Store.Generation), the
// last answer is kept and serves every request that finds the counter
// where it was before that answer was read: nothing committed since, in
// this process or another, so the sites are as read. Only a commit costs
// a read of the sites.
type siteReader struct {
	load       func(context.Context) ([]public.LiveSite, error)
	generation func(context.Context) (int64, error) // nil: read on every request

	mu   sync.Mutex
	cur  *siteRead // the read in flight, if any
	next *siteRead // the read that requests arriving now will share
	last *siteRead // the last read that succeeded, with the generation it began at
}

type siteRead struct {
	after chan struct{} // closed when the read before it is done
	done  chan struct{}
	sites []public.LiveSite
	err   error
	gen   int64
	known bool // gen was read before the sites
}

func (sr *siteReader) sites(ctx context.Context) ([]public.LiveSite, error) {
	if sr.generation != nil {
		if g, err := sr.generation(ctx); err == nil {
			sr.mu.Lock()
			last := sr.last
			sr.mu.Unlock()
			if last != nil && last.known && last.gen == g {
				return last.sites, nil
			}
		}
	}
	sr.mu.Lock()
	if sr.cur == nil { // nothing in flight: read now
		r := &siteRead{done: make(chan struct{})}
		sr.cur = r
		sr.mu.Unlock()
		sr.run(ctx, r)
		return r.sites, r.err
	}
	// A read is in flight but began before this request: share the next
	// one, which begins when that one is done. Its first member leads it.
	r, lead := sr.next, false
	if r == nil {
		r, lead = &siteRead{after: sr.cur.done, done: make(chan struct{})}, true
		sr.next = r
	}
	sr.mu.Unlock()
	if !lead {
		select {
		case <-r.done:
			return r.sites, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	<-r.after
	sr.mu.Lock()
	sr.cur, sr.next = r, nil // from here on, newcomers wait for the read after this one
	sr.mu.Unlock()
	sr.run(ctx, r)
	return r.sites, r.err
}

// run reads for r and its members. The leader's cancellation must not fail
// the others, so the read ignores it.
func (sr *siteReader) run(ctx context.Context, r *siteRead) {
	ctx = context.WithoutCancel(ctx)
	if sr.generation != nil {
		g, err := sr.generation(ctx)
		r.gen, r.known = g, err == nil
	}
	r.sites, r.err = sr.load(ctx)
	close(r.done)
	sr.mu.Lock()
	if sr.cur == r {
		sr.cur = nil
	}
	if r.err == nil {
		sr.last = r
	}
	sr.mu.Unlock()
}
