package site

import (
	"context"
	"fmt"
	"testing"
	"time"

	"studio/engine/jobs"
)

type countedNotFounds struct{ calls [][]jobs.NotFound }

func (c *countedNotFounds) CountNotFound(_ context.Context, counts ...jobs.NotFound) error {
	c.calls = append(c.calls, counts)
	return nil
}

// A burst of 404s is one write: known paths add up, and the paths waiting
// are bounded, so a scan of random paths holds no more than
// maxPendingNotFound of them in memory.
func TestNotFoundsAreWrittenTogether(t *testing.T) {
	c := &countedNotFounds{}
	n := notFounds{counter: c, log: func(err error) { t.Error(err) }}
	at := time.Date(2026, 11, 2, 23, 59, 0, 0, time.UTC)
	for range 3 {
		n.count("site_a", "/gone", at)
	}
	n.count("site_a", "/gone", at.Add(2*time.Minute)) // the next UTC day: its own count
	for i := range 2 * maxPendingNotFound {
		n.count("site_a", fmt.Sprintf("/scan-%d", i), at)
	}
	n.count("site_a", "/gone", at) // known: still counted when full
	if err := n.flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.calls) != 1 || len(c.calls[0]) != maxPendingNotFound {
		t.Fatalf("%d writes, the first of %d paths; want one of %d", len(c.calls), len(c.calls[0]), maxPendingNotFound)
	}
	days := map[string]int{}
	for _, h := range c.calls[0] {
		if h.Path == "/gone" {
			days[h.At.UTC().Format(time.DateOnly)] = h.Hits
		}
	}
	if days["2026-11-02"] != 4 || days["2026-11-03"] != 1 {
		t.Errorf("/gone counted %v, want 4 on 2 November and 1 on the 3rd", days)
	}
	if err := n.flush(context.Background()); err != nil || len(c.calls) != 1 {
		t.Errorf("an empty flush wrote (%d writes, %v)", len(c.calls), err)
	}
}

// Close writes what waits and counts nothing more: no timer of a closed
// handler writes to a database that may be closed by then.
func TestClosedHandlerCountsNoMore404s(t *testing.T) {
	c := &countedNotFounds{}
	h := &Handler{notFounds: notFounds{counter: c, log: func(err error) { t.Error(err) }}}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	h.notFounds.count("site_a", "/gone", at)
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.notFounds.count("site_a", "/gone", at)
	if h.notFounds.timer != nil || len(h.notFounds.pending) != 0 {
		t.Fatalf("after Close: timer %v, %d pending", h.notFounds.timer, len(h.notFounds.pending))
	}
	if len(c.calls) != 1 || len(c.calls[0]) != 1 || c.calls[0][0].Hits != 1 {
		t.Fatalf("writes %+v, want the one 404 counted before Close", c.calls)
	}
}
