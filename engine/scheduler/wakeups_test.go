package scheduler_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/internal/enginetest"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/store"
	"studio/store/storetest"
)

// TestAScheduleOnOneInstanceWakesAnother (issue 16): two instances on one
// PostgreSQL database, each with its own store (its own connections) and
// the wiring `studio serve` gives them. Instance B's ticker has looked and
// sleeps until its next minute; a release scheduled on instance A wakes it
// at once, with the fake clock standing still, and B publishes the release
// at its time. A is not woken by its own announcement. Always on
// PostgreSQL: on SQLite one process owns the database.
func TestAScheduleOnOneInstanceWakesAnother(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	a := enginetest.NewAt(t, storetest.Postgres(t))
	a.Eng.SetAnnouncer(a.Store.Announce)
	aHeard := make(chan struct{}, 16)
	go a.Store.Wakeups(ctx, func() { aHeard <- struct{}{} }, quiet)

	stB, err := store.Open(ctx, a.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer stB.Close()
	engB := releases.New(engine.New(stB, a.Clock, nil), stB)
	engB.SetAnnouncer(stB.Announce)
	b := scheduler.New(engB, stB, nil)
	ticks := make(chan scheduler.TickReport, 16)
	b.AfterTick = func(rep scheduler.TickReport, err error) {
		if err != nil {
			t.Errorf("B's tick: %v", err)
		}
		ticks <- rep
	}
	wait := func(what string, c <-chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing in 10 s", what)
		}
	}
	tick := func(what string) scheduler.TickReport {
		t.Helper()
		select {
		case rep := <-ticks:
			return rep
		case <-time.After(10 * time.Second):
			t.Fatalf("B did not tick %s", what)
		}
		return scheduler.TickReport{}
	}
	b.Start(ctx)
	defer b.Stop()
	tick("at its start")

	// Wakeups calls woken once it listens (a wake-up may have passed
	// before): B looks once more, and then each instance is ready.
	bHeard := make(chan struct{}, 16)
	go stB.Wakeups(ctx, func() { bHeard <- struct{}{}; engB.Woken() }, quiet)
	wait("B listening", bHeard)
	tick("once it listens")
	wait("A listening", aHeard)

	r := a.Schedule(t, a.Editor, a.Article, "2026-11-02", "08:01")
	wait("B hearing A's schedule", bHeard)
	if rep := tick("after A scheduled a release"); !rep.At.Equal(start) {
		t.Fatalf("B's tick at %s; the clock stood at %s", rep.At, start)
	}
	a.Clock.Set(start.Add(time.Minute))
	if rep := tick("at the release's minute"); rep.Published != 1 {
		t.Fatalf("B's tick at the release's minute published %d", rep.Published)
	}
	if got := a.Release(t, r.ID).State; got != release.StatePublished {
		t.Fatalf("the release is %s", got)
	}
	select {
	case <-aHeard:
		t.Error("A was woken by its own announcement")
	case <-time.After(300 * time.Millisecond):
	}
}
