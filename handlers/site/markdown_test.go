package site_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/handlers/internal/apptest"
)

// An entry's body is Markdown on the public site, and in its preview: its
// links and emphasis render, its raw HTML and script links never do.
func TestPublicBodiesAreMarkdown(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	now := a.Engine.Now()
	body := "Polls close at **20:00**. See [last year's results](/posts/welcome).\n\n" +
		"<script>alert(1)</script>\n\n[Tap here](javascript:alert(2))"
	a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Polls", Slug: "polls", Lang: "en",
		Status: content.StatusPublished, PublishedAt: &now, Text: body})
	if _, err := a.Nodes.Publish(context.Background(), a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	res := a.Client(t, "").Get("/posts/polls")
	if res.Status != http.StatusOK {
		t.Fatalf("entry: %d", res.Status)
	}
	for _, want := range []string{"<p>Polls close at <strong>20:00</strong>. See <a href=\"/posts/welcome\">last year&#39;s results</a>.</p>"} {
		if !strings.Contains(res.Body, want) && !strings.Contains(res.Body, strings.ReplaceAll(want, "&#39;", "'")) {
			t.Errorf("entry lacks %s\n%s", want, apptest.Excerpt(res.Body))
		}
	}
	for _, never := range []string{"<script>alert(1)", `href="javascript`} {
		if strings.Contains(res.Body, never) {
			t.Errorf("entry holds %s", never)
		}
	}
}
