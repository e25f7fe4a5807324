package releases_test

import (
	"context"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/engine/settings"
)

// TestPublicViewAt is the public view as one engine call on a fake clock
// (issue 11, item 5): an embargoed article is invisible until its time and
// visible from it; an asset only the embargoed article refers to inherits
// the embargo, while one a visible page also uses does not; an expired
// page leaves at its time; a draft is never visible; and the next gate is
// the instant the answer next changes.
func TestPublicViewAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	ten, noon := nine.Add(time.Hour), nine.Add(3*time.Hour)
	asset := func(slug string) content.Node {
		n, err := b.Nodes.CreateAsset(ctx, b.Editor, b.Site.ID, content.Body{Title: slug, Slug: slug,
			Status: content.StatusPublished, Mime: "image/png", Data: tinyPNG, Alt: "A picture"})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	only, shared := asset("only.png"), asset("shared.png")
	embargoed := b.CreateNode(t, b.Site.ID, release.KindContentEntry, content.Body{Title: "Launch", Slug: "launch",
		Status: content.StatusPublished, Text: "Soon.", Refs: []string{only.ID, shared.ID},
		Availability: &content.Availability{From: &ten}})
	about := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about",
		Status: content.StatusPublished, Text: "Us.", Refs: []string{shared.ID}})
	expiring := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Sale", Slug: "sale",
		Status: content.StatusPublished, Text: "Now.", Availability: &content.Availability{Until: &noon}})
	draft := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Draft", Slug: "draft",
		Status: content.StatusDraft, Text: "Not yet."})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	site, err := b.Eng.Site(ctx, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		now      time.Time
		visible  []string
		hidden   []string
		next     time.Time
		interval bool // same interval as the one before
	}{
		{"BeforeTheEmbargo", nine, []string{about.ID, expiring.ID, shared.ID},
			[]string{embargoed.ID, only.ID, draft.ID}, ten, false},
		{"AMillisecondBefore", ten.Add(-time.Millisecond), []string{about.ID, expiring.ID, shared.ID},
			[]string{embargoed.ID, only.ID, draft.ID}, ten, true},
		{"AtTheEmbargo", ten, []string{about.ID, expiring.ID, shared.ID, embargoed.ID, only.ID},
			[]string{draft.ID}, noon, false},
		{"AtTheExpiry", noon, []string{about.ID, shared.ID, embargoed.ID, only.ID},
			[]string{expiring.ID, draft.ID}, time.Time{}, false},
	} {
		b.Clock.Set(c.now)
		v, err := public.New(b.Releases, b.Nodes, b.Store).ViewAt(ctx, site, b.Eng.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range c.visible {
			if !v.Visible[id] {
				t.Errorf("%s: %s is not visible", c.name, id)
			}
		}
		for _, id := range c.hidden {
			if v.Visible[id] {
				t.Errorf("%s: %s is visible", c.name, id)
			}
		}
		if len(v.Visible) != len(c.visible) {
			t.Errorf("%s: %d visible, want %d: %v", c.name, len(v.Visible), len(c.visible), v.Visible)
		}
		if v.HasNext != !c.next.IsZero() || !v.NextGate.Equal(c.next) {
			t.Errorf("%s: next gate %s (%v), want %s", c.name, v.NextGate, v.HasNext, c.next)
		}
	}
	// Views within one gate interval share its number; the engine's
	// prepared snapshot answers the same as the one call.
	p, err := public.New(b.Releases, b.Nodes, b.Store).Snapshot(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	if p.Interval(nine) != p.Interval(ten.Add(-time.Millisecond)) || p.Interval(nine) == p.Interval(ten) {
		t.Errorf("intervals: %d %d %d", p.Interval(nine), p.Interval(ten.Add(-time.Millisecond)), p.Interval(ten))
	}
	for _, n := range p.Nodes {
		if n.ID == draft.ID {
			t.Errorf("the draft is among the public snapshot's nodes")
		}
	}
	if v := p.At(nine); v.Visible[only.ID] || !v.Visible[shared.ID] {
		t.Errorf("At(nine) = %v", v.Visible)
	}
}

// TestSiteLang: a site has a language (the demo's Turkish by default, the
// schema's), people with site settings change it, a language Studio does
// not speak is refused and changes nothing, and new pages are written in
// the site's language.
func TestSiteLang(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	if b.Site.Lang != "tr" {
		t.Fatalf("a new site speaks %q, want the default tr", b.Site.Lang)
	}
	before := b.Dump(t)
	for _, lang := range []string{"", "de", "EN", "english", "tr-TR"} {
		_, err := settings.New(b.Eng, b.Store).SetSiteLang(ctx, b.Admin, b.Site.ID, lang, b.Site.Rev)
		wantRefusal(t, err, "bad_language", "lang")
	}
	_, err := settings.New(b.Eng, b.Store).SetSiteLang(ctx, b.Editor, b.Site.ID, "en", b.Site.Rev)
	wantRefusal(t, err, engine.CodeForbidden, "")
	_, err = settings.New(b.Eng, b.Store).SetSiteLang(ctx, b.Admin, b.Site.ID, "en", b.Site.Rev+1)
	wantRefusal(t, err, engine.CodeStale, "")
	if after := b.Dump(t); after != before {
		t.Fatalf("refused language changes changed the database")
	}
	site, err := settings.New(b.Eng, b.Store).SetSiteLang(ctx, b.Admin, b.Site.ID, "en", b.Site.Rev)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Eng.Site(ctx, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lang != "en" || got.Rev != b.Site.Rev+1 || got != site {
		t.Fatalf("site after the change: %+v (returned %+v)", got, site)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE action = 'site.lang' AND site_id = ?
		AND json_extract(details, '$.from') = 'tr' AND json_extract(details, '$.to') = 'en'`, b.Site.ID); n != 1 {
		t.Fatalf("audit rows = %d", n)
	}
	n := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "Hello", Slug: "hello", Status: content.StatusDraft})
	if n.Body.Lang != "en" {
		t.Fatalf("a new page on an English site is in %q", n.Body.Lang)
	}
	if old := b.Node(t, b.Article.ID); old.Body.Lang != "tr" {
		t.Fatalf("the article written before keeps its language: %q", old.Body.Lang)
	}
	s2, err := b.Eng.CreateSiteIn(ctx, "Second", "UTC", "en")
	if err != nil || s2.Lang != "en" {
		t.Fatalf("CreateSiteIn en: %+v %v", s2, err)
	}
	if _, err := b.Eng.CreateSiteIn(ctx, "Third", "UTC", "xx"); err == nil {
		t.Fatal("a site in a language Studio does not speak was created")
	}
}
