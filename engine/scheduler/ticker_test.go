package scheduler_test

import (
	"context"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"sync/atomic"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/fakeclock"
	"studio/engine/model/release"
)

// signalClock is the bundle's fake clock, telling the test each time the
// ticker has gone to sleep on it: advancing the clock before the ticker's
// timer exists would race with it. A test can also hold the ticker inside a
// tick: while gate is set, Now blocks until the gate is closed, after saying
// so on entered.
type signalClock struct {
	*fakeclock.Clock
	sleeps  chan time.Duration
	gate    atomic.Pointer[chan struct{}]
	entered chan struct{}
}

func (c *signalClock) Now() time.Time {
	if g := c.gate.Load(); g != nil {
		c.entered <- struct{}{}
		<-*g
	}
	return c.Clock.Now()
}

func (c *signalClock) WakeAt(t time.Time) <-chan time.Time {
	d := t.Sub(c.Clock.Now())
	ch := c.Clock.WakeAt(t)
	c.sleeps <- d // buffered generously; a test that stops reading fails on its own
	return ch
}

type tickResult struct {
	rep scheduler.TickReport
	err error
}

// tickerHarness is a ticker on its own engine (so pokes from the bundle's
// engine do not reach it) over the bundle's database and clock.
type tickerHarness struct {
	clock  *signalClock
	eng    *releases.Releases
	ticker *scheduler.Scheduler
	ticks  chan tickResult
	sleeps chan time.Duration
	count  atomic.Int64
}

func startTicker(t *testing.T, b *testBundle) *tickerHarness {
	t.Helper()
	return startTickerCtx(t, b, context.Background())
}

func startTickerCtx(t *testing.T, b *testBundle, ctx context.Context) *tickerHarness {
	t.Helper()
	clk := &signalClock{Clock: b.Clock, sleeps: make(chan time.Duration, 1000), entered: make(chan struct{}, 1)}
	h := &tickerHarness{clock: clk, eng: releases.New(engine.New(b.Store, clk, nil), b.Store), ticks: make(chan tickResult, 1000), sleeps: clk.sleeps}
	h.ticker = scheduler.New(h.eng, b.Store, nil)
	h.ticker.AfterTick = func(rep scheduler.TickReport, err error) {
		h.count.Add(1)
		h.ticks <- tickResult{rep, err}
	}
	h.ticker.Start(ctx)
	t.Cleanup(h.ticker.Stop) // before the store closes: cleanups run last-in first-out
	return h
}

const waitLimit = 10 * time.Second

// tick waits for the next tick and fails on a tick error.
func (h *tickerHarness) tick(t *testing.T) scheduler.TickReport {
	t.Helper()
	select {
	case r := <-h.ticks:
		if r.err != nil {
			t.Fatalf("tick: %v", r.err)
		}
		return r.rep
	case <-time.After(waitLimit):
		t.Fatalf("no tick within %s", waitLimit)
	}
	panic("unreachable")
}

// sleep waits until the ticker is asleep on the clock and returns for how long.
func (h *tickerHarness) sleep(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-h.sleeps:
		return d
	case <-time.After(waitLimit):
		t.Fatalf("ticker did not go to sleep within %s", waitLimit)
	}
	panic("unreachable")
}

