package content

import (
	"strings"
	"testing"

	"studio/engine/model/release"
)

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"İstanbul'da sonbahar":           "istanbulda-sonbahar",
		"Işık, Şule, Ğ, Ü, Ö, Ç":         "isik-sule-g-u-o-c",
		"  Election night -- live!  ":    "election-night-live",
		"Café crème":                     "cafe-creme",
		"2026 Bütçesi":                   "2026-butcesi",
		"!!!":                            "",
		strings.Repeat("a", 300):         strings.Repeat("a", 120),
		strings.Repeat("ab ", 60) + "cd": strings.TrimSuffix(strings.Repeat("ab-", 40), "-"),
	} {
		got := Slugify(in)
		if got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
		if got != "" && !slugPattern.MatchString(got) {
			t.Errorf("Slugify(%q) = %q is not a valid slug", in, got)
		}
	}
}

func TestNamespacesAndReserved(t *testing.T) {
	if Path(release.KindContentEntry, "a") != "/posts/a" || Path(release.KindPage, "a") != "/a" ||
		Path(release.KindAsset, "a.png") != "/media/a.png" || Path(release.KindMenu, "a") != "" {
		t.Error("paths")
	}
	for _, s := range []string{"studio", "api", "posts", "media", "preview", "static", "health", "mcp"} {
		if !Reserved(release.KindPage, s) || Reserved(release.KindContentEntry, s) {
			t.Errorf("%s: reserved for pages only", s)
		}
	}
}

// TestTitleAndSummaryControls: node titles and summaries follow release
// titles' rule (no C0/C1 controls, NUL, or bidi overrides and isolates);
// a summary keeps its line breaks.
func TestTitleAndSummaryControls(t *testing.T) {
	ok := Body{Title: "Election night", Slug: "election-night", Status: StatusDraft, Summary: "Two lines.\nSecond."}
	if err := Validate(ok); err != nil {
		t.Fatalf("a clean body: %v", err)
	}
	for name, bad := range map[string]string{"NUL": "a\x00b", "C1": "a\u0085b", "CSI": "a\u009bb", "RLO": "a\u202eb",
		"LRI": "a\u2066b", "PDI": "a\u2069b", "DEL": "a\x7fb", "BadUTF8": "a\xffb", "Tab": "a\tb"} {
		b := ok
		b.Title = bad
		err, _ := Validate(b).(*FieldError)
		if err == nil || err.Field != "title" {
			t.Errorf("title %s: %v, want a title error", name, err)
		}
		if name == "Tab" {
			continue // a tab is fine in a summary
		}
		b = ok
		b.Summary = bad
		if err, _ := Validate(b).(*FieldError); err == nil || err.Key != "error.summary_invalid" {
			t.Errorf("summary %s: %v, want summary_invalid", name, err)
		}
		a := Body{Title: bad, Slug: "a.png", Status: StatusDraft, Mime: "image/png", Data: []byte("\x89PNG\r\n\x1a\n....")}
		if err, _ := ValidateAsset(a).(*FieldError); err == nil || err.Field != "title" {
			t.Errorf("asset title %s: %v", name, err)
		}
	}
}

func TestAssetFileRules(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	good := Body{Title: "Autumn", Slug: "bogazda-sonbahar.png", Status: StatusPublished, Mime: "image/png", Data: png,
		Alt: "Sunset over the Bosphorus"}
	if err := ValidateAsset(good); err != nil {
		t.Fatalf("bogazda-sonbahar.png: %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*Body)
		key  string
	}{
		"WrongExtension": {func(b *Body) { b.Slug = "bogazda-sonbahar.jpg" }, "error.file_extension_mismatch"},
		"BytesAreNotPNG": {func(b *Body) { b.Data = []byte("<html><script>") }, "error.file_type_invalid"},
		"SVGNamedPNG":    {func(b *Body) { b.Data = []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`) }, "error.file_type_invalid"},
		"NoFile":         {func(b *Body) { b.Mime, b.Data = "", nil }, "error.file_required"},
		"SVG": {func(b *Body) {
			b.Slug, b.Mime, b.Data = "logo.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)
		}, "error.file_svg_refused"},
		"AVIF": {func(b *Body) {
			b.Slug, b.Mime, b.Data = "photo.avif", "image/avif", []byte("\x00\x00\x00\x1cftypavif\x00")
		}, "error.file_type_invalid"},
		"NoAlt":     {func(b *Body) { b.Alt = " " }, "error.alt_required"},
		"OverLimit": {func(b *Body) { b.Data = append(png, make([]byte, MaxAssetBytes)...) }, "error.file_size_invalid"},
	} {
		b := good
		tc.edit(&b)
		if err, _ := ValidateAsset(b).(*FieldError); err == nil || err.Key != tc.key {
			t.Errorf("%s: %v, want %s", name, err, tc.key)
		}
	}
	jpeg := good
	jpeg.Slug, jpeg.Mime, jpeg.Data = "photo.jpeg", "image/jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0}
	if err := ValidateAsset(jpeg); err != nil {
		t.Errorf("photo.jpeg: %v", err)
	}
	for data, want := range map[string]string{
		"GIF89a....": "image/gif", "RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp",
		"\x00\x00\x00\x1cftypavif\x00":                                 "image/avif",
		"<?xml version=\"1.0\"?>\n<!-- c -->\n<svg width=\"1\"></svg>": "image/svg+xml",
		"<svgx>": "", "<html>": "", "": "",
	} {
		if got := SniffImage([]byte(data)); got != want {
			t.Errorf("SniffImage(%q) = %q, want %q", data, got, want)
		}
	}
}
