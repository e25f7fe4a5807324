package markdown

import (
	"strings"
	"testing"
)

// TestBlocks: one string per top-level block, together the same HTML as the
// whole text rendered at once, and media images from the address given.
func TestBlocks(t *testing.T) {
	src := "# Results\n\nThe polls close at *nine*.\n\n![Map](/media/map.png)\n\n- one\n\n- two\n\n```\ncode\n\nmore\n```\n\n[link][r]\n\n[r]: /posts/x\n"
	blocks := Blocks(src, "")
	if got, want := strings.Join(blocks, ""), HTML(src); got != want {
		t.Fatalf("blocks joined:\n%s\nwant the whole text's HTML:\n%s", got, want)
	}
	if len(blocks) != 6 {
		t.Fatalf("%d blocks, want 6 (heading, paragraph, image, list, code, link): %q", len(blocks), blocks)
	}
	shown := HTMLWithMedia(src, "/studio/releases/rel_1/media/")
	if !strings.Contains(shown, `<img src="/studio/releases/rel_1/media/map.png" alt="Map">`) || strings.Contains(shown, `"/media/map.png"`) {
		t.Fatalf("the image is not shown from Studio: %s", shown)
	}
	if got := HTMLWithMedia("![x](https://example.com/media/a.png)", "/studio/media/"); !strings.Contains(got, `src="https://example.com/media/a.png"`) {
		t.Fatalf("another site's image was rewritten: %s", got)
	}
}