// noTick checks that no tick happens for a short while. A negative can only
// be shown by waiting; 100 ms is ample for a tick that is already due.
func (h *tickerHarness) noTick(t *testing.T) {
	t.Helper()
	select {
	case r := <-h.ticks:
		t.Fatalf("unexpected tick: %+v (err %v)", r.rep, r.err)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestTicker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		return newBundle(t)
	}

	t.Run("CatchesUpOnStart", func(t *testing.T) {
		b := setup(t)
		page := b.CreateNode(t, b.Site.ID, release.KindPage,
			content.Body{Title: "Polls closed", Slug: "polls-closed", Status: content.StatusDraft})
		missed := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00") // 06:00Z
		due := b.Schedule(t, b.Editor, page, "2026-11-02", "10:30")         // 07:30Z
		// The process was down from before 09:00 until 10:45.
		b.Clock.Set(time.Date(2026, 11, 2, 7, 45, 0, 0, time.UTC))

		h := startTicker(t, b)
		rep := h.tick(t)
		if rep.Published != 1 || rep.Late != 1 || rep.Failed != 1 || rep.Ran != 2 {
			t.Fatalf("first tick: %+v", rep)
		}
		if got := b.Release(t, due.ID); got.State != release.StatePublished || *got.Outcome.LatenessSeconds != 15*60 {
			t.Fatalf("due release: %s %+v", got.State, got.Outcome)
		}
		if got := b.Release(t, missed.ID); got.State != release.StateMissed {
			t.Fatalf("release 1 h 45 late: %s %+v", got.State, got.Outcome)
		}
		live := b.Live(t)
		if _, ok := live[page.ID]; !ok {
			t.Fatal("caught-up release not live")
		}
		if _, ok := live[b.Article.ID]; ok {
			t.Fatal("missed release published")
		}
		hb, err := b.Sched.Heartbeat(ctx)
		if err != nil || hb.Trigger != "node" || hb.Ran != 2 || !hb.At.Equal(b.Clock.Now()) {
			t.Fatalf("heartbeat %+v, %v", hb, err)
		}
	})

	t.Run("SleepsUntilTheNextDueInstant", func(t *testing.T) {
		b := setup(t)
		r := b.Schedule(t, b.Editor, b.Article, "2026-11-02", "09:00")
		b.Clock.Set(nine.Add(-30 * time.Second))

		h := startTicker(t, b)
		rep := h.tick(t)
		if rep.Ran != 0 {
			t.Fatalf("first tick ran %d", rep.Ran)
		}
		sameInstant(t, "next wake", rep.NextWakeAt, nine)
		if d := h.sleep(t); d != 30*time.Second {
			t.Fatalf("sleeps %s, want 30s", d)
		}

		b.Clock.Advance(29 * time.Second)
		h.noTick(t)
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("published before T")
		}

		b.Clock.Advance(time.Second)
		if rep := h.tick(t); rep.Published != 1 {
			t.Fatalf("tick at T: %+v", rep)
		}
		if got := b.Release(t, r.ID); got.State != release.StatePublished || *got.Outcome.LatenessSeconds != 0 {
			t.Fatalf("release: %s %+v", got.State, got.Outcome)
		}
		// Nothing left: it looks again a minute later at the latest.
		if d := h.sleep(t); d != time.Minute {
			t.Fatalf("idle sleep %s, want 1m", d)
		}
		if h.count.Load() != 2 {
			t.Fatalf("ticks = %d", h.count.Load())
		}
	})

	t.Run("WakesEveryMinuteWhenIdle", func(t *testing.T) {
		b := setup(t)
		h := startTicker(t, b)
		h.tick(t)
		if d := h.sleep(t); d != time.Minute {
			t.Fatalf("idle sleep %s", d)
		}
		b.Clock.Advance(59 * time.Second)
		h.noTick(t)
		b.Clock.Advance(time.Second)
		h.tick(t)
	})

	t.Run("PokeWakesItEarly", func(t *testing.T) {
		b := setup(t)
		h := startTicker(t, b)
		h.tick(t)
		h.sleep(t)
		frozen := b.Clock.Now()

		r, err := h.eng.ScheduleNode(ctx, b.Editor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: b.Article.ID,
			ExpectedRev: b.Article.Rev, Date: "2026-11-02", Time: "09:00"})
		if err != nil {
			t.Fatal(err)
		}
		if rep := h.tick(t); rep.Ran != 0 {
			t.Fatalf("poked tick: %+v", rep)
		}
		h.sleep(t)

		// Canceling pokes too.
		if err := h.eng.Cancel(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		h.tick(t)
		h.sleep(t)

		// An explicit poke.
		h.eng.Poke()
		h.tick(t)

		if !b.Clock.Now().Equal(frozen) {
			t.Fatal("the clock moved")
		}
		if h.count.Load() != 4 {
			t.Fatalf("ticks = %d, want 4", h.count.Load())
		}
	})

	t.Run("StopIsPromptAndFinal", func(t *testing.T) {
		b := setup(t)
		h := startTicker(t, b)
		h.tick(t)
		h.sleep(t)

		stopped := make(chan struct{})
		go func() {
			h.ticker.Stop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(waitLimit):
			t.Fatalf("Stop did not return within %s", waitLimit)
		}

		// Nothing wakes a stopped ticker: not a poke, not a due release,
		// not the clock passing its timer.
		h.eng.Poke()
		if _, err := h.eng.ScheduleNode(ctx, b.Editor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: b.Article.ID,
			ExpectedRev: b.Article.Rev, Date: "2026-11-02", Time: "09:00"}); err != nil {
			t.Fatal(err)
		}
		b.Clock.Set(nine)
		h.noTick(t)
		if n := h.count.Load(); n != 1 {
			t.Fatalf("ticks after Stop: %d in all", n)
		}
		if _, ok := b.Live(t)[b.Article.ID]; ok {
			t.Fatal("a stopped ticker published")
		}
		h.ticker.Stop() // a second Stop returns too
	})

	t.Run("StopWaitsForTheTickInProgressAndReportsNothing", func(t *testing.T) {
		b := setup(t)
		parent, cancel := context.WithCancel(ctx)
		defer cancel()
		h := startTickerCtx(t, b, parent)
		h.tick(t)
		h.sleep(t)
		hb, err := b.Sched.Heartbeat(ctx)
		if err != nil {
			t.Fatal(err)
		}

		// Hold the next tick inside RunDue, at its first look at the clock.
		gate := make(chan struct{})
		h.clock.gate.Store(&gate)
		h.eng.Poke()
		select {
		case <-h.clock.entered:
		case <-time.After(waitLimit):
			t.Fatal("poked ticker did not start a tick")
		}
		h.clock.gate.Store(nil)

		// The process is shutting down while the tick runs.
		cancel()
		stopped := make(chan struct{})
		go func() {
			h.ticker.Stop()
			close(stopped)
		}()
		select {
		case <-stopped:
			t.Fatal("Stop returned while a tick was still running")
		case <-time.After(50 * time.Millisecond):
		}
		close(gate)
		select {
		case <-stopped:
		case <-time.After(waitLimit):
			t.Fatalf("Stop did not return within %s of the tick ending", waitLimit)
		}
		// The interrupted tick is not reported as a tick, and wrote no
		// heartbeat.
		h.noTick(t)
		if n := h.count.Load(); n != 1 {
			t.Fatalf("ticks = %d, want 1", n)
		}
		if got, err := b.Sched.Heartbeat(ctx); err != nil || got != hb {
			t.Fatalf("heartbeat %+v (%v), want %+v", got, err, hb)
		}
	})

	t.Run("StopWithoutStart", func(t *testing.T) {
		b := setup(t)
		done := make(chan struct{})
		go func() {
			scheduler.New(b.Releases, b.Store, nil).Stop()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Fatal("Stop of an unstarted ticker blocked")
		}
	})
}
