package studio_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"html"
	"image"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/policy"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
)

// uploadImage posts a file to the editor's upload and decodes its JSON: a
// success's fields, or a refusal's, which must be {"error": {"code",
// "message", "details"?: {"field"}}} and nothing else, flattened to code,
// error (the message) and field.
func uploadImage(t *testing.T, c *apptest.Client, token, name, alt string, data []byte) (int, map[string]string) {
	t.Helper()
	res := apptest.MultipartPost(t, c, "/studio/content/upload", token, map[string]string{"alt": alt}, name, data)
	return res.Status, uploadAnswer(t, "upload "+name, res)
}

func uploadAnswer(t *testing.T, what string, res apptest.Response) map[string]string {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: %d %s\n%s", what, res.Status, ct, apptest.Excerpt(res.Body))
	}
	if res.Status < 400 {
		var out map[string]string
		if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var refusal struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details *struct {
				Field string `json:"field"`
			} `json:"details"`
		} `json:"error"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Body), &top); err != nil || len(top) != 1 ||
		json.Unmarshal([]byte(res.Body), &refusal) != nil || refusal.Error == nil || refusal.Error.Code == "" ||
		refusal.Error.Message == "" || strings.HasPrefix(refusal.Error.Message, "error.") {
		t.Fatalf("%s: %d, not a JSON refusal: %s", what, res.Status, res.Body)
	}
	out := map[string]string{"code": refusal.Error.Code, "error": refusal.Error.Message}
	if d := refusal.Error.Details; d != nil {
		out["field"] = d.Field
	}
	return out
}

// The editor's upload puts an image into an article's text and offers it
// as its cover: the type is read from the bytes (SVG refused), the alt text
// is required, 10 MB at most; the public page shows the cover above the
// text and the text's image in it, once each, and the release of the text
// carries both.
func TestEditorUploadAndCover(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := apptest.New(t)
	ctx := context.Background()
	c := a.SignedIn(t, a.Editor)
	editor := "/studio/content/" + a.Draft.ID
	c.Check(t, apptest.Scenario{Name: "Editor", URL: editor, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-upload="/studio/content/upload"`, `name="cover_chosen"`, "No cover", `accept="image/jpeg,image/png,image/webp,image/gif"`}})
	token := c.CSRF(editor)

	before := a.Fingerprint(t)
	for _, bad := range []struct {
		name, file, alt string
		data            []byte
		status          int
		field, says     string
	}{
		{"SVG", "logo.png", "Logo", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), 422, "data", "SVG files cannot be uploaded"},
		{"NotAnImage", "photo.jpg", "Photo", []byte("<html><script>alert(1)</script>"), 422, "data", "Use a JPEG, PNG, WebP or GIF image."},
		{"NoAlt", "photo.png", " ", apptest.FixturePNG(t, 1), 422, "alt", "Describe the image"},
		{"TooLarge", "huge.png", "Huge", append(apptest.FixturePNG(t, 2), make([]byte, 10<<20)...), 413, "data", "at most 10 MB"},
	} {
		status, out := uploadImage(t, c, token, bad.file, bad.alt, bad.data)
		if status != bad.status || out["field"] != bad.field || !strings.Contains(out["error"], bad.says) {
			t.Errorf("%s: %d %v, want %d on %s saying %q", bad.name, status, out, bad.status, bad.field, bad.says)
		}
	}
	if a.Fingerprint(t) != before {
		t.Fatal("a refused upload changed something")
	}

	status, inline := uploadImage(t, c, token, "Seçim gecesi.PNG", "Sandıklar sayılıyor", apptest.FixturePNG(t, 3))
	if status != http.StatusCreated || inline["path"] != "/media/secim-gecesi.png" ||
		inline["markdown"] != "![Sandıklar sayılıyor](/media/secim-gecesi.png)" {
		t.Fatalf("upload: %d %v", status, inline)
	}
	status, cover := uploadImage(t, c, token, "kapak.webp", "Meclis binası", webp())
	if status != http.StatusCreated {
		t.Fatalf("upload of a WebP: %d %v", status, cover)
	}

	save := func(name, coverID, text string, want int) apptest.Response {
		d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Check(t, apptest.Scenario{Name: name, Method: "POST", URL: editor, Form: url.Values{"csrf_token": {token},
			"rev": {strconv.FormatInt(d.Rev, 10)}, "kind": {"content_entry"}, "title": {d.Body.Title}, "slug": {d.Body.Slug},
			"lang": {"en"}, "status": {"published"}, "body": {text}, "cover_chosen": {"1"}, "cover": {coverID}},
			ExpectedStatus: want})
	}
	res := save("UnknownCover", "ast_nope", "Results.", http.StatusUnprocessableEntity)
	if !strings.Contains(res.Body, "Choose the cover from this site") {
		t.Errorf("unknown cover: %s", apptest.Excerpt(res.Body))
	}
	text := "Results as they come in.\n\n" + inline["markdown"] + "\n"
	save("Save", cover["id"], text, http.StatusSeeOther)
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Body.Cover != cover["id"] || !slices.Equal(d.Body.Refs, []string{cover["id"], inline["id"]}) {
		t.Fatalf("cover %q refs %v, want the cover then the text's image", d.Body.Cover, d.Body.Refs)
	}
	c.Check(t, apptest.Scenario{Name: "Reopened", URL: editor, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<option value="` + cover["id"] + `" selected>`, "Sandıklar sayılıyor"}})

	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	page := a.Client(t, "").Get("/posts/election-night")
	if page.Status != http.StatusOK {
		t.Fatalf("public page: %d", page.Status)
	}
	figure := `<figure><img src="/media/kapak.webp" alt="Meclis binası"></figure>`
	if strings.Count(page.Body, figure) != 1 || strings.Count(page.Body, `src="/media/secim-gecesi.png"`) != 1 ||
		!strings.Contains(page.Body, `<meta property="og:image" content="`+a.URL+`/media/kapak.webp">`) {
		t.Errorf("public page: want the cover above, the text's image in the text, once each\n%s", apptest.Excerpt(page.Body))
	}
	for _, p := range []string{"/media/kapak.webp", "/media/secim-gecesi.png"} {
		if res := a.Client(t, "").Get(p); res.Status != http.StatusOK {
			t.Errorf("%s: %d, want live with the article", p, res.Status)
		}
	}

	// No cover and no image in the text: the article needs no media file.
	save("NoImages", "", "Results.", http.StatusSeeOther)
	if d, _ = a.Nodes.Node(ctx, a.Editor, a.Site.ID, a.Draft.ID); d.Body.Cover != "" || len(d.Body.Refs) != 0 {
		t.Errorf("cover %q refs %v, want none", d.Body.Cover, d.Body.Refs)
	}
}

// webp is the smallest WebP a type and size check reads: a lossless 1×1
// header.
func webp() []byte {
	return []byte("RIFF\x12\x00\x00\x00WEBPVP8L\x05\x00\x00\x00\x2f\x00\x00\x00\x00\x00")
}

// The editor's preview renders the text as the public site does: Markdown,
// raw HTML dropped, unsafe links left out.
func TestEditorPreviewText(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	res := c.Check(t, apptest.Scenario{Name: "Preview", Method: "POST", URL: "/studio/content/preview-text",
		Form:               url.Values{"csrf_token": {c.Token()}, "body": {"**Results** <script>alert(1)</script> [go](javascript:alert(1)) ![map](/media/map.png)"}},
		ExpectedStatus:     http.StatusOK,
		ExpectedContent:    []string{"<strong>Results</strong>", `<img src="/studio/media/map.png" alt="map">`},
		NotExpectedContent: []string{"<script", "javascript:"},
		ExpectedHeaders:    map[string]string{"Cache-Control": "no-store"}})
	if strings.Contains(res.Body, "<html") {
		t.Error("the preview is a fragment, not a page")
	}
	a.SignedIn(t, a.Contributor).Check(t, apptest.Scenario{Name: "Editor", URL: "/studio/content/" + a.Draft.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`hx-post="/studio/content/preview-text"`, "Preview the text"}})
}

// photoSecret is where a phone's photo would say it was taken.
const photoSecret = "GPS-41.0082N-28.9784E"

// phonePhoto is a JPEG as a phone writes one: an EXIF block with an IFD0
// (camera make, orientation 1) and a GPS IFD whose processing method
// carries photoSecret, and an XMP block naming the latitude.
func phonePhoto(t *testing.T) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, 32, 16))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, nil); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	entry := func(b []byte, tag, typ uint16, count, value uint32) []byte {
		b = le.AppendUint16(le.AppendUint16(b, tag), typ)
		return le.AppendUint32(le.AppendUint32(b, count), value)
	}
	method := "ASCII\x00\x00\x00" + photoSecret
	tiff := []byte("II*\x00\x08\x00\x00\x00")
	tiff = le.AppendUint16(tiff, 2)
	tiff = entry(tiff, 0x0112, 3, 1, 1)  // orientation 1
	tiff = entry(tiff, 0x8825, 4, 1, 38) // the GPS IFD, after this one
	tiff = le.AppendUint32(tiff, 0)
	tiff = le.AppendUint16(tiff, 1)
	tiff = entry(tiff, 0x001B, 7, uint32(len(method)), 56) // GPSProcessingMethod
	tiff = le.AppendUint32(tiff, 0)
	tiff = append(tiff, method...)
	seg := func(marker byte, payload string) []byte {
		return append(binary.BigEndian.AppendUint16([]byte{0xFF, marker}, uint16(2+len(payload))), payload...)
	}
	out := append([]byte{0xFF, 0xD8}, seg(0xE1, "Exif\x00\x00"+string(tiff))...)
	out = append(out, seg(0xE1, "http://ns.adobe.com/xap/1.0/\x00<exif:GPSLatitude>"+photoSecret+"</exif:GPSLatitude>")...)
	return append(out, buf.Bytes()[2:]...)
}

func noMetadata(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, leak := range []string{"Exif", photoSecret, "GPSLatitude", "ns.adobe.com/xap"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("%s still holds %q", what, leak)
		}
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 32 || cfg.Height != 16 {
		t.Errorf("%s is no longer the 32×16 JPEG: %+v %v", what, cfg, err)
	}
}

// TestUploadedImagesLoseTheirMetadata (issue 36, hole 7): a phone's photo
// with its GPS position in EXIF and XMP, uploaded by the editor (the JSON
// route) and by the media editor's form, is stored without them, and the
// public /media answer serves it without them; the picture stays the same.
func TestUploadedImagesLoseTheirMetadata(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := apptest.New(t)
	ctx := context.Background()
	c := a.SignedIn(t, a.Editor)
	token := c.CSRF("/studio/content/" + a.Draft.ID)
	photo := phonePhoto(t)
	if !bytes.Contains(photo, []byte(photoSecret)) || bytes.Count(photo, []byte("Exif")) != 1 {
		t.Fatal("the fixture carries no GPS")
	}
	status, out := uploadImage(t, c, token, "Galata.jpg", "Galata Tower at dusk", photo)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %v", status, out)
	}
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, out["id"])
	if err != nil {
		t.Fatal(err)
	}
	noMetadata(t, "the stored file", d.Body.Data)
	res := apptest.MultipartPost(t, c, "/studio/content/media", token, map[string]string{"title": "Pier", "alt": "The pier",
		"status": "published"}, "pier.jpg", photo)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("media editor: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	var stored []byte
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM nodes WHERE kind = 'asset'`).Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	list, err := a.Nodes.Nodes(ctx, a.Editor, a.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		if n.Body.Slug == "pier.jpg" {
			stored = n.Body.Data
		}
	}
	noMetadata(t, "the media editor's file", stored)

	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{out["path"], "/media/pier.jpg"} {
		res := a.Client(t, "").Get(p)
		if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("%s: %d %s", p, res.Status, res.Header.Get("Content-Type"))
		}
		noMetadata(t, "the public "+p, []byte(res.Body))
	}
}

