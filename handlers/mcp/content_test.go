package mcp_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// TestMCPListContentFindsContent: an agent finds content the way an editor
// does: 50 a page with a cursor, by kind, status, words (Turkish letters
// folded) and time of change; the list leaves the text out and get_content
// gives it, with the gates.
func TestMCPListContentFindsContent(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	s := f.Connect(t, "sk_editor")
	for i := range 52 {
		f.CreateNode(t, release.KindContentEntry, content.Body{Title: fmt.Sprintf("Budget line %d", i), Slug: fmt.Sprintf("budget-line-%d", i),
			Lang: "en", Status: content.StatusDraft, Text: "Figures by district."})
	}
	f.Clock.Set(apptest.Start.Add(time.Hour))
	later := f.CreateNode(t, release.KindContentEntry, content.Body{Title: "Şehir meclisi bütçeyi onayladı", Slug: "sehir-meclisi",
		Lang: "tr", Status: content.StatusDraft, Text: "Oylama 31'e 14 bitti; zeppelin yok."})

	ids := func(out map[string]any) []string {
		var got []string
		for _, n := range out["content"].([]any) {
			node := n.(map[string]any)
			if _, hasText := node["body"]; hasText {
				t.Fatalf("the list carries the text of %v", node["id"])
			}
			got = append(got, node["id"].(string))
		}
		return got
	}
	first := apptest.OkTool(t, s, "list_content", map[string]any{"kind": "entry"})
	cursor, _ := first["nextCursor"].(string)
	if len(ids(first)) != 50 || cursor == "" || ids(first)[0] != later.ID {
		t.Fatalf("the first page: %d entries, cursor %q, first %v", len(ids(first)), cursor, ids(first)[:1])
	}
	second := apptest.OkTool(t, s, "list_content", map[string]any{"kind": "entry", "cursor": cursor})
	all := append(ids(first), ids(second)...)
	if second["nextCursor"] != nil || len(all) != 55 || len(slices.Compact(slices.Sorted(slices.Values(all)))) != 55 {
		t.Fatalf("two pages list %d entries (want the 52, the live one, the draft and the new one, once each): %v", len(all), second["nextCursor"])
	}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"q": "SEHIR"}, []string{later.ID}},
		{map[string]any{"q": "zeppelin"}, []string{later.ID}},
		{map[string]any{"updatedSince": apptest.Start.Add(time.Hour).Format(time.RFC3339)}, []string{later.ID}},
		{map[string]any{"kind": "page"}, []string{f.Page.ID}},
	} {
		if got := ids(apptest.OkTool(t, s, "list_content", c.args)); !slices.Equal(got, c.want) {
			t.Errorf("list_content %v: %v, want %v", c.args, got, c.want)
		}
	}
	published := apptest.OkTool(t, s, "list_content", map[string]any{"status": "published"})
	for _, n := range published["content"].([]any) {
		if n.(map[string]any)["status"] != "published" {
			t.Errorf("status published lists %v", n)
		}
	}
	if !slices.Contains(ids(published), f.Live.ID) {
		t.Errorf("status published: %v lacks the live article", ids(published))
	}
	out, res := apptest.CallTool(t, s, "list_content", map[string]any{"cursor": "next"})
	apptest.ToolError(t, "a cursor list_content did not give", out, res, releases.CodeBadCursor)

	got := apptest.OkTool(t, s, "get_content", map[string]any{"nodeId": later.ID})
	if got["body"] != "Oylama 31'e 14 bitti; zeppelin yok." || got["title"] != "Şehir meclisi bütçeyi onayladı" {
		t.Fatalf("get_content: %v", got)
	}
	if live := apptest.OkTool(t, s, "get_content", map[string]any{"nodeId": f.Live.ID}); live["availability"] == nil {
		t.Fatalf("get_content of the embargoed article shows no gates: %v", live)
	}
}

// TestMCPDescribeSite: the model learns the site's zone, language and
// address, and the kinds of content with the fields save_draft takes.
func TestMCPDescribeSite(t *testing.T) {
	t.Parallel()
	f := newMCP(t)
	out := apptest.OkTool(t, f.Connect(t, "sk_editor"), "describe_site", nil)
	site, _ := out["site"].(map[string]any)
	if site["id"] != f.Site.ID || site["timeZone"] != f.Site.TimeZone || site["lang"] != f.Site.Lang || site["name"] != f.Site.Name {
		t.Fatalf("describe_site's site: %v", site)
	}
	kinds, _ := out["kinds"].([]any)
	if len(kinds) != 2 {
		t.Fatalf("describe_site's kinds: %v", out["kinds"])
	}
	// Every field it names is one save_draft takes.
	list, err := f.Connect(t, "sk_editor").ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var saveDraft map[string]any
	for _, tl := range list.Tools {
		if tl.Name == "save_draft" {
			raw, _ := json.Marshal(tl.InputSchema)
			json.Unmarshal(raw, &saveDraft)
		}
	}
	props, _ := saveDraft["properties"].(map[string]any)
	for _, k := range kinds {
		for _, field := range k.(map[string]any)["fields"].([]any) {
			if name := field.(map[string]any)["name"].(string); props[name] == nil {
				t.Errorf("describe_site names the field %s, which save_draft does not take", name)
			}
		}
	}
}
