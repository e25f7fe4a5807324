package releases_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// draftDump is dump plus every column of every item and the releases'
// titles and hashes, so "changed nothing" covers pins and reasons too.
func (b *testBundle) drDump(tb testing.TB) string {
	tb.Helper()
	return b.Dump(tb) + "\n" + b.Text(tb, `SELECT 'pins ' || COALESCE(group_concat(release_id || '/' || node_id || ':' || op || ':' ||
		COALESCE(CAST(target_rev AS TEXT), '-') || ':' || COALESCE(CAST(base_rev AS TEXT), '-') || ':' || COALESCE(added_because, '-') || ':' || deps,
		' ' ORDER BY release_id, node_id), '') FROM release_items`) + "\n" +
		b.Text(tb, `SELECT 'titles ' || COALESCE(group_concat(id || '=' || COALESCE(title, '-') || ':' || hash, ' ' ORDER BY id), '') FROM releases`)
}

// refused runs fn, which must be refused with code, and checks that not one
// row changed. It returns the refusal.
func (b *testBundle) drRefused(t *testing.T, code string, fn func() error) *engine.Error {
	t.Helper()
	before := b.drDump(t)
	err := fn()
	e, ok := engine.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("err = %v, want refusal %s", err, code)
	}
	if after := b.drDump(t); after != before {
		t.Fatalf("refused %s changed the database:\nbefore:\n%s\nafter:\n%s", code, before, after)
	}
	return e
}

// page creates a page (draft unless status says otherwise) referencing refs.
func (b *testBundle) drPage(t *testing.T, title string, status content.Status, refs ...string) content.Node {
	t.Helper()
	slug := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
	return b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: title, Slug: slug, Status: status, Text: title, Refs: refs})
}

