package calendar_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/calendar"
	"studio/engine/ids"
	"studio/engine/jobs"
	"studio/engine/model/automation"
)

// withJobs gives the bundle's ticker the real built-in jobs, so ticks run
// automations as in every process.
func (b *testBundle) withJobs() *testBundle {
	b.Sched.SetJobs(jobs.New(b.Eng, b.Store, nil))
	return b
}

// settle ticks until the automations have nothing more to do at this
// time: a run takes a step a tick, and the next occurrence is claimed once
// the open run has ended.
func (b *testBundle) settle(tb testing.TB) {
	tb.Helper()
	for range 50 {
		if rep := b.Tick(tb); rep.Automations.Claimed == 0 && rep.Automations.Steps == 0 {
			return
		}
	}
	tb.Fatal("the automations never settle")
}

// builtin creates a broken-link check as the owner.
func (b *testBundle) builtin(tb testing.TB, name, rule, start string) automations.Automation {
	tb.Helper()
	a, err := automations.New(b.Store, b.Eng).Create(context.Background(), b.Owner, b.Site.ID, automations.Input{Name: name,
		Builtin: automation.BuiltinBrokenLinks, Rule: rule, Start: start})
	if err != nil {
		tb.Fatalf("create %s: %v", name, err)
	}
	return a
}

// allItems pages through the calendar of [from, to) for the editor.
func (b *testBundle) allItems(tb testing.TB, q calendar.CalendarQuery) []calendar.CalendarItem {
	tb.Helper()
	var out []calendar.CalendarItem
	for {
		page, err := b.Cal.Calendar(context.Background(), b.Editor, q)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		q.Cursor = page.NextCursor
	}
}

// ofAutomation keeps the items of one automation.
func ofAutomation(items []calendar.CalendarItem, id string) []calendar.CalendarItem {
	return slices.DeleteFunc(slices.Clone(items), func(it calendar.CalendarItem) bool {
		return it.Kind != calendar.ItemAutomation || it.Target != id
	})
}

