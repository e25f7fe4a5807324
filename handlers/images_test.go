package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// uploadImage posts a file to the editor's upload and decodes its JSON.
func uploadImage(t *testing.T, c *client, token, name, alt string, data []byte) (int, map[string]string) {
	t.Helper()
	res := multipartPost(t, c, "/studio/content/upload", token, map[string]string{"alt": alt}, name, data)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("upload %s: %d %s\n%s", name, res.Status, ct, excerpt(res.Body))
	}
	var out map[string]string
	if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
		t.Fatal(err)
	}
	return res.Status, out
}

// The editor's upload puts an image into an article's text and offers it
// as its cover: the type is read from the bytes (SVG refused), the alt text
// is required, 10 MB at most; the public page shows the cover above the
// text and the text's image in it, once each, and the release of the text
// carries both.
func TestEditorUploadAndCover(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := newApp(t)
	ctx := context.Background()
	c := a.signedIn(t, a.editor)
	editor := "/studio/content/" + a.draft.ID
	c.check(t, scenario{Name: "Editor", URL: editor, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-upload="/studio/content/upload"`, `name="cover_chosen"`, "No cover", `accept="image/jpeg,image/png,image/webp,image/gif"`}})
	token := c.csrf(editor)

	before := a.fingerprint(t)
	for _, bad := range []struct {
		name, file, alt string
		data            []byte
		status          int
		field, says     string
	}{
		{"SVG", "logo.png", "Logo", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), 422, "data", "SVG files cannot be uploaded"},
		{"NotAnImage", "photo.jpg", "Photo", []byte("<html><script>alert(1)</script>"), 422, "data", "Use a JPEG, PNG, WebP or GIF image."},
		{"NoAlt", "photo.png", " ", fixturePNG(t, 1), 422, "alt", "Describe the image"},
		{"TooLarge", "huge.png", "Huge", append(fixturePNG(t, 2), make([]byte, 10<<20)...), 413, "data", "at most 10 MB"},
	} {
		status, out := uploadImage(t, c, token, bad.file, bad.alt, bad.data)
		if status != bad.status || out["field"] != bad.field || !strings.Contains(out["error"], bad.says) {
			t.Errorf("%s: %d %v, want %d on %s saying %q", bad.name, status, out, bad.status, bad.field, bad.says)
		}
	}
	if a.fingerprint(t) != before {
		t.Fatal("a refused upload changed something")
	}

	status, inline := uploadImage(t, c, token, "Seçim gecesi.PNG", "Sandıklar sayılıyor", fixturePNG(t, 3))
	if status != http.StatusCreated || inline["path"] != "/media/secim-gecesi.png" ||
		inline["markdown"] != "![Sandıklar sayılıyor](/media/secim-gecesi.png)" {
		t.Fatalf("upload: %d %v", status, inline)
	}
	status, cover := uploadImage(t, c, token, "kapak.webp", "Meclis binası", webp())
	if status != http.StatusCreated {
		t.Fatalf("upload of a WebP: %d %v", status, cover)
	}

	save := func(name, coverID, text string, want int) response {
		d, err := a.eng.Node(ctx, a.editor, a.site.ID, a.draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.check(t, scenario{Name: name, Method: "POST", URL: editor, Form: url.Values{"csrf_token": {token},
			"rev": {strconv.FormatInt(d.Rev, 10)}, "kind": {"content_entry"}, "title": {d.Body.Title}, "slug": {d.Body.Slug},
			"lang": {"en"}, "status": {"published"}, "body": {text}, "cover_chosen": {"1"}, "cover": {coverID}},
			ExpectedStatus: want})
	}
	res := save("UnknownCover", "ast_nope", "Results.", http.StatusUnprocessableEntity)
	if !strings.Contains(res.Body, "Choose the cover from this site") {
		t.Errorf("unknown cover: %s", excerpt(res.Body))
	}
	text := "Results as they come in.\n\n" + inline["markdown"] + "\n"
	save("Save", cover["id"], text, http.StatusSeeOther)
	d, err := a.eng.Node(ctx, a.editor, a.site.ID, a.draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Body.Cover != cover["id"] || !slices.Equal(d.Body.Refs, []string{cover["id"], inline["id"]}) {
		t.Fatalf("cover %q refs %v, want the cover then the text's image", d.Body.Cover, d.Body.Refs)
	}
	c.check(t, scenario{Name: "Reopened", URL: editor, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<option value="` + cover["id"] + `" selected>`, "Sandıklar sayılıyor"}})

	if _, err := a.eng.Publish(ctx, a.editor, a.site.ID); err != nil {
		t.Fatal(err)
	}
	page := a.client(t, "").get("/posts/election-night")
	if page.Status != http.StatusOK {
		t.Fatalf("public page: %d", page.Status)
	}
	figure := `<figure><img src="/media/kapak.webp" alt="Meclis binası"></figure>`
	if strings.Count(page.Body, figure) != 1 || strings.Count(page.Body, `src="/media/secim-gecesi.png"`) != 1 ||
		!strings.Contains(page.Body, `<meta property="og:image" content="`+a.URL+`/media/kapak.webp">`) {
		t.Errorf("public page: want the cover above, the text's image in the text, once each\n%s", excerpt(page.Body))
	}
	for _, p := range []string{"/media/kapak.webp", "/media/secim-gecesi.png"} {
		if res := a.client(t, "").get(p); res.Status != http.StatusOK {
			t.Errorf("%s: %d, want live with the article", p, res.Status)
		}
	}

	// No cover and no image in the text: the article needs no media file.
	save("NoImages", "", "Results.", http.StatusSeeOther)
	if d, _ = a.eng.Node(ctx, a.editor, a.site.ID, a.draft.ID); d.Body.Cover != "" || len(d.Body.Refs) != 0 {
		t.Errorf("cover %q refs %v, want none", d.Body.Cover, d.Body.Refs)
	}
}

// webp is the smallest WebP header a type check reads.
func webp() []byte {
	return append([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L"), bytes.Repeat([]byte{0}, 16)...)
}

// The editor's preview renders the text as the public site does: Markdown,
// raw HTML dropped, unsafe links left out.
func TestEditorPreviewText(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.signedIn(t, a.editor)
	res := c.check(t, scenario{Name: "Preview", Method: "POST", URL: "/studio/content/preview-text",
		Form:               url.Values{"csrf_token": {c.token()}, "body": {"**Results** <script>alert(1)</script> [go](javascript:alert(1)) ![map](/media/map.png)"}},
		ExpectedStatus:     http.StatusOK,
		ExpectedContent:    []string{"<strong>Results</strong>", `<img src="/media/map.png" alt="map">`},
		NotExpectedContent: []string{"<script", "javascript:"},
		ExpectedHeaders:    map[string]string{"Cache-Control": "no-store"}})
	if strings.Contains(res.Body, "<html") {
		t.Error("the preview is a fragment, not a page")
	}
	a.signedIn(t, a.contributor).check(t, scenario{Name: "Editor", URL: "/studio/content/" + a.draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`hx-post="/studio/content/preview-text"`, "Preview the text"}})
}
