package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// TestOwnLevelOverHTTP: through the real router, a Contributor cannot
// file a request for someone else's node (API and Studio), an Author
// approves their own article by scheduling it, API releases and nodes carry
// the caller's abilities and nodes their author, and the content list and
// the editor name the author (§10.1–10.2, issue 11).
func TestOwnLevelOverHTTP(t *testing.T) {
	a := newApp(t)
	ctx := context.Background()
	theirs, err := a.nodes.CreateNode(ctx, a.editor, a.site.ID, release.KindContentEntry,
		content.Body{Title: "Editor's piece", Slug: "editors-piece", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	contributorToken := a.tokenFor(t, a.contributor)
	before := a.releaseCount(t)
	status, out := apiCall(t, a, "POST", "/api/sites/"+a.site.ID+"/releases", contributorToken,
		`{"nodeIds":["`+theirs.ID+`"]}`)
	wantError(t, "API draft of another's node", status, out, http.StatusForbidden, "forbidden", "")
	c := a.signedIn(t, a.contributor)
	u := "/studio/content/" + theirs.ID + "/schedule"
	c.check(t, scenario{Name: "Studio schedule of another's node", Method: "POST", URL: u,
		Form:           url.Values{"csrf_token": {c.token()}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusForbidden})
	if n := a.releaseCount(t); n != before {
		t.Fatalf("%d releases after refusals, want %d", n, before)
	}
	// Their own draft (the test app's nodes are the contributor's) is fine.
	c.check(t, scenario{Name: "Own node", Method: "POST", URL: "/studio/content/" + a.draft.ID + "/schedule",
		Form:           url.Values{"csrf_token": {c.token()}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})

	// An Author's own article is scheduled with their own approval.
	author := a.addUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
	mine, err := a.nodes.CreateNode(ctx, author, a.site.ID, release.KindContentEntry,
		content.Body{Title: "Author's piece", Slug: "authors-piece", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	ac := a.signedIn(t, author)
	ac.check(t, scenario{Name: "Author's own", Method: "POST", URL: "/studio/content/" + mine.ID + "/schedule",
		Form:           url.Values{"csrf_token": {ac.token()}, "rev": {"1"}, "date": {"2026-11-03"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})
	d, err := a.nodes.Node(ctx, a.editor, a.site.ID, mine.ID)
	if err != nil || d.Held == nil || d.Held.State != release.StateScheduled {
		t.Fatalf("the author's own article: held %+v (%v), want scheduled with their approval", d.Held, err)
	}
	if r := a.release(t, d.Held.ReleaseID); r.Approval == nil || r.Approval.By.ID != author.ID {
		t.Fatalf("approval %+v, want the author's", r.Approval)
	}

	// The API says what each caller may do: the editor may move the
	// author's release, the contributor may not.
	for _, tc := range []struct {
		token string
		move  bool
	}{{a.tokenFor(t, a.editor), true}, {contributorToken, false}} {
		status, out := apiCall(t, a, "GET", "/api/sites/"+a.site.ID+"/releases", tc.token, "")
		if status != http.StatusOK {
			t.Fatalf("releases: %d %v", status, out)
		}
		list, _ := out["releases"].([]any)
		found := false
		for _, x := range list {
			rel, _ := x.(map[string]any)
			can, ok := rel["abilities"].(map[string]any)
			if !ok {
				t.Fatalf("release without abilities: %v", rel)
			}
			for _, k := range []string{"change", "move", "unschedule", "cancel", "publishNow", "approve", "undo", "resolveConflict"} {
				if _, ok := can[k].(bool); !ok {
					t.Errorf("abilities lack %s: %v", k, can)
				}
			}
			if rel["id"] == d.Held.ReleaseID {
				found = true
				if can["move"] != tc.move {
					t.Errorf("move = %v, want %v", can["move"], tc.move)
				}
			}
		}
		if !found {
			t.Errorf("the author's release is not listed")
		}
	}
	status, out = apiCall(t, a, "GET", "/api/sites/"+a.site.ID+"/entries", contributorToken, "")
	if status != http.StatusOK {
		t.Fatalf("entries: %d %v", status, out)
	}
	entries, _ := out["entries"].([]any)
	for _, x := range entries {
		n, _ := x.(map[string]any)
		can, _ := n["abilities"].(map[string]any)
		who, _ := n["author"].(map[string]any)
		if can == nil || who == nil {
			t.Fatalf("entry without abilities or author: %v", n)
		}
		if n["id"] == theirs.ID && (who["name"] != "Elif Editor" || can["schedule"] != false || can["edit"] != true) {
			t.Errorf("the editor's entry for the contributor: author %v abilities %v", who, can)
		}
	}

	// The content list and the editor name the author.
	e := a.signedIn(t, a.editor)
	e.check(t, scenario{Name: "Content list", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="author-` + theirs.ID + `">Elif Editor</td>`,
			`data-testid="author-` + a.draft.ID + `">Chris Contributor</td>`}})
	e.check(t, scenario{Name: "Editor", URL: "/studio/content/" + theirs.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="node-author">Created by Elif Editor</p>`}})
}

// TestTokenScopesForm: the Access tokens page offers only the scopes the
// person's role allows, at its level; a token made with some scopes acts
// with those only; a scope above the role is refused and nothing is made.
func TestTokenScopesForm(t *testing.T) {
	a := newApp(t)
	c := a.signedIn(t, a.contributor)
	c.check(t, scenario{Name: "Form", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="scope-schedules:write:own"`, `data-testid="scope-schedules:read"`},
		NotExpectedContent: []string{`data-testid="scope-schedules:write"`, `data-testid="scope-automations:manage"`}})
	c.check(t, scenario{Name: "AboveTheRole", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {c.token()}, "name": {"too much"}, "scopes_chosen": {"1"},
			"scope": {"schedules:read", "schedules:write"}},
		ExpectedStatus:     http.StatusUnprocessableEntity,
		NotExpectedContent: []string{`data-testid="new-secret"`}})
	res := c.check(t, scenario{Name: "ReadOnly", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {c.token()}, "name": {"reader"}, "scopes_chosen": {"1"},
			"scope": {"schedules:read", "content:read"}},
		ExpectedStatus:  http.StatusOK,
		ExpectedContent: []string{`data-testid="new-secret"`, "See the calendar and releases"}})
	i := strings.Index(res.Body, "studio_pat_")
	if i < 0 {
		t.Fatal("no secret on the page")
	}
	secret := res.Body[i : i+len("studio_pat_")+32]
	status, out := apiCall(t, a, "GET", "/api/sites/"+a.site.ID+"/releases", secret, "")
	if status != http.StatusOK {
		t.Fatalf("a read with the reader token: %d %v", status, out)
	}
	status, out = apiCall(t, a, "POST", "/api/sites/"+a.site.ID+"/releases", secret, `{"nodeIds":["`+a.draft.ID+`"]}`)
	wantError(t, "write with a read-only token", status, out, http.StatusForbidden, "forbidden", "")
}