// setRefs saves a new version of n with refs.
func (b *testBundle) drSetRefs(t *testing.T, id string, refs ...string) content.Node {
	t.Helper()
	d := b.Node(t, id)
	body := d.Body
	body.Refs = refs
	n, err := b.Nodes.SaveNode(context.Background(), b.Editor, b.Site.ID, id, d.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (b *testBundle) drEditText(t *testing.T, id, text string) content.Node {
	t.Helper()
	d := b.Node(t, id)
	body := d.Body
	body.Text = text
	n, err := b.Nodes.SaveNode(context.Background(), b.Editor, b.Site.ID, id, d.Rev, body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (b *testBundle) drPublish(t *testing.T) {
	t.Helper()
	if _, err := b.Nodes.Publish(context.Background(), b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
}

func (b *testBundle) drDraft(t *testing.T, u engine.User, title string, ids ...string) releases.ReleaseRow {
	t.Helper()
	r, err := b.Releases.NewRelease(context.Background(), u, b.Site.ID, title, ids)
	if err != nil {
		t.Fatalf("new release %v: %v", ids, err)
	}
	return r
}

func drItem(t *testing.T, r releases.ReleaseRow, id string) release.Item {
	t.Helper()
	for _, it := range r.Items {
		if it.NodeID == id {
			return it
		}
	}
	t.Fatalf("release %s has no item %s: %+v", r.ID, id, r.Items)
	return release.Item{}
}

func drItemIDs(r releases.ReleaseRow) []string {
	var out []string
	for _, it := range r.Items {
		out = append(out, it.NodeID)
	}
	slices.Sort(out)
	return out
}

func drSorted(ids ...string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func TestNewReleasePinsAndHashes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	about := b.drPage(t, "About", content.StatusPublished)
	b.drPublish(t)
	about = b.drEditText(t, about.ID, "v2")
	before := b.Count(t, `SELECT count(*) FROM node_versions`)

	r := b.drDraft(t, b.Contributor, "Autumn launch", b.Article.ID, about.ID)
	if r.State != release.StateDraft || r.Title != "Autumn launch" || r.Rev != 1 || r.When != nil || r.Approval != nil || r.ExecuteAt != nil {
		t.Fatalf("release = %+v", r.Release)
	}
	if r.CreatedBy.ID != b.Contributor.ID {
		t.Fatalf("created by %+v", r.CreatedBy)
	}
	art := drItem(t, r, b.Article.ID)
	if art.Op != release.OpSet || art.NodeKind != release.KindContentEntry || art.Base != nil ||
		*art.Target != (release.Version{Rev: b.Article.Rev, Hash: b.Article.Hash}) || art.AddedBecause != "" {
		t.Fatalf("article item %+v", art)
	}
	ab := drItem(t, r, about.ID)
	live := b.Node(t, about.ID).Live
	if *ab.Target != (release.Version{Rev: about.Rev, Hash: about.Hash}) || ab.Base == nil || ab.Base.Rev != live.Rev || ab.Base.Hash != live.Hash {
		t.Fatalf("about item %+v target %+v base %+v", ab, ab.Target, ab.Base)
	}
	if r.Hash != release.Hash(b.Site.ID, r.Items) {
		t.Fatalf("hash %s, recomputed %s", r.Hash, release.Hash(b.Site.ID, r.Items))
	}
	// A draft holds and locks nothing, files no request and saves no version.
	if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 0 {
		t.Fatalf("%d held items", n)
	}
	if n := b.Count(t, `SELECT count(*) FROM approvals`); n != 0 {
		t.Fatalf("%d approval requests", n)
	}
	if n := b.Count(t, `SELECT count(*) FROM node_versions`); n != before {
		t.Fatalf("versions %d, want %d", n, before)
	}
	if _, err := b.Nodes.SaveNode(ctx, b.Editor, b.Site.ID, about.ID, about.Rev, about.Body); err != nil {
		t.Fatalf("a draft release locked its node: %v", err)
	}
	if n := b.Count(t, `SELECT count(*) FROM audit WHERE release_id = ? AND action = 'release.create'`, r.ID); n != 1 {
		t.Fatalf("%d release.create audit rows", n)
	}

	t.Run("TitleDefaultsToTheFirstNode", func(t *testing.T) {
		r := b.drDraft(t, b.Editor, "  ", b.Article.ID)
		if r.Title != b.Article.Body.Title {
			t.Fatalf("title %q", r.Title)
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name, code string
			title      string
			set, rm    []string
			node       string
		}{
			{"NoItems", release.CodeNoItems, "x", nil, nil, ""},
			{"UnknownNode", engine.CodeNotFound, "x", []string{"pag_doesnotexist"}, nil, "pag_doesnotexist"},
			{"Duplicate", release.CodeDuplicateNode, "x", []string{b.Article.ID, b.Article.ID}, nil, b.Article.ID},
			{"SetAndRemove", release.CodeDuplicateNode, "x", []string{about.ID}, []string{about.ID}, about.ID},
			{"TitleWithNewline", releases.CodeBadTitle, "Two\nlines", []string{b.Article.ID}, nil, ""},
			{"TitleWithBidiOverride", releases.CodeBadTitle, "evil\u202Etxt", []string{b.Article.ID}, nil, ""},
			{"TitleTooLong", releases.CodeBadTitle, strings.Repeat("ş", 201), []string{b.Article.ID}, nil, ""},
			{"RemoveNotLive", releases.CodeNotLive, "x", nil, []string{b.Article.ID}, b.Article.ID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := b.drRefused(t, tc.code, func() error {
					_, err := b.Releases.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, Title: tc.title, NodeIDs: tc.set, RemoveIDs: tc.rm})
					return err
				})
				if tc.node != "" && e.Args["Node"] != tc.node {
					t.Fatalf("refusal names %v, want %s", e.Args, tc.node)
				}
			})
		}
	})
	t.Run("NothingToPublish", func(t *testing.T) {
		contact := b.drPage(t, "Contact", content.StatusPublished)
		b.drPublish(t)
		e := b.drRefused(t, release.CodeNothingToPublish, func() error {
			_, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "x", []string{b.Article.ID, contact.ID})
			return err
		})
		if e.Args["Node"] != contact.ID || e.Args["Title"] != "Contact" {
			t.Fatalf("refusal args %v", e.Args)
		}
	})
	// D15, §6.2: a node another release holds may enter a second one, an
	// overlap flagged on both.
	t.Run("HeldByAnotherRelease", func(t *testing.T) {
		other := b.drPage(t, "Held", content.StatusDraft)
		held := b.Schedule(t, b.Editor, other, "2026-11-03", "09:00")
		r, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "x", []string{other.ID})
		if err != nil {
			t.Fatal(err)
		}
		b.drWantOverlap(t, r.ID, held.ID, other.ID)
		b.drWantOverlap(t, held.ID, r.ID, other.ID)
	})
	t.Run("ContributorMayDraft", func(t *testing.T) {
		r := b.drDraft(t, b.Contributor, "Mine", b.Article.ID)
		if r.CreatedBy.ID != b.Contributor.ID {
			t.Fatalf("created by %+v", r.CreatedBy)
		}
	})
}