// TestCalendarOccurrencesFromRuns: the real runner runs a daily check, a
// downtime coalesces two occurrences, a person runs it now, and the
// calendar shows every past occurrence from its run: its state, outcome
// and run id; the coalesced ones as skipped, linking to the skipped run;
// the manual run at its own time; an occurrence no tick reached as not
// run; nothing before the automation existed; no run in the future.
func TestCalendarOccurrencesFromRuns(t *testing.T) {
	b := newBundle(t).withJobs()
	ctx := context.Background()
	const zone = "Europe/Istanbul"
	a := b.builtin(t, "Link check", "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", "2026-11-02T09:07")
	at := func(wall string) time.Time { return wallIn(t, zone, wall) }

	b.Clock.Set(at("2026-11-02T09:08"))
	b.settle(t)
	b.Clock.Set(at("2026-11-05T09:30")) // no tick on 3 and 4 November
	b.settle(t)
	b.Clock.Set(at("2026-11-05T10:00"))
	manual, _, err := automations.New(b.Store, b.Eng).RunNow(ctx, b.Owner, b.Site.ID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	q := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 10, 26), To: midnightIn(t, zone, 2026, 11, 10)}
	// Before its first step the manual run is running, at its own time.
	running := itemByID(t, b.allItems(t, q), occID(a.ID, manual.OccurrenceAt))
	if running.State != string(automation.RunRunning) || running.RunID != manual.ID || !running.Manual ||
		calendar.ItemFacet(running) != calendar.FacetRunning {
		t.Errorf("a run in progress: %+v", running)
	}
	b.settle(t)
	b.Clock.Set(at("2026-11-06T12:00")) // the 6 November occurrence has passed, no tick has run it

	items := ofAutomation(b.allItems(t, q), a.ID)
	runID := func(wall string) string { return ids.RunID(a.ID, at(wall)) }
	skipped := runID("2026-11-03T09:07")
	type want struct {
		at      time.Time
		state   string
		runID   string
		manual  bool
		outcome bool
	}
	wants := []want{
		{at("2026-11-02T09:07"), "succeeded", runID("2026-11-02T09:07"), false, true},
		{at("2026-11-03T09:07"), "skipped", skipped, false, false},
		{at("2026-11-04T09:07"), "skipped", skipped, false, false}, // coalesced: the skipped run stands for it
		{at("2026-11-05T09:07"), "succeeded", runID("2026-11-05T09:07"), false, true},
		{manual.OccurrenceAt, "succeeded", manual.ID, true, true},
		{at("2026-11-06T09:07"), calendar.ItemNotRun, "", false, false},
		{at("2026-11-07T09:07"), "scheduled", "", false, false},
		{at("2026-11-08T09:07"), "scheduled", "", false, false},
		{at("2026-11-09T09:07"), "scheduled", "", false, false},
	}
	if len(items) != len(wants) {
		t.Fatalf("%d occurrences, want %d: %v", len(items), len(wants), itemIDs(items))
	}
	for i, w := range wants {
		it := items[i]
		if !it.At.Equal(w.at) || it.ID != occID(a.ID, w.at) || it.State != w.state || it.RunID != w.runID || it.Manual != w.manual ||
			(it.Outcome != "") != w.outcome {
			t.Errorf("occurrence %d:\n got %+v\nwant %+v", i, it, w)
		}
	}
	for _, r := range []string{runID("2026-11-02T09:07"), skipped, manual.ID} {
		if _, err := b.Store.Run(ctx, b.Site.ID, r); err != nil {
			t.Errorf("run %s behind an occurrence: %v", r, err)
		}
	}

	t.Run("RangeInsideTheDowntime", func(t *testing.T) {
		// The skipped run stands before the range; it is found all the same.
		in := q
		in.From, in.To = midnightIn(t, zone, 2026, 11, 4), midnightIn(t, zone, 2026, 11, 5)
		got := ofAutomation(b.allItems(t, in), a.ID)
		if len(got) != 1 || got[0].State != "skipped" || got[0].RunID != skipped {
			t.Errorf("4 November: %+v", got)
		}
	})
	t.Run("Facets", func(t *testing.T) {
		for facet, n := range map[string]int{calendar.FacetDone: 3, calendar.FacetNotRun: 3, calendar.FacetScheduled: 3,
			calendar.FacetAttention: 0, calendar.FacetRunning: 0} {
			fq := q
			fq.States = []string{facet}
			if got := ofAutomation(b.allItems(t, fq), a.ID); len(got) != n {
				t.Errorf("facet %s: %d occurrences, want %d: %v", facet, len(got), n, itemIDs(got))
			}
		}
	})
	t.Run("MonthCountsTheSame", func(t *testing.T) {
		days, err := b.Cal.CalendarDays(ctx, b.Editor, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, d := range days {
			total += d.ByKind[calendar.ItemAutomation]
			for _, it := range d.Items {
				if it.Kind == calendar.ItemAutomation && it.At.Equal(at("2026-11-02T09:07")) && it.RunID != runID("2026-11-02T09:07") {
					t.Errorf("the chip of 2 November: %+v", it)
				}
			}
		}
		if total != len(wants) {
			t.Errorf("the grid counts %d occurrences, want %d", total, len(wants))
		}
	})
}

