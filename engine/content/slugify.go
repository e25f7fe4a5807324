package content

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// turkish spells the Turkish letters the way a Turkish address does (ı → i,
// ş → s, ğ → g …); İ has to be mapped before lower-casing, which would
// otherwise give "i̇" (i with a combining dot).
var turkish = strings.NewReplacer("İ", "i", "I", "i", "ı", "i", "Ş", "s", "ş", "s", "Ğ", "g", "ğ", "g",
	"Ü", "u", "ü", "u", "Ö", "o", "ö", "o", "Ç", "c", "ç", "c")

// Slugify makes an address from a title: Turkish letters transliterated,
// other accents dropped, lower-case letters and digits joined by single
// hyphens, at most 120 characters ("İstanbul'da sonbahar" →
// "istanbulda-sonbahar"). It returns "" when the title has no letter or
// digit to keep. web/static/editor.js does the same in the browser.
func Slugify(title string) string {
	s := norm.NFD.String(turkish.Replace(title))
	var b strings.Builder
	hyphen := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // an accent left by the decomposition
		case r == '\'' || r == '’':
			continue // "İstanbul'da" → "istanbulda"
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		default:
			hyphen = true
		}
		if b.Len() >= 120 {
			break
		}
	}
	out := b.String()
	if len(out) > 120 {
		out = out[:120]
	}
	return strings.Trim(out, "-")
}