func TestNewReleaseDependencyClosure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("AddsANonLiveReferencedNodeAndSaysWhy", func(t *testing.T) {
		b := newBundle(t)
		liveTerm := b.drPage(t, "Elections", content.StatusPublished)
		b.drPublish(t)
		b.drEditText(t, liveTerm.ID, "edited since, not published") // live: satisfied by its live version
		results := b.drPage(t, "Results", content.StatusDraft)
		b.drSetRefs(t, b.Article.ID, results.ID, liveTerm.ID)

		r := b.drDraft(t, b.Editor, "Election night", b.Article.ID)
		if got, want := drItemIDs(r), drSorted(b.Article.ID, results.ID); !slices.Equal(got, want) {
			t.Fatalf("items %v, want %v", got, want)
		}
		it := drItem(t, r, results.ID)
		if it.AddedBecause != b.Article.ID || it.Base != nil || it.Target.Rev != results.Rev {
			t.Fatalf("closure item %+v", it)
		}
		if want := []release.ClosureAdded{{NodeID: results.ID, Because: b.Article.ID}}; !slices.Equal(r.ClosureAdded, want) {
			t.Fatalf("closureAdded %+v, want %+v", r.ClosureAdded, want)
		}
		if !slices.Equal(drItem(t, r, b.Article.ID).Deps, []string{results.ID, liveTerm.ID}) {
			t.Fatalf("deps %v", drItem(t, r, b.Article.ID).Deps)
		}
		if got := b.Text(t, `SELECT added_because FROM release_items WHERE release_id = ? AND node_id = ?`, r.ID, results.ID); got != b.Article.ID {
			t.Fatalf("stored added_because %q", got)
		}
	})

	t.Run("RecursesAndStopsOnCycles", func(t *testing.T) {
		b := newBundle(t)
		c := b.drPage(t, "C", content.StatusDraft)
		bb := b.drPage(t, "B", content.StatusDraft, c.ID)
		a := b.drPage(t, "A", content.StatusDraft, bb.ID)
		b.drSetRefs(t, c.ID, a.ID, c.ID) // C → A closes the cycle; C → C is ignored

		r := b.drDraft(t, b.Editor, "Cycle", a.ID)
		if got, want := drItemIDs(r), drSorted(a.ID, bb.ID, c.ID); !slices.Equal(got, want) {
			t.Fatalf("items %v, want %v", got, want)
		}
		if drItem(t, r, a.ID).AddedBecause != "" || drItem(t, r, bb.ID).AddedBecause != a.ID || drItem(t, r, c.ID).AddedBecause != bb.ID {
			t.Fatalf("reasons: %+v", r.ClosureAdded)
		}
		// Two nodes that use each other, both named: no closure item.
		x := b.drPage(t, "X", content.StatusDraft)
		y := b.drPage(t, "Y", content.StatusDraft, x.ID)
		b.drSetRefs(t, x.ID, y.ID)
		r2 := b.drDraft(t, b.Editor, "Pair", x.ID, y.ID)
		if len(r2.ClosureAdded) != 0 || len(r2.Items) != 2 {
			t.Fatalf("pair: %+v", r2.Items)
		}
	})

	t.Run("DependencyMissingAtCreation", func(t *testing.T) {
		b := newBundle(t)
		gone := b.drPage(t, "Gone", content.StatusDraft)
		if err := b.Nodes.DeleteNode(ctx, b.Editor, b.Site.ID, gone.ID, gone.Rev); err != nil {
			t.Fatal(err)
		}
		live := b.drPage(t, "Live", content.StatusPublished)
		b.drPublish(t)
		for _, tc := range []struct {
			name string
			refs []string
			rm   []string
			dep  string
		}{
			{"NeverExisted", []string{"pag_doesnotexist"}, nil, "pag_doesnotexist"},
			{"Deleted", []string{gone.ID}, nil, gone.ID},
			{"RemovedByTheSameRelease", []string{live.ID}, []string{live.ID}, live.ID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				user := b.drPage(t, "User "+tc.name, content.StatusDraft, tc.refs...)
				// Deep in the closure too: the named node uses one that uses the missing one.
				top := b.drPage(t, "Top "+tc.name, content.StatusDraft, user.ID)
				e := b.drRefused(t, engine.CodeDependencyMissing, func() error {
					_, err := b.Releases.CreateDraft(ctx, b.Editor, releases.DraftInput{SiteID: b.Site.ID, Title: "x",
						NodeIDs: []string{top.ID}, RemoveIDs: tc.rm})
					return err
				})
				if e.Args["Node"] != tc.dep || e.Args["Title"] != user.Body.Title {
					t.Fatalf("refusal args %v, want node %s used by %q", e.Args, tc.dep, user.Body.Title)
				}
			})
		}
	})

	t.Run("ClosureItemHeldByAnotherRelease", func(t *testing.T) {
		b := newBundle(t)
		dep := b.drPage(t, "Dep", content.StatusDraft)
		held := b.Schedule(t, b.Editor, dep, "2026-11-03", "09:00")
		user := b.drPage(t, "User", content.StatusDraft, dep.ID)
		// Not live yet, so the closure adds it: an overlap (D15), flagged.
		r, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "x", []string{user.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Items) != 2 || !slices.ContainsFunc(r.Items, func(it release.Item) bool { return it.NodeID == dep.ID && it.AddedBecause == user.ID }) {
			t.Fatalf("items %+v, want the held dependency added", r.Items)
		}
		b.drWantOverlap(t, r.ID, held.ID, dep.ID)
	})
}

func TestReleaseLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("AtMost100Items", func(t *testing.T) {
		b := newBundle(t)
		var ids []string
		for i := range 101 {
			n := b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: fmt.Sprintf("P%d", i), Slug: fmt.Sprintf("p-%d", i), Status: content.StatusDraft})
			ids = append(ids, n.ID)
		}
		b.drRefused(t, release.CodeTooManyItems, func() error {
			_, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "x", ids)
			return err
		})
		// The closure counts: 100 named plus one they use is 101.
		b.drSetRefs(t, ids[0], ids[100])
		b.drRefused(t, release.CodeTooManyItems, func() error {
			_, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "x", ids[:100])
			return err
		})
		b.drSetRefs(t, ids[0])
		r := b.drDraft(t, b.Editor, "Hundred", ids[:100]...)
		if len(r.Items) != 100 {
			t.Fatalf("%d items", len(r.Items))
		}
		// Adding the 101st is refused too.
		b.drRefused(t, release.CodeTooManyItems, func() error {
			_, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, ids[100:])
			return err
		})
	})

	t.Run("AtMost200OpenReleases", func(t *testing.T) {
		b := newBundle(t)
		var first releases.ReleaseRow
		for i := range releases.MaxOpenReleases {
			r := b.drDraft(t, b.Editor, fmt.Sprintf("R%d", i), b.Article.ID)
			if i == 0 {
				first = r
			}
		}
		b.drRefused(t, releases.CodeTooManyReleases, func() error {
			_, err := b.Releases.NewRelease(ctx, b.Editor, b.Site.ID, "one too many", []string{b.Article.ID})
			return err
		})
		// A finished release no longer counts.
		if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, first.ID, first.Rev); err != nil {
			t.Fatal(err)
		}
		b.drDraft(t, b.Editor, "now there is room", b.Article.ID)
	})
}

func TestEditDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type fixture struct {
		b              *testBundle
		results, chart content.Node // not live; the article uses results, results uses chart
		about          content.Node // live
		r              releases.ReleaseRow
	}
	setup := func(t *testing.T) *fixture {
		b := newBundle(t)
		f := &fixture{b: b}
		f.about = b.drPage(t, "About", content.StatusPublished)
		b.drPublish(t)
		f.chart = b.drPage(t, "Chart", content.StatusDraft)
		f.results = b.drPage(t, "Results", content.StatusDraft, f.chart.ID)
		b.drSetRefs(t, b.Article.ID, f.results.ID)
		b.Article = b.Node(t, b.Article.ID).Node
		f.r = b.drDraft(t, b.Editor, "Election night", b.Article.ID)
		if len(f.r.Items) != 3 {
			t.Fatalf("items %+v", f.r.Items)
		}
		return f
	}

	t.Run("AddItems", func(t *testing.T) {
		f := setup(t)
		b := f.b
		about := b.drEditText(t, f.about.ID, "v2")
		extra := b.drPage(t, "Extra", content.StatusDraft, f.chart.ID) // chart is already in: no closure item
		r, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, []string{about.ID, extra.ID})
		if err != nil {
			t.Fatal(err)
		}
		if r.Rev != f.r.Rev+1 || len(r.Items) != 5 || r.Hash != release.Hash(b.Site.ID, r.Items) || r.Hash == f.r.Hash {
			t.Fatalf("after add: rev %d, %d items, hash %s", r.Rev, len(r.Items), r.Hash)
		}
		if it := drItem(t, r, f.chart.ID); it.AddedBecause != f.results.ID {
			t.Fatalf("chart because %q", it.AddedBecause)
		}
		if n := b.Count(t, `SELECT count(*) FROM audit WHERE release_id = ? AND action = 'release.add_items'`, r.ID); n != 1 {
			t.Fatalf("%d audit rows", n)
		}
		b.drRefused(t, release.CodeDuplicateNode, func() error {
			_, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, []string{f.chart.ID})
			return err
		})
		late := b.drPage(t, "Late", content.StatusDraft)
		b.drRefused(t, engine.CodeStale, func() error {
			_, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, r.ID, f.r.Rev, []string{late.ID})
			return err
		})
	})

	t.Run("AddRemoval", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.AddRemovals(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, []string{f.about.ID})
		if err != nil {
			t.Fatal(err)
		}
		it := drItem(t, r, f.about.ID)
		live := b.Node(t, f.about.ID).Live
		if it.Op != release.OpRemove || it.Target != nil || it.Base == nil || it.Base.Rev != live.Rev {
			t.Fatalf("removal %+v", it)
		}
	})

	t.Run("RemoveItem", func(t *testing.T) {
		f := setup(t)
		b := f.b
		// Results is needed by the article; chart by results.
		e := b.drRefused(t, releases.CodeItemNeeded, func() error {
			_, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, f.chart.ID)
			return err
		})
		if e.Args["Title"] != "Chart" || e.Args["By"] != "Results" {
			t.Fatalf("refusal args %v", e.Args)
		}
		b.drRefused(t, engine.CodeNotFound, func() error {
			_, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, f.about.ID)
			return err
		})
		b.drRefused(t, engine.CodeStale, func() error {
			_, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev+1, b.Article.ID)
			return err
		})
		// Another named item keeps the chart: removing the article takes
		// results with it, and the chart stays because the other uses it.
		other := b.drPage(t, "Other", content.StatusDraft, f.chart.ID)
		r, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, []string{other.ID})
		if err != nil {
			t.Fatal(err)
		}
		r, err = b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, b.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := drItemIDs(r), drSorted(other.ID, f.chart.ID); !slices.Equal(got, want) {
			t.Fatalf("items %v, want %v", got, want)
		}
		if it := drItem(t, r, f.chart.ID); it.AddedBecause != other.ID {
			t.Fatalf("chart is now there because of %q, want %s", it.AddedBecause, other.ID)
		}
		if r.Hash != release.Hash(b.Site.ID, r.Items) {
			t.Fatal("hash not recomputed")
		}
		b.drRefused(t, releases.CodeItemNeeded, func() error {
			_, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, f.chart.ID)
			return err
		})
		r, err = b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, other.ID)
		if err == nil {
			t.Fatalf("removed the last named item, left %v", drItemIDs(r))
		}
		wantRefusal(t, err, release.CodeNoItems, "")
	})

	t.Run("Rename", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.RenameRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "  Seçim gecesi  ")
		if err != nil {
			t.Fatal(err)
		}
		if r.Title != "Seçim gecesi" || r.Rev != f.r.Rev+1 || r.Hash != f.r.Hash {
			t.Fatalf("renamed %+v", r.Release)
		}
		b.drRefused(t, releases.CodeBadTitle, func() error {
			_, err := b.Releases.RenameRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "")
			return err
		})
		b.drRefused(t, engine.CodeStale, func() error {
			_, err := b.Releases.RenameRelease(ctx, b.Editor, b.Site.ID, r.ID, f.r.Rev, "Old rev")
			return err
		})
		b.drRefused(t, engine.CodeForbidden, func() error {
			_, err := b.Releases.RenameRelease(ctx, b.Contributor, b.Site.ID, r.ID, r.Rev, "Not mine")
			return err
		})
	})

	t.Run("OnlyWhileDraft", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		z := b.drPage(t, "Z", content.StatusDraft)
		for name, fn := range map[string]func() error{
			"Add": func() error {
				_, err := b.Releases.AddItems(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, []string{z.ID})
				return err
			},
			"Remove": func() error {
				_, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, b.Article.ID)
				return err
			},
			"Rename": func() error {
				_, err := b.Releases.RenameRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "x")
				return err
			},
			"Repin": func() error { _, err := b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); return err },
			"Schedule": func() error {
				_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "10:00")
				return err
			},
		} {
			t.Run(name, func(t *testing.T) { b.drRefused(t, engine.CodeBadState, fn) })
		}
	})
}

func TestScheduleRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type fixture struct {
		b        *testBundle
		about    content.Node // live, edited since
		campaign content.Node // live, unchanged
		results  content.Node // not live, used by the article
		r        releases.ReleaseRow
	}
	setup := func(t *testing.T) *fixture {
		b := newBundle(t)
		f := &fixture{b: b}
		p0 := start.Add(-24 * time.Hour)
		f.about = b.CreateNode(t, b.Site.ID, release.KindPage, content.Body{Title: "About", Slug: "about", Status: content.StatusPublished, PublishedAt: &p0, Text: "v1"})
		f.campaign = b.drPage(t, "Old campaign", content.StatusPublished)
		b.drPublish(t)
		f.about = b.drEditText(t, f.about.ID, "v2")
		f.results = b.drPage(t, "Results", content.StatusReview)
		b.drSetRefs(t, b.Article.ID, f.results.ID, f.about.ID)
		b.Article = b.Node(t, b.Article.ID).Node
		f.r = b.drDraft(t, b.Contributor, "Election night", b.Article.ID, f.about.ID)
		return f
	}

	t.Run("ApproverSchedulesDirectly", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		if r.State != release.StateScheduled || r.Approval == nil || r.Approval.Kind != "person" || r.Approval.By.ID != b.Editor.ID ||
			r.Approval.ExecuteAt == nil || !r.Approval.ExecuteAt.Equal(nine) {
			t.Fatalf("scheduled %s approval %+v", r.State, r.Approval)
		}
		if r.When == nil || r.When.Kind != "at" || r.When.TimeZone != "Europe/Istanbul" || r.When.LocalTime != "2026-11-02T09:00" || !r.When.At.Equal(nine) {
			t.Fatalf("when %+v", r.When)
		}
		if n := b.Count(t, `SELECT count(*) FROM approvals`); n != 0 {
			t.Fatalf("%d requests", n)
		}
		if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 3 {
			t.Fatalf("%d held items, want 3", n)
		}
		// The draft article and the results page in review were promoted;
		// about was already published with a date and keeps its pin.
		for _, id := range []string{b.Article.ID, f.results.ID} {
			n := b.Node(t, id)
			it := drItem(t, r, id)
			if n.Body.Status != content.StatusPublished || n.Body.PublishedAt == nil || !n.Body.PublishedAt.Equal(nine) ||
				it.Target.Rev != n.Rev || it.Target.Hash != n.Hash || it.RestoreRev != n.Rev-1 {
				t.Fatalf("%s: node rev %d %s, item %+v target %+v", id, n.Rev, n.Body.Status, it, it.Target)
			}
		}
		if it := drItem(t, r, f.about.ID); it.Target.Rev != f.about.Rev || it.RestoreRev != 0 {
			t.Fatalf("about item %+v target %+v", it, it.Target)
		}
		if r.Hash != release.Hash(b.Site.ID, r.Items) || r.Hash == f.r.Hash {
			t.Fatalf("hash %s not recomputed", r.Hash)
		}
		if drItem(t, r, f.results.ID).AddedBecause != b.Article.ID {
			t.Fatal("the reason was lost on scheduling")
		}
		b.drWantHeld(t, f.about.ID, r.ID)
	})

	t.Run("ContributorAsksForApproval", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.ScheduleRelease(ctx, b.Contributor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		if r.State != release.StateAwaitingApproval || r.Approval != nil {
			t.Fatalf("state %s approval %+v", r.State, r.Approval)
		}
		list, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Release.ID != r.ID || list[0].Request.StateHash != r.Hash ||
			list[0].Request.RequestedBy.ID != b.Contributor.ID || list[0].Request.ExecuteAt == nil || !list[0].Request.ExecuteAt.Equal(nine) {
			t.Fatalf("requests %+v", list)
		}
		b.drWantHeld(t, b.Article.ID, r.ID)
		// The editor approves; at 09:00 the tick publishes every item.
		if _, err := b.Releases.Approve(ctx, b.Editor, b.Site.ID, list[0].Request.ID); err != nil {
			t.Fatal(err)
		}
		b.drPublishedExactly(t, b.Release(t, r.ID))
	})

	t.Run("PublishesAllItemsExactly", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.AddRemovals(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, []string{f.campaign.ID})
		if err != nil {
			t.Fatal(err)
		}
		r, err = b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		b.drPublishedExactly(t, r)
	})

	t.Run("PinnedChangedThenRepin", func(t *testing.T) {
		f := setup(t)
		b := f.b
		b.drEditText(t, f.results.ID, "corrected") // a closure item's working copy moves
		if moved, err := b.Releases.PinsMoved(ctx, b.Editor, b.Site.ID, f.r.ID); err != nil || !slices.Equal(moved, []string{f.results.ID}) {
			t.Fatalf("moved %v, %v", moved, err)
		}
		e := b.drRefused(t, engine.CodePinnedChanged, func() error {
			_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
			return err
		})
		if e.Args["Node"] != f.results.ID || e.Args["Title"] != "Results" {
			t.Fatalf("refusal args %v", e.Args)
		}
		// A publish moves about's live version: its base moved too.
		b.drPublish(t)
		b.drRefused(t, engine.CodePinnedChanged, func() error {
			_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
			return err
		})
		// About is live as pinned now: re-pinning refuses it as nothing to publish.
		b.drRefused(t, release.CodeNothingToPublish, func() error {
			_, err := b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev)
			return err
		})
		r, err := b.Releases.RemoveItem(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, f.about.ID)
		if err != nil {
			t.Fatal(err)
		}
		b.drRefused(t, engine.CodeStale, func() error {
			_, err := b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, r.ID, r.Rev-1)
			return err
		})
		// The article now also uses a new page: re-pinning adds it.
		extra := b.drPage(t, "Extra", content.StatusDraft)
		b.drSetRefs(t, b.Article.ID, f.results.ID, extra.ID)
		r, err = b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, r.ID, r.Rev)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := drItemIDs(r), drSorted(b.Article.ID, f.results.ID, extra.ID); !slices.Equal(got, want) {
			t.Fatalf("items %v, want %v", got, want)
		}
		if it := drItem(t, r, f.results.ID); it.Target.Rev != b.Node(t, f.results.ID).Rev || it.AddedBecause != b.Article.ID {
			t.Fatalf("results re-pinned %+v %+v", it, it.Target)
		}
		if moved, err := b.Releases.PinsMoved(ctx, b.Editor, b.Site.ID, r.ID); err != nil || len(moved) != 0 {
			t.Fatalf("moved after re-pin %v, %v", moved, err)
		}
		r, err = b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		b.drPublishedExactly(t, r)
	})

	t.Run("UnscheduledAndScheduledAgain", func(t *testing.T) {
		f := setup(t)
		b := f.b
		r, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Releases.Unschedule(ctx, b.Editor, b.Site.ID, r.ID, r.Rev); err != nil {
			t.Fatal(err)
		}
		// The promoted drafts were put back; that is not a moved pin.
		if n := b.Node(t, b.Article.ID); n.Body.Status != content.StatusDraft {
			t.Fatalf("article is %s after unscheduling", n.Body.Status)
		}
		if moved, err := b.Releases.PinsMoved(ctx, b.Editor, b.Site.ID, r.ID); err != nil || len(moved) != 0 {
			t.Fatalf("moved %v, %v", moved, err)
		}
		r = b.Release(t, r.ID)
		r, err = b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "10:00")
		if err != nil {
			t.Fatal(err)
		}
		if n := b.Node(t, b.Article.ID); n.Body.Status != content.StatusPublished || !n.Body.PublishedAt.Equal(nine.Add(time.Hour)) {
			t.Fatalf("article %s %v", n.Body.Status, n.Body.PublishedAt)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		f := setup(t)
		b := f.b
		for _, tc := range []struct{ name, date, clock, code string }{
			{"Past", "2026-11-01", "09:00", release.CodeTimeInPast},
			{"TooSoon", "2026-11-02", "08:00", release.CodeTooSoon},
			{"TooFar", "2027-12-01", "09:00", release.CodeTooFar},
			{"BadDate", "2026-13-01", "09:00", "bad_date"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b.drRefused(t, tc.code, func() error {
					_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, tc.date, tc.clock)
					return err
				})
			})
		}
		t.Run("Stale", func(t *testing.T) {
			b.drRefused(t, engine.CodeStale, func() error {
				_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev+1, "2026-11-02", "09:00")
				return err
			})
		})
		// Scheduling the other release promoted the node (a new version):
		// the draft's pin moved. Re-pinned, it is scheduled too, an overlap
		// flagged on both (D15).
		t.Run("AnotherReleaseHoldsANode", func(t *testing.T) {
			held := b.Schedule(t, b.Editor, f.results, "2026-11-03", "09:00")
			b.drRefused(t, engine.CodePinnedChanged, func() error {
				_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev, "2026-11-02", "09:00")
				return err
			})
			r, err := b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, f.r.ID, f.r.Rev)
			if err != nil {
				t.Fatal(err)
			}
			if r, err = b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "09:00"); err != nil {
				t.Fatal(err)
			}
			b.drWantOverlap(t, held.ID, r.ID, f.results.ID)
		})
	})
}

func TestReleaseOverlaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBundle(t)
	other := b.drPage(t, "Other", content.StatusDraft)
	d1 := b.drDraft(t, b.Editor, "Election night", b.Article.ID, other.ID)
	d2 := b.drDraft(t, b.Editor, "Second draft", other.ID)
	// A scheduled release takes the article after the draft pinned it.
	held := b.Schedule(t, b.Editor, b.Article, "2026-11-03", "09:00")
	lone := b.drDraft(t, b.Editor, "Lone", b.drPage(t, "Lone", content.StatusDraft).ID)

	got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, d1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ReleaseID != held.ID || got[0].State != release.StateScheduled || got[0].At == nil ||
		!got[0].At.Equal(nine.Add(24*time.Hour)) || !slices.Equal(got[0].NodeIDs, []string{b.Article.ID}) ||
		got[1].ReleaseID != d2.ID || got[1].At != nil || !slices.Equal(got[1].NodeIDs, []string{other.ID}) || got[1].Title != "Second draft" {
		t.Fatalf("overlaps of d1: %+v", got)
	}
	// Flagged on both.
	if got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, held.ID); err != nil || len(got) != 1 || got[0].ReleaseID != d1.ID || got[0].Title != "Election night" {
		t.Fatalf("overlaps of the scheduled one: %+v, %v", got, err)
	}
	if got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, lone.ID); err != nil || len(got) != 0 {
		t.Fatalf("overlaps of a lone draft: %+v, %v", got, err)
	}
	// Finished releases do not count.
	if err := b.Releases.Cancel(ctx, b.Editor, b.Site.ID, d2.ID, d2.Rev); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Releases.Overlaps(ctx, b.Editor, b.Site.ID, d1.ID); err != nil || len(got) != 1 {
		t.Fatalf("after canceling d2: %+v, %v", got, err)
	}
	// The article was promoted when the other took it: the draft's pin
	// moved. Re-pinned, the draft is scheduled while the other holds the
	// article (D15): both hold it, both are flagged.
	b.drRefused(t, engine.CodePinnedChanged, func() error {
		_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, d1.ID, d1.Rev, "2026-11-02", "09:00")
		return err
	})
	r, err := b.Releases.RepinDraft(ctx, b.Editor, b.Site.ID, d1.ID, d1.Rev)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-03", "10:00"); err != nil {
		t.Fatalf("scheduling an overlap: %v", err)
	}
	if r.State != release.StateScheduled || b.heldItems(t, r.ID) != 2 || b.heldItems(t, held.ID) != 1 {
		t.Fatalf("%s, held %d and %d", r.State, b.heldItems(t, r.ID), b.heldItems(t, held.ID))
	}
	b.drWantOverlap(t, r.ID, held.ID, b.Article.ID)
	b.drWantOverlap(t, held.ID, r.ID, b.Article.ID)
}

