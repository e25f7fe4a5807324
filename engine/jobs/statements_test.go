package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/public"
	"studio/handlers/site"
	"studio/store"
)

// TestStatementsPerStep holds each job's step to a statement budget, as
// store/statements_test.go holds the release paths (the reference
// package's numbers, counted there per tick with the claim and finish, in
// comments): a step is short enough to run in a tick without holding the
// write lock for long, and a change that adds a query per node shows here.
// BEGIN and COMMIT count (the reference does not count them).
// The site has 450 articles, so a page step reads a full MaxNodesPerStep.
func TestStatementsPerStep(t *testing.T) {
	type step struct {
		statements int64
		took       time.Duration
	}
	b := setup(t)
	b.bigSite(t, 450)
	ctx := context.Background()
	for range 3 {
		b.jobs.CountNotFound(ctx, jobs.NotFound{SiteID: b.Site.ID, Path: "/old", At: b.Clock.Now()})
	}
	// measure runs job's steps from the start and returns the statements
	// of step number n (1-based) and of the last step.
	measure := func(t *testing.T, j *jobs.Jobs, job automation.Builtin, id string, n int) (nth, last step) {
		t.Helper()
		run := b.run(job, id, jobs.Config{})
		cur := ""
		for i := 1; ; i++ {
			before, began := b.Store.Statements(), time.Now()
			st, err := j.Step(ctx, run, cur)
			if err != nil {
				t.Fatal(err)
			}
			got := step{b.Store.Statements() - before, time.Since(began)}
			if i == n {
				nth = got
			}
			if st.Done {
				return nth, got
			}
			cur = st.Cursor
		}
	}
	// Feed-check renders through a handler that counts no 404s, as in
	// production (handlers.New gives it one of its own): the fixture's
	// handler would hand its 404s to the store on a 5-second timer of the
	// real clock, a write that lands in whichever step is being counted
	// when the machine is slow.
	quiet := site.New(b.Eng, public.New(b.Releases, b.Nodes, b.Store), nil, site.Options{})
	fresh := func() *jobs.Jobs { return jobs.New(b.Eng, b.Store, lazyRenderer{&quiet}) }
	cases := []struct {
		name   string
		budget int64
		run    func(t *testing.T) step
	}{
		// site, live index, page, findings read, upsert, run rows
		{"BrokenLinksFirstStep", 8, func(t *testing.T) step { // reference: 9–10 per tick
			n, _ := measure(t, fresh(), automation.BuiltinBrokenLinks, "run_a", 1)
			return n
		}},
		// the live index is kept per snapshot: one statement less
		{"BrokenLinksStep", 7, func(t *testing.T) step {
			n, _ := measure(t, fresh(), automation.BuiltinBrokenLinks, "run_b", 2)
			return n
		}},
		// top 404s, the site (its live snapshot: a path that resolves now
		// is no finding; the index itself is cached), findings read,
		// upsert, run rows, the run's gone rows, gone
		{"BrokenLinksLastStep", 9, func(t *testing.T) step {
			_, last := measure(t, fresh(), automation.BuiltinBrokenLinks, "run_c", 0)
			return last
		}},
		// site, page, findings read, upsert, run rows
		{"StaleContentStep", 7, func(t *testing.T) step { // reference: 8–9 per tick
			b.Clock.Advance(400 * 24 * time.Hour) // from here on the articles are stale and the fixture's draft old
			n, _ := measure(t, fresh(), automation.BuiltinStaleContent, "run_d", 1)
			return n
		}},
		// site, live index, and the four documents: renders at one instant
		// share one read of the public site's pointer (handlers/site), which
		// asks the database's generation first (a commit landed since the
		// last read), and the public site reads a snapshot it has not seen once
		{"FeedCheckFeedsStep", 5, func(t *testing.T) step { // reference: 9 per tick
			b.Clock.Advance(time.Minute)
			n, _ := measure(t, fresh(), automation.BuiltinFeedCheck, "run_e", 1)
			return n
		}},
		// site, page, the public site's pointer (the 200 renders of the
		// step share it; here the run's first step read it at this
		// instant already: 5), and the findings (read, upsert, run rows)
		{"FeedCheckEntriesStep", 7, func(t *testing.T) step {
			b.Clock.Advance(time.Minute)
			n, _ := measure(t, fresh(), automation.BuiltinFeedCheck, "run_f", 2)
			return n
		}},
		// outcomes, site, stale count, open findings, top 404s, findings
		// read, upsert, run rows, the run's gone rows, gone
		{"WeeklyDigest", 12, func(t *testing.T) step { // reference: 13 per tick
			n, _ := measure(t, fresh(), automation.BuiltinWeeklyDigest, "run_g", 1)
			return n
		}},
		// drafts page, findings read, upsert, run rows
		{"CleanupDraftsStep", 6, func(t *testing.T) step { // reference: 8 per tick
			n, _ := measure(t, fresh(), automation.BuiltinCleanup, "run_h", 1)
			return n
		}},
		// site, unused assets, and the last step's gone rows and gone
		{"CleanupAssetsStep", 6, func(t *testing.T) step {
			_, last := measure(t, fresh(), automation.BuiltinCleanup, "run_i", 0)
			return last
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.run(t)
			// Feed-check's steps render the public site, which asks the
			// database whether another process committed once per window
			// of store.OtherProcessesEvery, measured on the real clock: a
			// slow machine's step may span one more window.
			budget := c.budget
			if strings.HasPrefix(c.name, "FeedCheck") {
				budget += int64(got.took / store.OtherProcessesEvery)
			}
			t.Logf("%s: %d statements in %v (budget %d)", c.name, got.statements, got.took, budget)
			if got.statements > budget {
				t.Errorf("%s took %d statements, budget %d", c.name, got.statements, budget)
			}
		})
	}
}
