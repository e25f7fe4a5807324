package releases_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// wantRefused fails unless err is the engine refusal code.
func wantRefused(t *testing.T, err error, code string) *engine.Error {
	t.Helper()
	e, ok := engine.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("got %v, want the refusal %s", err, code)
	}
	return e
}

// plantNode saves a node through the store alone, as data saved before
// addresses were unique: the engine's checks do not see it coming.
func (b *testBundle) plantNode(t *testing.T, kind release.NodeKind, body content.Body) content.Node {
	t.Helper()
	n := content.Node{ID: ids.New("ent"), SiteID: b.Site.ID, Kind: kind, Body: body, Rev: 1, Hash: content.Hash(body)}
	if err := b.Store.SaveNode(context.Background(), n, 0, b.Contributor.Actor(), b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAddressUniqueOnSave: a slug is unique per route namespace across the
// working copies and the live versions of a site's nodes; a refusal names
// the address and its holder and saves nothing.
func TestAddressUniqueOnSave(t *testing.T) {
	ctx := context.Background()
	b := newBundle(t) // b.article: draft "election-night"
	welcome := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Welcome", Slug: "welcome", Status: content.StatusPublished})
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	before := b.Dump(t)

	t.Run("NewArticleWithALiveSlug", func(t *testing.T) {
		_, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindContentEntry,
			content.Body{Title: "Impostor", Slug: "welcome", Status: content.StatusPublished})
		e := wantRefused(t, err, releases.CodeSlugTaken)
		if e.Field != "slug" || e.Args["Path"] != "/posts/welcome" || e.Args["Holder"] != "Welcome" {
			t.Errorf("refusal = %+v, want the slug field, /posts/welcome and its holder", e)
		}
	})
	t.Run("NewArticleWithAWorkingCopySlug", func(t *testing.T) {
		_, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindContentEntry,
			content.Body{Title: "Twin", Slug: "election-night", Status: content.StatusDraft})
		wantRefused(t, err, releases.CodeSlugTaken)
	})
	t.Run("EditIntoATakenSlug", func(t *testing.T) {
		_, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, b.Article.ID, b.Article.Rev,
			content.Edit{Title: "Election night", Slug: "welcome", Status: content.StatusDraft})
		wantRefused(t, err, releases.CodeSlugTaken)
	})
	t.Run("PatchIntoATakenSlug", func(t *testing.T) {
		slug := "welcome"
		_, err := b.Nodes.PatchNode(ctx, b.Editor, b.Site.ID, b.Article.ID, b.Article.Rev, nodes.NodePatch{Slug: &slug})
		wantRefused(t, err, releases.CodeSlugTaken)
	})
	t.Run("ReservedPageAddress", func(t *testing.T) {
		for _, slug := range []string{"studio", "api", "posts", "media", "preview", "static", "health", "mcp"} {
			_, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindPage,
				content.Body{Title: "Oops", Slug: slug, Status: content.StatusDraft})
			if e := wantRefused(t, err, releases.CodeSlugReserved); e.Args["Path"] != "/"+slug {
				t.Errorf("%s: refusal %+v", slug, e)
			}
		}
	})
	if got := b.Dump(t); got != before {
		t.Errorf("a refused save changed the database:\n%s\nwant\n%s", got, before)
	}

	t.Run("OtherNamespacesAreFree", func(t *testing.T) {
		// /welcome (a page) and /posts/welcome (an article) are two addresses;
		// an article may be called "studio" (/posts/studio).
		if _, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindPage,
			content.Body{Title: "Welcome page", Slug: "welcome", Status: content.StatusDraft}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindContentEntry,
			content.Body{Title: "Inside the studio", Slug: "studio", Status: content.StatusDraft}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ALiveAddressStaysTakenAfterARename", func(t *testing.T) {
		// Welcome's working copy moves to /posts/hello; its live version
		// still has /posts/welcome until the next publish.
		d := b.Node(t, welcome.ID)
		if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, welcome.ID, d.Rev,
			content.Edit{Title: "Welcome", Slug: "hello", Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
		_, err := b.Nodes.CreateNode(ctx, b.Editor, b.Site.ID, release.KindContentEntry,
			content.Body{Title: "Impostor", Slug: "welcome", Status: content.StatusDraft})
		wantRefused(t, err, releases.CodeSlugTaken)
		// Its own node may take it back.
		d = b.Node(t, welcome.ID)
		if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, welcome.ID, d.Rev,
			content.Edit{Title: "Welcome", Slug: "welcome", Status: content.StatusPublished}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("AnOldDuplicateStaysEditable", func(t *testing.T) {
		// Saved before the rule: its own fields can still be edited, only
		// the address it shares cannot be given to yet another node.
		old := b.plantNode(t, release.KindContentEntry, content.Body{Title: "Old twin", Slug: "election-night", Status: content.StatusDraft})
		if _, err := b.Nodes.EditNode(ctx, b.Editor, b.Site.ID, old.ID, old.Rev,
			content.Edit{Title: "Old twin, edited", Slug: "election-night", Status: content.StatusDraft}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAddressSlugFromTitle: a new node without an address takes one made
// from its title (Turkish letters transliterated) and the site's language.
func TestAddressSlugFromTitle(t *testing.T) {
	b := newBundle(t)
	n, err := b.Nodes.CreateNode(context.Background(), b.Editor, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "İstanbul'da Şık Güğüm Çöp", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	if n.Body.Slug != "istanbulda-sik-gugum-cop" || n.Body.Lang != "tr" {
		t.Errorf("slug %q lang %q, want istanbulda-sik-gugum-cop and tr", n.Body.Slug, n.Body.Lang)
	}
	_, err = b.Nodes.CreateNode(context.Background(), b.Editor, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Election night", Status: content.StatusDraft})
	wantRefused(t, err, releases.CodeSlugTaken) // b.article has election-night
	_, err = b.Nodes.CreateNode(context.Background(), b.Editor, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Hello", Lang: "de", Status: content.StatusDraft})
	wantRefused(t, err, "lang_invalid")
}

// TestAddressTakeoverRefusedOnScheduleAndApprove: a release that would make
// a node take over a live address is refused when it is scheduled with the
// scheduler's own approval and when someone approves a request; nothing
// changes.
func TestAddressTakeoverRefusedOnScheduleAndApprove(t *testing.T) {
	ctx := context.Background()
	b := newBundle(t)
	welcome := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Welcome", Slug: "welcome", Status: content.StatusPublished})
	twin := b.plantNode(t, release.KindContentEntry, content.Body{Title: "Twin", Slug: "welcome", Status: content.StatusDraft})

	t.Run("Approve", func(t *testing.T) {
		// The contributor asks while Welcome is not live yet; then it goes live.
		r, err := b.Releases.ScheduleNode(ctx, b.Contributor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: twin.ID,
			ExpectedRev: twin.Rev, Date: "2026-11-02", Time: "09:00"})
		if err != nil || r.State != release.StateAwaitingApproval {
			t.Fatalf("request: %s %v", r.State, err)
		}
		if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
			t.Fatal(err)
		}
		before := b.Dump(t)
		reqs, err := b.Releases.Approvals(ctx, b.Editor, b.Site.ID)
		if err != nil || len(reqs) != 1 {
			t.Fatalf("approvals: %d %v", len(reqs), err)
		}
		_, err = b.Releases.Approve(ctx, b.Editor, b.Site.ID, reqs[0].Request.ID)
		e := wantRefused(t, err, releases.CodeSlugTaken)
		if e.Args["Path"] != "/posts/welcome" || e.Args["Holder"] != "Welcome" || e.Args["Title"] != "Twin" {
			t.Errorf("refusal args %+v", e.Args)
		}
		if got := b.Dump(t); got != before {
			t.Errorf("a refused approval changed the database")
		}
		if got := b.Release(t, r.ID).State; got != release.StateAwaitingApproval {
			t.Errorf("release is %s, want still awaiting approval", got)
		}
		if err := b.Releases.Cancel(ctx, b.Contributor, b.Site.ID, r.ID, b.Release(t, r.ID).Rev); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ScheduleNode", func(t *testing.T) {
		d := b.Node(t, twin.ID)
		_, err := b.Releases.ScheduleNode(ctx, b.Editor, releases.ScheduleInput{SiteID: b.Site.ID, NodeID: twin.ID,
			ExpectedRev: d.Rev, Date: "2026-11-02", Time: "09:00"})
		wantRefused(t, err, releases.CodeSlugTaken)
	})
	t.Run("ScheduleRelease", func(t *testing.T) {
		r := b.drDraft(t, b.Editor, "Twin release", twin.ID)
		_, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "09:00")
		wantRefused(t, err, releases.CodeSlugTaken)
		// Unpublishing Welcome in the same release frees its address.
		r, err = b.Releases.AddRemovals(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, []string{welcome.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Releases.ScheduleRelease(ctx, b.Editor, b.Site.ID, r.ID, r.Rev, "2026-11-02", "09:00"); err != nil {
			t.Fatalf("a release that removes the holder: %v", err)
		}
	})
}

// TestAddressTakeoverFailsTheRun: a release that reaches its time while
// another node has its address live fails with slug_taken (naming the
// address), is in the notifications, and changes nothing live.
func TestAddressTakeoverFailsTheRun(t *testing.T) {
	ctx := context.Background()
	b := newBundle(t)
	welcome := b.CreateNode(t, b.Site.ID, release.KindContentEntry,
		content.Body{Title: "Welcome", Slug: "welcome", Status: content.StatusPublished})
	twin := b.plantNode(t, release.KindContentEntry, content.Body{Title: "Twin", Slug: "welcome", Status: content.StatusDraft})
	r := b.Schedule(t, b.Editor, twin, "2026-11-02", "09:00") // Welcome is not live yet
	if _, err := b.Nodes.Publish(ctx, b.Editor, b.Site.ID); err != nil {
		t.Fatal(err)
	}
	liveBefore := b.Live(t)
	if _, ok := liveBefore[welcome.ID]; !ok || len(liveBefore) != 1 {
		t.Fatalf("live before: %v", liveBefore)
	}

	b.Clock.Set(nine)
	b.Tick(t)
	got := b.Release(t, r.ID)
	if got.State != release.StateFailed || got.Outcome == nil || got.Outcome.Code != releases.CodeSlugTaken ||
		got.Outcome.Message != "/posts/welcome" {
		t.Fatalf("release %s outcome %+v, want failed slug_taken /posts/welcome", got.State, got.Outcome)
	}
	live := b.Live(t)
	if len(live) != 1 || live[welcome.ID].Body.Title != "Welcome" {
		t.Errorf("live after the failed run: %v", live)
	}
	notes, err := b.Sched.Notifications(ctx, b.Editor, b.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range notes {
		if n.ReleaseID == r.ID && n.Kind == scheduler.NoticeFailed && n.Outcome != nil && n.Outcome.Code == releases.CodeSlugTaken {
			found = true
		}
	}
	if !found {
		t.Errorf("no failed notification for %s: %+v", r.ID, notes)
	}
	if errors.Is(err, engine.ErrConflict) || strings.Contains(b.Dump(t), "release.publish\t") {
		t.Errorf("something was published")
	}
}