// drWantOverlap fails unless release id overlaps other on exactly nodes.
func (b *testBundle) drWantOverlap(t *testing.T, id, other string, nodes ...string) {
	t.Helper()
	got, err := b.Releases.Overlaps(context.Background(), b.Editor, b.Site.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if o.ReleaseID == other {
			if !slices.Equal(o.NodeIDs, nodes) {
				t.Fatalf("overlap of %s with %s on %v, want %v", id, other, o.NodeIDs, nodes)
			}
			return
		}
	}
	t.Fatalf("overlaps of %s: %+v, want %s", id, got, other)
}

// wantHeld fails unless releaseID holds node id.
func (b *testBundle) drWantHeld(t *testing.T, id, releaseID string) {
	t.Helper()
	if h := b.Node(t, id).Held; h == nil || h.ReleaseID != releaseID {
		t.Fatalf("%s held by %+v, want %s", id, h, releaseID)
	}
}

// wantPublishedExactly runs the release at its time and checks S1: the live
// snapshot after it is exactly the one before, minus the items' nodes, plus
// the set targets.
func (b *testBundle) drPublishedExactly(t *testing.T, r releases.ReleaseRow) {
	t.Helper()
	before := map[string]release.Ref{}
	for id, n := range b.Live(t) {
		before[id] = n.Ref
	}
	b.Clock.Set(*r.ExecuteAt)
	if rep := b.Tick(t); rep.Published != 1 {
		got := b.Release(t, r.ID)
		t.Fatalf("tick %+v: %s %+v", rep, got.State, got.Outcome)
	}
	after := map[string]release.Ref{}
	for id, n := range b.Live(t) {
		after[id] = n.Ref
	}
	want := maps.Clone(before)
	for _, it := range r.Items {
		delete(want, it.NodeID)
		if it.Op == release.OpSet {
			want[it.NodeID] = release.Ref{ID: it.NodeID, Kind: it.NodeKind, Rev: it.Target.Rev, Hash: it.Target.Hash}
		}
	}
	if !maps.Equal(after, want) {
		t.Fatalf("live after the release:\n%v\nwant:\n%v", after, want)
	}
	if got := b.Release(t, r.ID); got.State != release.StatePublished {
		t.Fatalf("release %s", got.State)
	}
	if n := b.Count(t, `SELECT count(*) FROM release_items WHERE release_id = ? AND held = 1`, r.ID); n != 0 {
		t.Fatalf("%d items still held", n)
	}
}