// TestCalendarRunHistoriesProperty: for random run histories of an hourly
// or a daily check (ticks, downtimes, pauses, runs now), every past
// occurrence the calendar shows has exactly the run the store holds behind
// it, or is not run with none; every run of the range is shown once; the
// rule's every past occurrence since the automation was created is shown
// once; nothing is shown before it was created; no future occurrence has a
// run state.
func TestCalendarRunHistoriesProperty(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	const zone = "Europe/Istanbul"
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rnd := rand.New(rand.NewSource(int64(seed)))
			b := newBundle(t).withJobs()
			ctx := context.Background()
			aut := automations.New(b.Store, b.Eng)
			rule := "FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=7"
			if seed%2 == 1 {
				rule = "FREQ=DAILY;BYHOUR=9;BYMINUTE=7"
			}
			a := b.builtin(t, "Check", rule, "2026-11-02T09:07")
			for range 12 + rnd.Intn(12) {
				b.Clock.Advance(time.Duration(1+rnd.Intn(20*60)) * time.Minute)
				switch r := rnd.Intn(10); {
				case r < 5:
					b.Tick(t)
				case r == 5:
					_, _, _ = aut.RunNow(ctx, b.Owner, b.Site.ID, a.ID) // refused while a run is open or the automation paused: fine
				case r == 6:
					cur := b.automationNow(t, a.ID)
					if cur.State == automations.AutomationActive {
						_, _ = aut.Pause(ctx, b.Owner, b.Site.ID, a.ID, cur.Rev)
					} else {
						_, _ = aut.Resume(ctx, b.Owner, b.Site.ID, a.ID, cur.Rev)
					}
				}
			}
			now := b.Cal.Now()
			q := calendar.CalendarQuery{SiteID: b.Site.ID, From: midnightIn(t, zone, 2026, 11, 1),
				To: midnightIn(t, zone, 2026, 11, 1).Add(40 * 24 * time.Hour)}
			items := ofAutomation(b.allItems(t, q), a.ID)
			runs, err := b.Store.Runs(ctx, automations.RunFilter{SiteID: b.Site.ID, AutomationID: a.ID, Limit: 10000})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]automations.Run{}
			for _, r := range runs {
				byID[r.ID] = r
			}
			states := map[string]int{}
			for _, r := range runs {
				states[r.State]++
			}
			t.Logf("%d runs %v, %d occurrences shown", len(runs), states, len(items))
			seen := map[string]bool{}
			shownRun := map[string]bool{}
			for _, it := range items {
				if seen[it.ID] {
					t.Errorf("shown twice: %s", it.ID)
				}
				seen[it.ID] = true
				if it.At.Before(a.CreatedAt) {
					t.Errorf("before the automation existed: %+v", it)
				}
				if it.At.After(now) {
					if it.RunID != "" || (it.State != "scheduled" && it.State != calendar.ItemPaused) {
						t.Errorf("a future occurrence with a run state: %+v", it)
					}
					continue
				}
				if it.RunID == "" {
					if it.State != calendar.ItemNotRun {
						t.Errorf("a past occurrence with neither a run nor not run: %+v", it)
					}
					continue
				}
				r, ok := byID[it.RunID]
				if !ok || r.State != it.State || r.Outcome != it.Outcome {
					t.Errorf("occurrence %+v: its run %+v (%v)", it, r, ok)
				}
				if r.OccurrenceAt.Equal(it.At) {
					shownRun[r.ID] = true
				} else if r.State != string(automation.RunSkipped) || it.At.Before(r.OccurrenceAt) || r.EndedAt == nil || it.At.After(*r.EndedAt) {
					t.Errorf("occurrence %+v stands for run %+v", it, r)
				}
			}
			for _, r := range runs {
				if !shownRun[r.ID] {
					t.Errorf("run %s at %s (%s) is not on the calendar", r.ID, r.OccurrenceAt, r.State)
				}
			}
			rc, err := a.Recurrence()
			if err != nil {
				t.Fatal(err)
			}
			for _, oc := range rc.Between(a.CreatedAt, now.Add(time.Millisecond)) {
				if !seen[occID(a.ID, oc.At)] {
					t.Errorf("the past occurrence %s is not shown", oc.At)
				}
			}
		})
	}
}

// automationNow is the automation as stored.
func (b *testBundle) automationNow(tb testing.TB, id string) automations.Automation {
	tb.Helper()
	a, err := b.Store.Automation(context.Background(), b.Site.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}