// hugePNG is the header of a 9000 × 9000 PNG (81 megapixels): a hundred
// bytes that would make whoever decodes them allocate 324 MB.
func hugePNG() []byte {
	chunk := func(typ string, payload []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
		b = append(append(b, typ...), payload...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 9000), 9000)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	out := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}

// TestUploadRefusesHugeImages: an image declaring more than 40 megapixels
// is refused from its header, in the person's language, on both upload
// routes, and nothing is stored.
func TestUploadRefusesHugeImages(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := apptest.New(t)
	turkish := a.AddUser(t, "tr-editor@example.com", "Tuna", policy.Editor, "tr")
	before := a.Fingerprint(t)
	for _, c := range []struct {
		u    engine.User
		says string
	}{{a.Editor, "This image is 9000 × 9000 pixels (81 megapixels); Studio takes images of at most 40 megapixels."},
		{turkish, "Bu görsel 9000 × 9000 piksel (81 megapiksel); Studio en çok 40 megapiksellik görselleri kabul eder."}} {
		web := a.SignedIn(t, c.u)
		token := web.CSRF("/studio/content/" + a.Draft.ID)
		status, out := uploadImage(t, web, token, "bomb.png", "A bomb", hugePNG())
		if status != http.StatusUnprocessableEntity || out["code"] != "image_too_large" || out["field"] != "data" ||
			!strings.HasPrefix(out["error"], c.says) {
			t.Errorf("%s upload: %d %v, want 422 image_too_large saying %q", c.u.Lang, status, out, c.says)
		}
		res := apptest.MultipartPost(t, web, "/studio/content/media", token, map[string]string{"title": "Bomb", "alt": "A bomb",
			"status": "draft"}, "bomb.png", hugePNG())
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, html.EscapeString(c.says)) {
			t.Errorf("%s media editor: %d, want 422 saying %q\n%s", c.u.Lang, res.Status, c.says, apptest.Excerpt(res.Body))
		}
	}
	if a.Fingerprint(t) != before {
		t.Fatal("a refused image was stored")
	}
}

