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
	"studio/handlers/internal/apptest"
)

// TestOwnLevelOverHTTP: through the real router, a Contributor cannot
// file a request for someone else's node (API and Studio), an Author
// approves their own article by scheduling it, API releases and nodes carry
// the caller's abilities and nodes their author, and the content list and
// the editor name the author (§10.1–10.2, issue 11).
func TestOwnLevelOverHTTP(t *testing.T) {
	a := apptest.New(t)
	ctx := context.Background()
	theirs, err := a.Nodes.CreateNode(ctx, a.Editor, a.Site.ID, release.KindContentEntry,
		content.Body{Title: "Editor's piece", Slug: "editors-piece", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	contributorToken := a.TokenFor(t, a.Contributor)
	before := a.ReleaseCount(t)
	status, out := apptest.APICall(t, a, "POST", "/api/sites/"+a.Site.ID+"/releases", contributorToken,
		`{"nodeIds":["`+theirs.ID+`"]}`)
	apptest.WantError(t, "API draft of another's node", status, out, http.StatusForbidden, "forbidden", "")
	c := a.SignedIn(t, a.Contributor)
	u := "/studio/content/" + theirs.ID + "/schedule"
	c.Check(t, apptest.Scenario{Name: "Studio schedule of another's node", Method: "POST", URL: u,
		Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusForbidden})
	if n := a.ReleaseCount(t); n != before {
		t.Fatalf("%d releases after refusals, want %d", n, before)
	}
	// Their own draft (the test app's nodes are the contributor's) is fine.
	c.Check(t, apptest.Scenario{Name: "Own node", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
		Form:           url.Values{"csrf_token": {c.Token()}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})

	// An Author's own article is scheduled with their own approval.
	author := a.AddUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
	mine, err := a.Nodes.CreateNode(ctx, author, a.Site.ID, release.KindContentEntry,
		content.Body{Title: "Author's piece", Slug: "authors-piece", Status: content.StatusDraft})
	if err != nil {
		t.Fatal(err)
	}
	ac := a.SignedIn(t, author)
	ac.Check(t, apptest.Scenario{Name: "Author's own", Method: "POST", URL: "/studio/content/" + mine.ID + "/schedule",
		Form:           url.Values{"csrf_token": {ac.Token()}, "rev": {"1"}, "date": {"2026-11-03"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})
	d, err := a.Nodes.Node(ctx, a.Editor, a.Site.ID, mine.ID)
	if err != nil || d.Held == nil || d.Held.State != release.StateScheduled {
		t.Fatalf("the author's own article: held %+v (%v), want scheduled with their approval", d.Held, err)
	}
	if r := a.Release(t, d.Held.ReleaseID); r.Approval == nil || r.Approval.By.ID != author.ID {
		t.Fatalf("approval %+v, want the author's", r.Approval)
	}

	// The API says what each caller may do: the editor may move the
	// author's release, the contributor may not.
	for _, tc := range []struct {
		token string
		move  bool
	}{{a.TokenFor(t, a.Editor), true}, {contributorToken, false}} {
		status, out := apptest.APICall(t, a, "GET", "/api/sites/"+a.Site.ID+"/releases", tc.token, "")
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
	status, out = apptest.APICall(t, a, "GET", "/api/sites/"+a.Site.ID+"/entries", contributorToken, "")
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
	e := a.SignedIn(t, a.Editor)
	e.Check(t, apptest.Scenario{Name: "Content list", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="author-` + theirs.ID + `">Elif Editor</td>`,
			`data-testid="author-` + a.Draft.ID + `">Chris Contributor</td>`}})
	e.Check(t, apptest.Scenario{Name: "Editor", URL: "/studio/content/" + theirs.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="node-author">Created by Elif Editor</p>`}})
}

// TestTokenScopesForm: the Access tokens page offers only the scopes the
// person's role allows, at its level; a token made with some scopes acts
// with those only; a scope above the role is refused and nothing is made.
func TestTokenScopesForm(t *testing.T) {
	a := apptest.New(t)
	c := a.SignedIn(t, a.Contributor)
	c.Check(t, apptest.Scenario{Name: "Form", URL: "/studio/tokens", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="scope-schedules:write:own"`, `data-testid="scope-schedules:read"`},
		NotExpectedContent: []string{`data-testid="scope-schedules:write"`, `data-testid="scope-automations:manage"`}})
	c.Check(t, apptest.Scenario{Name: "AboveTheRole", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {c.Token()}, "name": {"too much"}, "scopes_chosen": {"1"},
			"scope": {"schedules:read", "schedules:write"}},
		ExpectedStatus:     http.StatusUnprocessableEntity,
		NotExpectedContent: []string{`data-testid="new-secret"`}})
	res := c.Check(t, apptest.Scenario{Name: "ReadOnly", Method: "POST", URL: "/studio/tokens",
		Form: url.Values{"csrf_token": {c.Token()}, "name": {"reader"}, "scopes_chosen": {"1"},
			"scope": {"schedules:read", "content:read"}},
		ExpectedStatus:  http.StatusOK,
		ExpectedContent: []string{`data-testid="new-secret"`, "See the calendar and releases"}})
	i := strings.Index(res.Body, "studio_pat_")
	if i < 0 {
		t.Fatal("no secret on the page")
	}
	secret := res.Body[i : i+len("studio_pat_")+32]
	status, out := apptest.APICall(t, a, "GET", "/api/sites/"+a.Site.ID+"/releases", secret, "")
	if status != http.StatusOK {
		t.Fatalf("a read with the reader token: %d %v", status, out)
	}
	status, out = apptest.APICall(t, a, "POST", "/api/sites/"+a.Site.ID+"/releases", secret, `{"nodeIds":["`+a.Draft.ID+`"]}`)
	apptest.WantError(t, "write with a read-only token", status, out, http.StatusForbidden, "forbidden", "")
}
