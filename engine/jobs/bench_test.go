package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// bigSite publishes n articles: each links to the next, every 50th also to
// a missing article and every 100th to a missing image, so broken-links
// finds n/50 + n/100 findings (150 for 5,000: under MaxFindings).
func (b *testBundle) bigSite(tb testing.TB, n int) {
	tb.Helper()
	for i := range n {
		text := fmt.Sprintf("Next: [article %d](/posts/article-%d).", i+1, (i+1)%n)
		if i%50 == 0 {
			text += fmt.Sprintf(" Gone: [old](/posts/removed-%d).", i)
		}
		if i%100 == 0 {
			text += fmt.Sprintf(" ![chart](/media/chart-%d.png)", i)
		}
		b.node(tb, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Article %d", i),
			Slug: fmt.Sprintf("article-%d", i), Status: content.StatusPublished, Text: text})
	}
	b.publish(tb)
}

// sweep is one broken-links run stepped to its end, with each step's
// statements and time.
type sweep struct {
	steps      int
	statements []int64
	times      []time.Duration
	longest    time.Duration
	last       jobs.Step
}

func (b *testBundle) sweep(tb testing.TB, run jobs.Run) sweep {
	tb.Helper()
	var s sweep
	cur := ""
	for {
		before := b.Store.Statements()
		start := time.Now()
		st, err := b.jobs.Step(context.Background(), run, cur)
		if err != nil {
			tb.Fatal(err)
		}
		took := time.Since(start)
		s.longest = max(s.longest, took)
		s.times = append(s.times, took)
		s.statements = append(s.statements, b.Store.Statements()-before)
		s.steps++
		if st.Done {
			s.last = st
			return s
		}
		cur = st.Cursor
	}
}

// BenchmarkBrokenLinks5000 is broken-links over a 5,000-article site, as
// the runner steps it (one step a tick): the number of steps (ticks), the
// longest step and the statements per step, reported as metrics. Each
// iteration is a new run on a fresh Jobs (the live index read afresh), so
// every run finds its findings new.
func BenchmarkBrokenLinks5000(b *testing.B) {
	tb := setup(b)
	tb.bigSite(b, 5000)
	var s sweep
	i := 0
	for b.Loop() {
		tb.jobs = jobs.New(tb.Eng, tb.Store, nil)
		run := tb.run(automation.BuiltinBrokenLinks, fmt.Sprintf("run_%d", i), jobs.Config{})
		i++
		s = tb.sweep(b, run)
	}
	if s.last.Counts[jobs.CountNodesScanned] != 5000 || s.last.Findings != 150 {
		b.Fatalf("counts %v, findings %d", s.last.Counts, s.last.Findings)
	}
	most := int64(0)
	for _, n := range s.statements {
		most = max(most, n)
	}
	b.ReportMetric(float64(s.steps), "ticks/run")
	b.ReportMetric(float64(s.longest.Microseconds())/1000, "ms/longest-step")
	b.ReportMetric(float64(most), "statements/step")
	sorted := slices.Sorted(slices.Values(s.times))
	b.ReportMetric(float64(s.times[0].Microseconds())/1000, "ms/first-step")
	b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds())/1000, "ms/median-step")
	b.Logf("steps %d, statements per step %v, step times %v", s.steps, s.statements, s.times)
}
