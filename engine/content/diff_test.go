package content

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDiffLines(t *testing.T) {
	render := func(d []DiffLine) string {
		var sb strings.Builder
		for _, l := range d {
			sb.WriteByte(l.Op)
			sb.WriteString(l.Text)
			sb.WriteByte('|')
		}
		return sb.String()
	}
	for _, c := range []struct{ old, new, want string }{
		{"", "", ""},
		{"a", "a", " a|"},
		{"", "a\nb", "+a|+b|"},
		{"a\nb", "", "-a|-b|"},
		{"a\nb\nc", "a\nx\nc", " a|-b|+x| c|"},
		{"a\nb\nc", "a\nc", " a|-b| c|"},
		{"a\r\nb", "a\nb", " a| b|"},
	} {
		if got := render(DiffLines(c.old, c.new)); got != c.want {
			t.Errorf("DiffLines(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}

// TestDiffLinesRebuildsBothTexts: keeping ' ' and '-' lines gives the old
// text, ' ' and '+' the new one, for random texts.
func TestDiffLinesRebuildsBothTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	text := func() string {
		lines := make([]string, rng.IntN(12))
		for i := range lines {
			lines[i] = string(rune('a' + rng.IntN(4)))
		}
		return strings.Join(lines, "\n")
	}
	for range 2000 {
		old, new := text(), text()
		var o, n []string
		for _, l := range DiffLines(old, new) {
			if l.Op != '+' {
				o = append(o, l.Text)
			}
			if l.Op != '-' {
				n = append(n, l.Text)
			}
		}
		if strings.Join(o, "\n") != old || strings.Join(n, "\n") != new {
			t.Fatalf("diff of %q → %q does not rebuild them", old, new)
		}
	}
}
