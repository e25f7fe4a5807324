package studio_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// TestContentAddressesStudio: Studio refuses an address another node has,
// in the person's language, on the slug field, and saves nothing; a new
// article without an address takes one from its title, and its language.
func TestContentAddressesStudio(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	a.SetLang(t, a.Editor, "tr")
	token := c.Token()
	before := a.Fingerprint(t)

	res := c.Post("/studio/content", url.Values{"csrf_token": {token}, "kind": {"contentEntry"}, "title": {"Sahte hoş geldiniz"},
		"slug": {"welcome"}, "lang": {"tr"}, "status": {"published"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate slug: status %d, want 422\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	for _, want := range []string{`data-testid="error-slug"`, "/posts/welcome adresini zaten “Welcome to the Gazette” kullanıyor"} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("duplicate slug: body lacks %q\n%s", want, apptest.Excerpt(res.Body))
		}
	}
	res = c.Post("/studio/content", url.Values{"csrf_token": {token}, "kind": {"page"}, "title": {"Studio"},
		"slug": {"studio"}, "lang": {"en"}, "status": {"draft"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "/studio adresini Studio kendisi kullanıyor") {
		t.Errorf("reserved slug: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	res = c.Post("/studio/content/"+a.Draft.ID, url.Values{"csrf_token": {token}, "rev": {fmt.Sprint(a.Draft.Rev)},
		"kind": {"contentEntry"}, "title": {"Election night live"}, "slug": {"welcome"}, "lang": {"en"}, "status": {"draft"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Errorf("edit into a live slug: status %d", res.Status)
	}
	if got := a.Fingerprint(t); got != before {
		t.Errorf("refused saves changed the database:\n%s\nwant\n%s", got, before)
	}

	// An empty address is made from the title; the language is kept.
	res = c.Post("/studio/content", url.Values{"csrf_token": {token}, "kind": {"contentEntry"}, "title": {"İstanbul'da Çığ Düştü"},
		"slug": {""}, "lang": {"en"}, "status": {"draft"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("empty slug: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	id := strings.TrimPrefix(res.Header.Get("Location"), "/studio/content/")
	d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, id)
	if err != nil || d.Body.Slug != "istanbulda-cig-dustu" || d.Body.Lang != "en" {
		t.Errorf("new article: slug %q lang %q (%v), want istanbulda-cig-dustu and en", d.Body.Slug, d.Body.Lang, err)
	}
}

// TestApprovalAddressChange: the approval page says when an item's address
// moves.
func TestApprovalAddressChange(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	if _, err := a.Nodes.EditNode(ctx, a.Editor, a.Site.ID, a.Live.ID, a.Live.Rev, content.Edit{Title: "Welcome to the Gazette",
		Slug: "hello", Status: content.StatusPublished, Text: "This is the first article."}); err != nil {
		t.Fatal(err)
	}
	a.ScheduleAt(t, a.Contributor, a.Live, "2026-11-02", "11:00")
	list, err := a.Releases.Approvals(ctx, a.Editor, a.Site.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("approvals: %v %v", list, err)
	}
	c := a.SignedIn(t, a.Editor)
	res := c.Get("/studio/approvals/" + list[0].Request.ID)
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "Address changes from /posts/welcome to /posts/hello") {
		t.Errorf("approval page: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	token, _, err := a.Identity.CreateToken(ctx, a.Editor, "script", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, out := apptest.APICall(t, a, "GET", "/api/sites/"+a.Site.ID+"/releases/"+list[0].Release.ID+"/diff", token, "")
	items, _ := out["items"].([]any)
	first, _ := items[0].(map[string]any)
	if status != http.StatusOK || fmt.Sprint(first["addressChange"]) != "map[from:/posts/welcome to:/posts/hello]" {
		t.Errorf("API diff: %d %v", status, first["addressChange"])
	}
}

// TestMediaEditor: a media file is uploaded, previewed, given alt text and
// replaced from its editor; its address is a file name whose extension
// fits the image; a file that is not the image it claims is refused and
// changes nothing; no upload leaves a temporary file behind.
func TestMediaEditor(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, where multipart spills, is this test's own
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.CSRF("/studio/content/new?kind=asset")

	// Upload: the address comes from the file's own name.
	// 3 MB after the PNG's end spill past the form's memory; the file
	// saved ends where the PNG does (nothing after IEND is kept).
	big := append(apptest.FixturePNG(t, 3), bytes.Repeat([]byte{0}, 3<<20)...)
	saved := apptest.FixturePNG(t, 3)
	res := apptest.MultipartPost(t, c, "/studio/content/media", token, map[string]string{"title": "Boğaz'da sonbahar",
		"slug": "", "alt": "Sonbaharda Boğaz", "status": "published"}, "Boğaz'da Sonbahar.PNG", big)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("upload: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	id := strings.TrimPrefix(res.Header.Get("Location"), "/studio/content/")
	d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, id)
	if err != nil || d.Kind != release.KindAsset || d.Body.Slug != "bogazda-sonbahar.png" || d.Body.Mime != "image/png" ||
		d.Body.Alt != "Sonbaharda Boğaz" || !bytes.Equal(d.Body.Data, saved) {
		t.Fatalf("uploaded: %s %q %q %q %d bytes (%v)", d.Kind, d.Body.Slug, d.Body.Mime, d.Body.Alt, len(d.Body.Data), err)
	}

	// The editor: a preview, a file field, alt text, the file name's pattern.
	page := c.Get("/studio/content/" + id)
	for _, want := range []string{`enctype="multipart/form-data"`, `action="/studio/content/` + id + `/media"`,
		`<img src="/studio/content/` + id + `/file?rev=1" alt="Sonbaharda Boğaz">`, `type="file"`, `id="alt"`,
		`value="bogazda-sonbahar.png"`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("media editor lacks %q\n%s", want, apptest.Excerpt(page.Body))
		}
	}
	if pat := regexp.MustCompile(`id="slug"[^>]*pattern="([^"]+)"`).FindStringSubmatch(page.Body); pat == nil ||
		!regexp.MustCompile("^(?:"+pat[1]+")$").MatchString("bogazda-sonbahar.png") {
		t.Errorf("the file name field's pattern %v refuses bogazda-sonbahar.png", pat)
	}
	file := c.Get("/studio/content/" + id + "/file?rev=1")
	if file.Status != http.StatusOK || file.Header.Get("Content-Type") != "image/png" || file.Body != string(saved) ||
		!strings.Contains(file.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("file: %d %q %d bytes", file.Status, file.Header.Get("Content-Type"), len(file.Body))
	}

	// Saved from its editor without a new file: the image stays.
	res = apptest.MultipartPost(t, c, "/studio/content/"+id+"/media", token, map[string]string{"rev": "1", "title": "Boğaz'da sonbahar",
		"slug": "bogazda-sonbahar.png", "alt": "Sonbaharda Boğaz'ın iki yakası", "status": "published"}, "", nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save without a file: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	if d, _ = a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, id); d.Rev != 2 || d.Body.Alt != "Sonbaharda Boğaz'ın iki yakası" || !bytes.Equal(d.Body.Data, saved) {
		t.Errorf("after saving the alt text: rev %d alt %q %d bytes", d.Rev, d.Body.Alt, len(d.Body.Data))
	}

	// Refused, in the person's language, changing nothing: HTML named .png,
	// a PNG named .jpg.
	c.Lang = "tr"
	a.SetLang(t, a.Editor, "tr")
	before := a.Fingerprint(t)
	tr := map[string]string{"rev": "2", "title": "Boğaz'da sonbahar", "slug": "bogazda-sonbahar.png", "alt": "x", "status": "published"}
	res = apptest.MultipartPost(t, c, "/studio/content/"+id+"/media", token, tr, "evil.png", []byte("<html><script>alert(1)</script>"))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="error-data"`) {
		t.Errorf("HTML as a PNG: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	tr["slug"] = "bogazda-sonbahar.jpg"
	res = apptest.MultipartPost(t, c, "/studio/content/"+id+"/media", token, tr, "", nil)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="error-slug"`) {
		t.Errorf("a PNG named .jpg: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	res = apptest.MultipartPost(t, c, "/studio/content/"+id+"/media", token, tr, "huge.png",
		append(apptest.FixturePNG(t, 4), make([]byte, content.MaxAssetBytes)...))
	if res.Status != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, `data-testid="error-data">Dosya boş ya da çok büyük (en fazla 10 MB).`) {
		t.Errorf("a file over 10 MB: status %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	if got := a.Fingerprint(t); got != before {
		t.Errorf("refused uploads changed the database")
	}

	// Replaced by a new file.
	other := apptest.FixturePNG(t, 7)
	tr["slug"] = "bogazda-sonbahar.png"
	res = apptest.MultipartPost(t, c, "/studio/content/"+id+"/media", token, tr, "new.png", other)
	if d, _ = a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, id); res.Status != http.StatusSeeOther || !bytes.Equal(d.Body.Data, other) {
		t.Errorf("replace: status %d, %d bytes", res.Status, len(d.Body.Data))
	}

	left, _ := filepath.Glob(filepath.Join(tmp, "multipart-*"))
	if entries, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("uploads left temporary files: %v (%d entries)", left, len(entries))
	}
}

// TestEditorLabelsAndLanguage: one id="status" per page (the live region),
// so the Status select keeps its label; new articles and pages have a
// language field, defaulting to the site's language.
func TestEditorLabelsAndLanguage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	for _, path := range []string{"/studio/content/new?kind=contentEntry", "/studio/content/new?kind=page", "/studio/content/" + a.Draft.ID} {
		page := c.Get(path).Body
		if n := strings.Count(page, `id="status"`); n != 1 {
			t.Errorf("%s: %d elements with id=\"status\", want 1 (the live region)", path, n)
		}
		for _, want := range []string{`<label for="node-status">`, `<select id="node-status" name="status"`, `<label for="lang">`, `<select id="lang" name="lang"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
	}
	page := c.Get("/studio/content/new?kind=contentEntry").Body
	if !strings.Contains(page, `<option value="tr" lang="tr" selected>`) || !strings.Contains(page, `data-slug-from="title"`) ||
		!strings.Contains(page, "/static/editor.js") {
		t.Errorf("new article: no default language, slug follower or editor.js\n%s", apptest.Excerpt(page))
	}
	if strings.Contains(page, "onclick=") || strings.Contains(page, "oninput=") {
		t.Errorf("inline event handlers on the editor")
	}
}

// TestContentListStatuses: the list tells a scheduled draft (Draft +
// Scheduled) from a published node, and a live page coming down (an
// expiry) from one being published.
func TestContentListStatuses(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-03", "09:00")
	c := a.SignedIn(t, a.Editor)
	takeDown, err := a.Releases.CreateDraft(ctx, a.Editor, releases.DraftInput{SiteID: a.Site.ID, Title: "Take down", RemoveIDs: []string{a.Page.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Releases.ScheduleRelease(ctx, a.Editor, a.Site.ID, takeDown.ID, takeDown.Rev, "2026-12-22", "00:00"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 200)
	a.CreateNode(t, release.KindContentEntry, content.Body{Title: long, Slug: "long", Status: content.StatusDraft})
	page := c.Get("/studio/content").Body
	cell := func(testid string) string {
		m := regexp.MustCompile(`(?s)data-testid="` + testid + `">(.*?)</td>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no cell %s\n%s", testid, apptest.Excerpt(page))
		}
		return m[1]
	}
	if s := cell("status-" + a.Draft.ID); !strings.Contains(s, `data-state="draft"`) || !strings.Contains(s, `data-state="scheduled"`) ||
		strings.Contains(s, `data-state="published"`) {
		t.Errorf("scheduled draft's status: %s", s)
	}
	if s := cell("live-" + a.Page.ID); !strings.Contains(s, "Live · expires") || strings.Contains(s, "Scheduled for") {
		t.Errorf("page coming down: %s", s)
	}
	if s := cell("live-" + a.Draft.ID); !strings.Contains(s, "Scheduled for") {
		t.Errorf("scheduled draft: %s", s)
	}
	if !strings.Contains(page, `<td class="title-cell"><div class="choose"><input type="checkbox"`) {
		t.Errorf("the row checkbox is not beside its title")
	}
}

// TestAddressTakeoverRunNotice: a release that would take over a live
// address when it runs fails; the release page and the notifications say
// which address, and the live article stays.
func TestAddressTakeoverRunNotice(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	// Saved before addresses were unique: a second /posts/election-night.
	body := content.Body{Title: "Election night, again", Slug: "election-night", Lang: "en", Status: content.StatusDraft}
	twin := content.Node{ID: "ent_twin0000000000", SiteID: a.Site.ID, Kind: release.KindContentEntry, Body: body, Rev: 1,
		Hash: content.Hash(body)}
	if err := a.Store.SaveNode(ctx, twin, 0, a.Editor.Actor(), apptest.Start); err != nil {
		t.Fatal(err)
	}
	r := a.ScheduleAt(t, a.Editor, twin, "2026-11-02", "09:00") // the first one is not live yet
	if _, err := a.Nodes.EditNode(ctx, a.Editor, a.Site.ID, a.Draft.ID, a.Draft.Rev, content.Edit{Title: "Election night live",
		Slug: "election-night", Status: content.StatusPublished, Text: "Follow the results here."}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Nodes.Publish(ctx, a.Editor, a.Site.ID); err != nil {
		t.Fatal(err)
	}
	a.Clock.Set(apptest.Start.Add(time.Hour))
	if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
		t.Fatal(err)
	}
	if got := a.Release(t, r.ID); got.State != release.StateFailed || got.Outcome == nil || got.Outcome.Code != "slug_taken" {
		t.Fatalf("release %s %+v, want failed slug_taken", got.State, got.Outcome)
	}
	c := a.SignedIn(t, a.Editor)
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Notifications", URL: "/studio/notifications", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"the address /posts/election-night is already used on the live site. Nothing was published."}},
		{Name: "Release", URL: "/studio/releases/" + r.ID, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"it would take over the address /posts/election-night"}},
	})
	if res, err := http.Get(a.URL + "/posts/election-night"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("the live article: %v %v", res, err)
	} else {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(b), "Election night live") || strings.Contains(string(b), "Election night, again") {
			t.Errorf("/posts/election-night was taken over")
		}
	}
}