// TestUploadAnswersJSONErrors: the editor's upload route answers every
// refusal as JSON ({"error": {"code", "message"}}, in the person's
// language), whichever step refuses it: the body's size (before the
// handler reads it), the token, the origin, the sign-in, the site, the
// file's type, a missing file.
func TestUploadAnswersJSONErrors(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a := apptest.New(t)
	ctx := context.Background()
	other, err := a.Engine.CreateSite(ctx, "Other Times", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	token := c.CSRF("/studio/content/" + a.Draft.ID)
	before := a.Fingerprint(t)
	post := func(c *apptest.Client, path, token string, header map[string]string, body []byte, contentType string) apptest.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, a.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		if c.Lang != "" {
			req.Header.Set("Accept-Language", c.Lang)
		}
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		hr, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer hr.Body.Close()
		b, _ := io.ReadAll(hr.Body)
		return apptest.Response{Status: hr.StatusCode, Header: hr.Header, Body: string(b)}
	}
	form := func(data []byte) ([]byte, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("alt", "A picture")
		fw, _ := mw.CreateFormFile("file", "picture.png")
		fw.Write(data)
		mw.Close()
		return buf.Bytes(), mw.FormDataContentType()
	}
	small, smallType := form(apptest.FixturePNG(t, 9))
	huge, hugeType := form(make([]byte, studio.MaxUploadBytes+1))
	text, textType := form([]byte("just words, no picture"))
	for _, sc := range []struct {
		name, path, token string
		client            *apptest.Client
		header            map[string]string
		body              []byte
		contentType       string
		status            int
		code              string
	}{
		{"BodyTooLarge", "/studio/content/upload", token, c, nil, huge, hugeType, http.StatusRequestEntityTooLarge, "too_large"},
		{"NoToken", "/studio/content/upload", "", c, nil, small, smallType, http.StatusForbidden, "csrf"},
		{"WrongToken", "/studio/content/upload", "nope", c, nil, small, smallType, http.StatusForbidden, "csrf"},
		{"OtherOrigin", "/studio/content/upload", token, c, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
			small, smallType, http.StatusForbidden, "cross_origin"},
		{"SignedOut", "/studio/content/upload", token, a.Client(t, ""), nil, small, smallType, http.StatusUnauthorized, "signed_out"},
		{"NotASiteOfTheirs", "/studio/s/" + other.ID + "/content/upload", token, a.SignedIn(t, a.Contributor), nil, small, smallType,
			http.StatusNotFound, "not_found"},
		{"NotAnImage", "/studio/content/upload", token, c, nil, text, textType, http.StatusUnprocessableEntity, "file_type_invalid"},
		{"NoFile", "/studio/content/upload", token, c, nil, []byte("alt=A+picture"), "application/x-www-form-urlencoded",
			http.StatusUnprocessableEntity, "file_required"},
		{"NotAForm", "/studio/content/upload", token, c, nil, []byte(`{"alt": "A picture"}`), "application/json",
			http.StatusUnprocessableEntity, "file_required"},
	} {
		tok := sc.token
		if sc.name == "NotASiteOfTheirs" {
			tok = sc.client.CSRF("/studio/content")
		}
		res := post(sc.client, sc.path, tok, sc.header, sc.body, sc.contentType)
		if res.Status != sc.status {
			t.Errorf("%s: %d, want %d\n%s", sc.name, res.Status, sc.status, apptest.Excerpt(res.Body))
			continue
		}
		if out := uploadAnswer(t, sc.name, res); out["code"] != sc.code {
			t.Errorf("%s: %v, want code %s", sc.name, out, sc.code)
		}
	}
	// In Turkish for a Turkish session.
	tr := a.Client(t, "tr")
	res := post(tr, "/studio/content/upload", "x", nil, small, smallType)
	if out := uploadAnswer(t, "SignedOutTurkish", res); res.Status != http.StatusUnauthorized ||
		out["error"] != "Oturumunuz kapandı. Studio'ya yeniden giriş yapın ve tekrar deneyin." {
		t.Errorf("Turkish: %d %v", res.Status, out)
	}
	if a.Fingerprint(t) != before {
		t.Fatal("a refused upload stored something")
	}
}

