package markdown_test

import (
	"strings"
	"testing"

	"studio/web/markdown"
)

func TestMarkdownIsRenderedWithoutRawHTMLOrScriptLinks(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
		never    []string
	}{
		{"Paragraphs", "First.\n\nSecond, *stressed*.", []string{"<p>First.</p>", "<p>Second, <em>stressed</em>.</p>"}, nil},
		{"LinksAndImages", "See [last year's](/posts/election-2025).\n\n![Ballot boxes](/media/ballots.jpg)",
			[]string{`<a href="/posts/election-2025">last year's</a>`, `<img src="/media/ballots.jpg" alt="Ballot boxes">`}, nil},
		{"Table", "| İl | Oy |\n|---|---|\n| İzmir | 12 |", []string{"<table>", "<td>İzmir</td>"}, nil},
		{"RawHTMLIsDropped", "Hi <script>alert(1)</script>\n\n<iframe src=\"https://evil.example\"></iframe>\n\n<b onclick=x>bold</b>",
			[]string{"Hi "}, []string{"<script", "<iframe", "onclick", "<b"}},
		{"ScriptLinksAreDropped", "[click](javascript:alert(1)) [v](vbscript:x) ![i](javascript:alert(1)) <javascript:alert(1)>",
			nil, []string{`href="javascript`, `src="javascript`, `href="vbscript`}},
		{"AttributesAreEscaped", `[x](/a"onmouseover="alert(1)) ![a" onerror="x](/i.png)`,
			nil, []string{`" onmouseover`, `"onmouseover="alert`, `" onerror="`}},
		{"Autolinks", "Results at https://secim.example/sonuc", []string{`<a href="https://secim.example/sonuc">`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := markdown.HTML(c.in)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q rendered as %q: no %q", c.in, got, w)
				}
			}
			for _, n := range c.never {
				if strings.Contains(got, n) {
					t.Errorf("%q rendered as %q: holds %q", c.in, got, n)
				}
			}
		})
	}
}
