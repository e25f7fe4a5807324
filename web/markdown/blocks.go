package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Blocks is text rendered as HTML the way HTML renders it, one string per
// top-level block (a paragraph, a heading, a list, a table …), so a review
// can mark the blocks that changed. Images at /media/<file> are shown from
// media + <file> instead: Studio shows files that are not live yet (or as
// a release pins them) from its own addresses.
func Blocks(src, media string) []string {
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	if media != "" {
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if img, ok := n.(*ast.Image); ok && entering {
				if file, ok := strings.CutPrefix(string(img.Destination), "/media/"); ok {
					img.Destination = []byte(media + file)
				}
			}
			return ast.WalkContinue, nil
		})
	}
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		var b bytes.Buffer
		// Writing to a bytes.Buffer does not fail; a block that shows
		// nothing (a link's reference definition) is left out.
		if err := md.Renderer().Render(&b, source, n); err == nil && b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return out
}

// HTMLWithMedia is HTML with the images at /media/<file> shown from
// media + <file>, as Blocks shows them.
func HTMLWithMedia(src, media string) string {
	return strings.Join(Blocks(src, media), "")
}
