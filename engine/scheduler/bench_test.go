package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/internal/enginetest"
	"studio/engine/jobs"
	"studio/engine/localtime"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// clockedJobs is a one-step job that notes the wall-clock time of the last
// step it started.
type clockedJobs struct {
	mu   sync.Mutex
	last time.Time
}

func (c *clockedJobs) Step(context.Context, jobs.Run, string) (jobs.Step, error) {
	c.mu.Lock()
	c.last = time.Now()
	c.mu.Unlock()
	return jobs.Step{Done: true}, nil
}

// BenchmarkAutomationsTick200Across21Sites: 200 built-in automations on the
// demo site and 20 more, all due at 09:07. One op is the ticks from that
// minute until every one has run once (each is claimed, stepped and ended);
// ms-to-last-start is the time from the first tick to the last run's step.
func BenchmarkAutomationsTick200Across21Sites(b *testing.B) {
	tb := newBundle(b)
	ctx := context.Background()
	sites := []string{tb.Site.ID}
	for i := range 20 {
		s, err := tb.CreateSite(ctx, fmt.Sprintf("Site %d", i), "Europe/Istanbul")
		if err != nil {
			b.Fatal(err)
		}
		sites = append(sites, s.ID)
	}
	au := automations.New(tb.Store, tb.Eng)
	for i := range 200 {
		if _, err := au.Create(ctx, tb.Owner, sites[i%len(sites)], automations.Input{Name: fmt.Sprintf("Sweep %d", i),
			Builtin: automation.Builtins[i%len(automation.Builtins)], Rule: "FREQ=DAILY;BYHOUR=9;BYMINUTE=7", Start: "2026-11-02T09:07"}); err != nil {
			b.Fatal(err)
		}
	}
	cj := &clockedJobs{}
	tb.Sched.SetJobs(cj)
	minute := time.Date(2026, 11, 2, 6, 7, 0, 0, time.UTC) // 09:07 in Istanbul
	created := localtime.FormatInstant(tb.Clock.Now())
	ticks, total := 0, time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		tb.Exec(b, `DELETE FROM schedule_runs`)
		tb.Exec(b, `UPDATE automations SET handled_at = ?, due_at = ?, open_run_id = NULL, state = 'active', consecutive_failures = 0`,
			created, localtime.FormatInstant(minute))
		tb.Clock.Set(minute)
		b.StartTimer()
		began := time.Now()
		ran := 0
		for ran < 200 {
			rep, err := tb.Sched.RunDue(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			ticks++
			ran += rep.Automations.Claimed
			if rep.Automations.Claimed == 0 {
				b.Fatalf("a tick claimed nothing with %d left", 200-ran)
			}
		}
		total += cj.last.Sub(began)
		b.StopTimer()
		if n := tb.Count(b, `SELECT count(*) FROM schedule_runs WHERE state = 'succeeded'`); n != 200 {
			b.Fatalf("%d runs succeeded", n)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(ticks)/float64(b.N), "ticks/op")
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-last-start")
}

// BenchmarkRunDueIdleWith50Automations is the commonest tick with
// automations configured: 50 of them, none due (one statement,
// TestIdleTickWithAutomationsIsOneStatement).
func BenchmarkRunDueIdleWith50Automations(b *testing.B) {
	tb := newBundle(b)
	ctx := context.Background()
	au := automations.New(tb.Store, tb.Eng)
	for i := range 50 {
		if _, err := au.Create(ctx, tb.Owner, tb.Site.ID, automations.Input{Name: fmt.Sprintf("Sweep %d", i),
			Builtin: automation.BuiltinBrokenLinks, Preset: "daily", Start: "2026-11-02T20:00"}); err != nil {
			b.Fatal(err)
		}
	}
	tb.Sched.SetJobs(&clockedJobs{})
	tb.Tick(b)
	b.ReportAllocs()
	for b.Loop() {
		rep, err := tb.Sched.RunDue(ctx, "bench")
		if err != nil || rep.Automations.Claimed != 0 {
			b.Fatal(rep, err)
		}
	}
}

// BenchmarkPublishBurst50Sites: 50 sites, 20 one-article releases each, all
// due at 09:00 (issue 16's burst, in process on the bundle's database). One
// op is the ticks from that minute until all 1,000 are published;
// ms/publish is the cost of one, which bounds the burst's lateness: every
// publish writes behind the one write lock.
func BenchmarkPublishBurst50Sites(b *testing.B) {
	tb := newBundle(b)
	ctx := context.Background()
	const sites, perSite = 50, 20
	loc, err := localtime.LoadZone("Europe/Istanbul")
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	published := 0
	b.ReportAllocs()
	for round := 0; b.Loop(); round++ {
		b.StopTimer()
		day := start.AddDate(0, 0, round)
		tb.Clock.Set(day)
		at := day.Add(time.Hour)
		for s := range sites {
			site, err := tb.CreateSite(ctx, fmt.Sprintf("Burst %d-%d", round, s), "Europe/Istanbul")
			if err != nil {
				b.Fatal(err)
			}
			for i := range perSite {
				n := tb.CreateNode(b, site.ID, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Burst %d", i),
					Slug: fmt.Sprintf("burst-%d-%d-%d", round, s, i), Status: content.StatusDraft, Text: "Filed at the minute."})
				local := at.In(loc)
				tb.Schedule(b, enginetest.On(tb.Editor, site.ID), n, local.Format("2006-01-02"), local.Format("15:04"))
			}
		}
		tb.Clock.Set(at)
		b.StartTimer()
		began := time.Now()
		for done := 0; done < sites*perSite; {
			rep, err := tb.Sched.RunDue(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			done += rep.Published
			if rep.Published == 0 {
				b.Fatalf("a tick published nothing with %d left", sites*perSite-done)
			}
		}
		total += time.Since(began)
		published += sites * perSite
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(published), "ms/publish")
}
