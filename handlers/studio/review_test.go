package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// TestApprovalReviewRendersTheArticle: the review shows a live article as
// the public site does now beside how it will after approval, the changed
// paragraphs marked, its new image shown from the version the release pins
// (not live yet) and the media file itself with its size; the raw Markdown
// diff stays one click away; in English and Turkish.
func TestApprovalReviewRendersTheArticle(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	png := apptest.FixturePNG(t, 7)
	if _, err := a.Nodes.CreateAsset(ctx, a.Contributor, a.Site.ID, content.Body{Title: "Map", Slug: "map.png",
		Status: content.StatusDraft, Mime: "image/png", Data: png, Alt: "The districts"}); err != nil {
		t.Fatal(err)
	}
	n := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Results", Slug: "results", Status: content.StatusPublished,
		Text: "Polls close at nine.\n\nCounting starts at ten."})
	first := a.ScheduleAt(t, a.Editor, n, "2026-11-02", "09:00")
	a.Clock.Set(first.When.At)
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	live, err := a.Nodes.Node(ctx, a.Contributor, a.Site.ID, n.ID)
	if err != nil {
		t.Fatal(err)
	}
	edited, err := a.Nodes.EditNode(ctx, a.Contributor, a.Site.ID, n.ID, live.Rev, content.Edit{Title: "Results", Slug: "results",
		Status: content.StatusPublished, Text: "Polls close at nine.\n\nCounting starts at eleven.\n\n![The districts](/media/map.png)"})
	if err != nil {
		t.Fatal(err)
	}
	r := a.ScheduleAt(t, a.Contributor, edited, "2026-11-02", "12:00")
	list, err := a.Releases.Approvals(ctx, a.Editor, a.Site.ID)
	if err != nil || len(list) != 1 || list[0].Release.ID != r.ID {
		t.Fatalf("requests %+v, %v", list, err)
	}
	page := "/studio/approvals/" + list[0].Request.ID
	media := "/studio/releases/" + r.ID + "/media/"

	editor := a.SignedIn(t, a.Editor)
	got := editor.Get(page)
	if got.Status != http.StatusOK {
		t.Fatalf("review: %d", got.Status)
	}
	liveSide, afterSide := section(t, got.Body, "rendered-live"), section(t, got.Body, "rendered-after")
	for _, want := range []string{"Live now", "<p>Polls close at nine.</p>", `<del class="blk"><span class="sr-only">Removed: </span><p>Counting starts at ten.</p>`} {
		if !strings.Contains(liveSide, want) {
			t.Errorf("live side lacks %q:\n%s", want, liveSide)
		}
	}
	for _, want := range []string{"After approval", "<p>Polls close at nine.</p>", `<ins class="blk"><span class="sr-only">Added: </span><p>Counting starts at eleven.</p>`,
		`<img src="` + media + `after/map.png" alt="The districts">`} {
		if !strings.Contains(afterSide, want) {
			t.Errorf("after side lacks %q:\n%s", want, afterSide)
		}
	}
	if strings.Contains(afterSide, `<ins class="blk"><span class="sr-only">Added: </span><p>Polls`) {
		t.Error("the unchanged paragraph is marked")
	}
	if m := section(t, got.Body, "media-after"); !strings.Contains(m, `src="`+media+`after/map.png"`) || !strings.Contains(m, "map.png · ") || !strings.Contains(m, "image/png") {
		t.Errorf("the media file's review: %s", m)
	}
	if !strings.Contains(got.Body, `<details class="raw-diff">`) || !strings.Contains(got.Body, `data-testid="body-diff"`) {
		t.Error("no raw Markdown diff")
	}
	img := editor.Get(media + "after/map.png")
	if img.Status != http.StatusOK || img.Header.Get("Content-Type") != "image/png" || img.Body != string(png) {
		t.Fatalf("the pinned image: %d %q, %d bytes", img.Status, img.Header.Get("Content-Type"), len(img.Body))
	}
	if notLive := editor.Get(media + "live/map.png"); notLive.Status != http.StatusNotFound {
		t.Fatalf("the live side of a file not live: %d", notLive.Status)
	}
	if other := editor.Get(media + "after/no-such.png"); other.Status != http.StatusNotFound {
		t.Fatalf("a file neither pins nor live: %d", other.Status)
	}

	// The release page's Approval card: the request, then the approval.
	if card := editor.Get("/studio/releases/" + r.ID).Body; !strings.Contains(card, `data-testid="approval-card"`) ||
		!strings.Contains(card, "Chris Contributor asked for approval on 2 November 2026, 09:00.") ||
		!strings.Contains(card, `href="`+page+`" data-testid="approval-compare"`) {
		t.Fatalf("the waiting release's card:\n%s", card)
	}
	if res := editor.Post(page+"/approve", url.Values{"csrf_token": {editor.Token()}}); res.Status != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.Status)
	}
	card := editor.Get("/studio/releases/" + r.ID).Body
	for _, want := range []string{"Approved by Elif Editor on 2 November 2026, 09:00.", "For 2 November 2026, 12:00",
		"Single use, for these versions", `href="` + page + `" data-testid="approval-compare"`} {
		if !strings.Contains(card, want) {
			t.Errorf("the approved release's card lacks %q", want)
		}
	}
	if decided := editor.Get(page).Body; !strings.Contains(decided, `data-state="scheduled"`) || strings.Contains(decided, `data-testid="approve"`) {
		t.Error("a decided request's review still says it waits, or offers Approve")
	}

	a.SetLang(t, a.Editor, "tr")
	tr := a.SignedIn(t, a.Editor).Get(page)
	for _, want := range []string{"Şu an yayında", "Onaydan sonra", "Markdown metni, satır satır", `<span class="sr-only">Eklendi: </span>`} {
		if !strings.Contains(tr.Body, want) {
			t.Errorf("Turkish review lacks %q", want)
		}
	}
}

// section is the element with data-testid id, up to its closing tag's
// kind (article or figure), in a page's HTML.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `data-testid="`+id+`"`)
	if i < 0 {
		t.Fatalf("no %s in the page", id)
	}
	rest := page[i:]
	end := strings.Index(rest, "</article>")
	if e := strings.Index(rest, "</figure>"); end < 0 || (e >= 0 && e < end) {
		end = e
	}
	return rest[:end]
}