// TestNewEntryPageSaysItsKind: the new-entry page refused with a kind the
// form does not know (the MCP tools' word "entry", or none at all) comes
// back as the new-article editor, with its heading in words and a kind it
// can save with, never a raw key ("editor.new_entry", which TestMain's
// check also catches on any page).
func TestNewEntryPageSaysItsKind(t *testing.T) {
	a := apptest.New(t)
	for _, lang := range []string{"en", "tr"} {
		u := a.Editor
		if lang == "tr" {
			u = a.AddUser(t, "tr-writer@example.com", "Tuna", policy.Editor, "tr")
		}
		c := a.SignedIn(t, u)
		token := c.CSRF("/studio/content/new")
		heading := map[string]string{"en": "New article", "tr": "Yeni makale"}[lang]
		for _, kind := range []string{"entry", "", "content_entry"} {
			c.Check(t, apptest.Scenario{Name: lang + " kind " + kind, Method: "POST", URL: "/studio/content",
				Form:               url.Values{"csrf_token": {token}, "kind": {kind}, "title": {"Night shift"}, "status": {"draft"}},
				ExpectedStatus:     http.StatusUnprocessableEntity,
				ExpectedContent:    []string{"<h1>" + heading + "</h1>", `<input type="hidden" name="kind" value="contentEntry">`},
				NotExpectedContent: []string{"editor.new_"}})
		}
	}
}
