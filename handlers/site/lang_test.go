package site_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chrome is what a public page shows around its content: the document's
// language, the menu and the footer.
var chromeParts = regexp.MustCompile(`<html lang="[^"]*">|<nav aria-label="[^"]*">.*?</nav>|<footer>.*?</footer>`)

// TestPreviewChromeIsTheLiveSites (issue 10, a newcomer's find): a preview
// looked unlike the page it previews — the site's chrome came in the
// article's language. Now the preview of an English article on the
// Turkish-first site has the live page's chrome word for word, in the
// site's language, with the article's own language on its content.
func TestPreviewChromeIsTheLiveSites(t *testing.T) {
	t.Parallel()
	g := newGatedSite(t)
	g.Clock.Set(gatedNow)
	c := g.Client(t, "")
	for _, slug := range []string{"harbour-lights", "lansman-partisi"} {
		n := g.node(t, slug)
		live := c.Get(n.path())
		preview := c.Get("/preview/" + g.previewToken(t, n, gatedNow.Add(time.Hour)))
		if preview.Status != http.StatusOK {
			t.Fatalf("%s: preview %d", slug, preview.Status)
		}
		if slug == "lansman-partisi" { // embargoed: its live URL is the 404, whose chrome is the same
			live = c.Get("/posts/harbour-lights")
		}
		lc, pc := chromeParts.FindAllString(live.Body, -1), chromeParts.FindAllString(preview.Body, -1)
		if len(lc) != 3 || strings.Join(lc, "\n") != strings.Join(pc, "\n") {
			t.Errorf("%s: the preview's chrome differs from the live page's:\nlive    %q\npreview %q", slug, lc, pc)
		}
		if !strings.Contains(preview.Body, `<html lang="tr">`) {
			t.Errorf("%s: the preview is not in the site's language", slug)
		}
		if want := `<article lang="` + n.Body.Lang + `">`; !strings.Contains(preview.Body, want) ||
			(slug == "harbour-lights" && !strings.Contains(live.Body, want)) {
			t.Errorf("%s: no %s on the content", slug, want)
		}
		if !strings.Contains(preview.Body, "Önizleme: bu sayfayı yalnızca bu bağlantıya sahip olanlar görür.") {
			t.Errorf("%s: the preview's notice is not in the site's language", slug)
		}
	}
}
