package jobs_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/locales"
)

// leaky is the real public site with bugs put in: the embargoed entry's
// page answers, the sitemap lists it, dated in the future, and an
// article shows an image that is not live.
type leaky struct{ real jobs.Renderer }

func (l leaky) Render(ctx context.Context, siteID, path string, at time.Time) (int, []byte, error) {
	switch path {
	case "/posts/embargoed":
		return l.real.Render(ctx, siteID, "/posts/live-b", at)
	case "/posts/live-a":
		status, body, err := l.real.Render(ctx, siteID, path, at)
		body = bytes.Replace(body, []byte("</article>"), []byte(`<img src="/media/missing.png" alt=""></article>`), 1)
		return status, body, err
	case "/sitemap.xml":
		status, body, err := l.real.Render(ctx, siteID, path, at)
		body = bytes.Replace(body, []byte("</urlset>"),
			[]byte("<url><loc>http://127.0.0.1:8080/posts/embargoed</loc><lastmod>2030-01-01T00:00:00Z</lastmod></url></urlset>"), 1)
		return status, body, err
	}
	return l.real.Render(ctx, siteID, path, at)
}

func TestFeedCheck(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	future := b.Clock.Now().Add(30 * 24 * time.Hour)
	b.node(t, release.KindContentEntry, content.Body{Title: "Dated ahead", Slug: "dated-ahead", Status: content.StatusPublished,
		Text: "Typo in the date.", PublishedAt: &future})
	b.publish(t)

	t.Run("RealSite", func(t *testing.T) {
		run := b.run(automation.BuiltinFeedCheck, "run_1", jobs.Config{})
		st, _ := b.steps(t, run)
		same(t, "feed-check", b.summary(b.findings(t, run, false).New), []string{
			"feed-future-date  rss.xml /posts/dated-ahead",
			"feed-future-date  sitemap.xml /posts/dated-ahead",
			"feed-future-date dated-ahead jsonld /posts/dated-ahead",
			"feed-item-incomplete dated-ahead jsonld /posts/dated-ahead",
			"feed-item-incomplete live-b jsonld /posts/live-b",
		})
		// 4 documents, then the pages of live-a, live-b, embargoed,
		// dated-ahead and about.
		if st.Counts[jobs.CountDocumentsChecked] != 9 || st.Counts[jobs.CodeFeedGatedNode] != 0 {
			t.Errorf("counts %v", st.Counts)
		}
	})
	t.Run("GateSelfCheck", func(t *testing.T) {
		j := jobs.New(b.Eng, b.Store, leaky{lazyRenderer{&b.site}})
		run := b.run(automation.BuiltinFeedCheck, "run_2", jobs.Config{})
		run.AutomationID = "aut_leaky"
		cur := ""
		for {
			st, err := j.Step(context.Background(), run, cur)
			if err != nil {
				t.Fatal(err)
			}
			if st.Done {
				break
			}
			cur = st.Cursor
		}
		rf, err := j.RunFindings(context.Background(), run.AutomationID, run.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		var gated []string
		for _, s := range b.summary(rf.New) {
			if strings.HasPrefix(s, jobs.CodeFeedGatedNode) || strings.HasPrefix(s, jobs.CodeFeedAssetNotLive) ||
				strings.Contains(s, "sitemap.xml /posts/embargoed") {
				gated = append(gated, s)
			}
		}
		same(t, "leaks", gated, []string{
			"feed-future-date  sitemap.xml /posts/embargoed",
			"feed-asset-not-live live-a page /media/missing.png",
			"feed-gated-node embargoed page /posts/embargoed",
			"feed-gated-node embargoed sitemap.xml /posts/embargoed",
		})
	})
}

func TestWeeklyDigest(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	b.Schedule(t, b.Editor, b.Node(t, b.Article.ID).Node, "2026-11-02", "09:00")
	b.Clock.Set(b.Clock.Now().Add(time.Hour).Add(2 * time.Minute)) // published two minutes late
	b.Tick(t)
	ctx := context.Background()
	for range 3 {
		b.jobs.CountNotFound(ctx, jobs.NotFound{SiteID: b.Site.ID, Path: "/old-page", At: b.Clock.Now()})
	}
	b.steps(t, b.run(automation.BuiltinBrokenLinks, "run_links", jobs.Config{}))

	run := b.run(automation.BuiltinWeeklyDigest, "run_digest", jobs.Config{})
	st, n := b.steps(t, run)
	if n != 1 || st.Counts[jobs.CountPublished] != 1 || st.Counts[jobs.CountOpenFindings] != 7 {
		t.Errorf("%d steps, counts %v", n, st.Counts)
	}
	d, err := b.jobs.Digest(ctx, run.AutomationID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Releases.Published != 1 || d.Releases.Late != 1 || d.Open[automation.BuiltinBrokenLinks] != 7 ||
		len(d.NotFound) != 1 || d.NotFound[0] != (jobs.NotFoundPath{Path: "/old-page", Hits: 3}) ||
		!d.To.Equal(run.Now) || !d.From.Equal(run.Now.AddDate(0, 0, -7)) {
		t.Errorf("digest %+v", d)
	}
	for _, lang := range []string{"en", "tr"} {
		p := locales.For(lang)
		var lines []string
		for _, s := range d.Sentences() {
			line := p.T(s.Key, s.Args...)
			if line == s.Key || strings.Contains(line, "<no value>") {
				t.Errorf("%s: %s has no sentence: %q", lang, s.Key, line)
			}
			lines = append(lines, line)
		}
		t.Logf("%s:\n%s", lang, strings.Join(lines, "\n"))
	}
}

// TestFindingSentences: every sentence a finding may say exists in both
// languages and fills in every argument, for the findings the fixture's
// jobs record and every variant.
func TestFindingSentences(t *testing.T) {
	b := setup(t)
	b.fixture(t)
	when := b.Clock.Now()
	var all []jobs.Finding
	for _, job := range []automation.Builtin{automation.BuiltinBrokenLinks, automation.BuiltinFeedCheck, automation.BuiltinCleanup} {
		run := b.run(job, "run_"+string(job), jobs.Config{})
		b.steps(t, run)
		all = append(all, b.findings(t, run, true).New...)
	}
	keys := map[string]bool{}
	for _, k := range jobs.FindingKeys {
		keys[k] = true
	}
	for _, f := range all {
		if s := f.Sentence(); !keys[s.Key] {
			t.Errorf("%s says %s, not in FindingKeys", f.Code, s.Key)
		}
	}
	for _, k := range jobs.FindingKeys {
		all = append(all, jobs.Finding{Code: strings.TrimPrefix(k, "finding."), Target: "/x", Hits: 2})
	}
	for _, lang := range []string{"en", "tr"} {
		p := locales.For(lang)
		for _, f := range all {
			s := f.Sentence()
			args := append(s.Args, "When", p.DateTime(when))
			if got := p.T(s.Key, args...); got == s.Key || strings.Contains(got, "<no value>") {
				t.Errorf("%s: %s renders %q", lang, s.Key, got)
			}
		}
	}
	gated := jobs.Finding{Code: jobs.CodeLinkToGated, Target: "/posts/soon", Detail: "embargoed 2026-11-04T06:00:00Z"}
	if s := gated.Sentence(); s.Key != "finding.link-to-gated-content-embargoed" || s.When == nil || s.When.Hour() != 6 {
		t.Errorf("gated: %+v", s)
	}
}
