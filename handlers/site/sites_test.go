package site

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/public"
)

// TestSiteReaderIsFresh: however requests overlap, each one's answer comes
// from a read that began after the request arrived, so a pointer flip that
// committed before a request came in is in its answer; and reads are shared.
func TestSiteReaderIsFresh(t *testing.T) {
	t.Parallel()
	var version, loads atomic.Int64 // version: the database's state, bumped before each request
	sr := &siteReader{load: func(context.Context) ([]public.LiveSite, error) {
		loads.Add(1)
		v := version.Load()
		time.Sleep(50 * time.Microsecond) // a read takes a while
		return []public.LiveSite{{Site: engine.Site{Rev: v}}}, nil
	}}
	const workers, each = 32, 200
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				arrived := version.Add(1) // a write commits, then the request arrives
				sites, err := sr.sites(context.Background())
				if err != nil || len(sites) != 1 {
					t.Errorf("sites: %v %v", sites, err)
					return
				}
				if sites[0].Rev < arrived {
					t.Errorf("a request that arrived at version %d was answered with version %d", arrived, sites[0].Rev)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests, %d reads", workers*each, loads.Load())
	if loads.Load() >= workers*each {
		t.Errorf("%d reads for %d requests: nothing shared", loads.Load(), workers*each)
	}
}

// TestSiteReaderCancel: a leader whose request is canceled still reads for
// the others, and a waiting request can give up.
func TestSiteReaderCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	sr := &siteReader{load: func(ctx context.Context) ([]public.LiveSite, error) {
		<-release
		return []public.LiveSite{{Site: engine.Site{ID: "site_x"}}}, ctx.Err()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := sr.sites(ctx); first <- err }()
	for !sr.busy() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	waiter, wcancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { _, err := sr.sites(waiter); gaveUp <- err }()
	wcancel()
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the canceled leader's read failed: %v", err)
	}
	<-gaveUp // either answered or gave up; it must not hang
	if sites, err := sr.sites(context.Background()); err != nil || sites[0].ID != "site_x" {
		t.Errorf("after: %v %v", sites, err)
	}
}

// busy reports whether a read is in flight.
func (sr *siteReader) busy() bool {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.cur != nil
}
