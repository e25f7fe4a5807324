package studio_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine/policy"
	"studio/handlers/internal/apptest"
)

var agentSecretRe = regexp.MustCompile(`value="(sta_[A-Za-z0-9_-]+)"`)

func agentKeyCount(a *apptest.App, t *testing.T) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(`SELECT count(*) FROM agent_keys`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAgentsPage: the Agents page lists a person's keys and mints one with
// a mode and scopes, showing its secret in the answer only; the secret
// authenticates as the person; a refusal per field shows its sentence and
// makes nothing; someone else cannot revoke it; revoking stops it.
func TestAgentsPage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Empty", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Agents</h1>", `data-testid="agents-empty">There are no agent keys yet.</p>`,
				`href="/studio/agents" data-testid="agents-link" aria-current="page">Agents</a>`, `action="/studio/agents"`,
				// edits is the default mode, and its scopes come ticked.
				`value="edits" checked data-defaults="content:read content:write schedules:read schedules:write" data-testid="mode-edits"`,
				`value="auto" data-defaults="content:read content:write schedules:read schedules:write releases:publish" data-testid="mode-auto"`,
				`<strong>Plan</strong> <span class="hint">Reads only, and reports what it would do.</span>`,
				`value="schedules:write" checked data-testid="scope-schedules:write"`,
				`value="releases:publish" data-testid="scope-releases:publish"`},
			NotExpectedContent: []string{`data-testid="new-secret"`, "bypass", `data-testid="scope-site:settings"`}},
		{Name: "LinkOnEveryPage", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="agents-link">Agents</a>`}},
	})

	before, keys := a.Fingerprint(t), agentKeyCount(a, t)
	refusals := []struct {
		name string
		form url.Values
		want string
	}{
		{"NoName", url.Values{"name": {"  "}, "mode": {"plan"}},
			`data-testid="error-name">Name the key in one line (at most 120 characters).</p>`},
		{"Bypass", url.Values{"name": {"k"}, "mode": {"bypass"}},
			`data-testid="error-mode">Choose one of the modes: Plan, Manual, Edits or Auto.</p>`},
		{"NoMode", url.Values{"name": {"k"}},
			`data-testid="error-mode">Choose one of the modes: Plan, Manual, Edits or Auto.</p>`},
		{"PersonScope", url.Values{"name": {"k"}, "mode": {"plan"}, "scope": {"schedules:read", "automations:manage"}},
			`data-testid="error-scopes">An agent key cannot hold that permission. Choose among the ones listed.</p>`},
	}
	for _, r := range refusals {
		r.form.Set("csrf_token", token)
		c.Check(t, apptest.Scenario{Name: r.name, Method: "POST", URL: "/studio/agents", Form: r.form,
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{r.want},
			NotExpectedContent: []string{`data-testid="new-secret"`}})
	}
	if a.Fingerprint(t) != before || agentKeyCount(a, t) != keys {
		t.Fatal("a refused key changed the database")
	}

	res := c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: "/studio/agents",
		Form: url.Values{"csrf_token": {token}, "name": {"Weekly planner"}, "mode": {"manual"},
			"scope": {"schedules:read", "schedules:write"}}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-secret"`, "Your new agent key “Weekly planner”",
			"Copy it now: it is shown only this once.", "<h1>Agent key “Weekly planner”</h1>", `data-testid="agent-key-mode">Manual `,
			"<li>Schedule anyone&#39;s content</li>", "Never", `data-testid="endpoint">` + a.URL + `/mcp</code>`,
			`data-testid="site-id">` + a.Site.ID + `</code>`, `type="password" value="sta_`},
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	m := agentSecretRe.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no secret in the page:\n%s", apptest.Excerpt(res.Body))
	}
	secret := m[1]
	u, err := a.Agents.Authenticate(context.Background(), secret)
	if err != nil || u.ID != a.Editor.ID || u.Agent.Mode != policy.ModeManual {
		t.Fatalf("the new key: %+v %v", u, err)
	}
	list, err := a.Agents.Keys(context.Background(), a.Editor, a.Site.ID)
	if err != nil || len(list) != 1 {
		t.Fatalf("keys %v, %v", list, err)
	}
	id := list[0].ID

	if !strings.Contains(res.Body, `data-address="/studio/agents/`+id+`"`) {
		t.Error("the answer does not give the page the key's own address")
	}
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "ShownOnce", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`href="/studio/agents/` + id + `" data-testid="agent-key-link">Weekly planner</a>`,
				`href="/studio/agents?revoke=` + id + `#revoke-` + id + `"`},
			NotExpectedContent: []string{secret, `data-testid="new-secret"`}},
		// The key's own page, later: how to connect, without the secret.
		{Name: "KeyPage", URL: "/studio/agents/" + id, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Agent key “Weekly planner”</h1>", `data-testid="endpoint">` + a.URL + `/mcp</code>`,
				`data-testid="key-id">` + id + `</code>`, `&#34;url&#34;: &#34;` + a.URL + `/mcp&#34;`,
				"export STUDIO_AGENT_KEY=sta_…; URL=" + a.URL + "/mcp", `data-testid="test-connection-form"`,
				`href="/studio/agents/guide"`, `data-testid="revoke-open"`},
			NotExpectedContent: []string{secret, `data-testid="new-secret"`, `data-testid="automation-id"`, "data-address"},
			ExpectedHeaders:    map[string]string{"Cache-Control": "no-store"}},
		{Name: "NoSuchKey", URL: "/studio/agents/agk_nothing", ExpectedStatus: http.StatusNotFound},
		{Name: "Guide", URL: "/studio/agents/guide", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Agents in Studio</h1>", "<h2>Connect in five minutes</h2>", "<table>"}},
		{Name: "ConfirmWithoutJavaScript", URL: "/studio/agents?revoke=" + id, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="revoke-` + id + `" class="confirm" aria-labelledby="revoke-` + id + `-title" open>`,
				"Revoke “Weekly planner”?", "The agent that uses this key is stopped at once."}},
	})

	other := a.SignedIn(t, a.Contributor)
	other.Check(t, apptest.Scenario{Name: "NotTheirs", Method: "POST", URL: "/studio/agents/" + id + "/revoke",
		Form: url.Values{"csrf_token": {other.Token()}}, ExpectedStatus: http.StatusNotFound})
	other.Check(t, apptest.Scenario{Name: "NotListed", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{"Weekly planner"}})
	other.Check(t, apptest.Scenario{Name: "NotTheirsToSee", URL: "/studio/agents/" + id, ExpectedStatus: http.StatusNotFound,
		NotExpectedContent: []string{"Weekly planner"}})
	if _, err := a.Agents.Authenticate(context.Background(), secret); err != nil {
		t.Fatalf("someone else's refused revoke stopped the key: %v", err)
	}

	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Revoke", Method: "POST", URL: "/studio/agents/" + id + "/revoke", Form: url.Values{"csrf_token": {token}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/agents"}},
		{Name: "Revoked", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<p class="notice">Agent key revoked. It no longer works.</p>`, `data-testid="agent-key-revoked"`,
				"Revoked on 2 November 2026, 08:00"},
			NotExpectedContent: []string{`data-testid="revoke-open"`}},
		{Name: "RevokedKeyPage", URL: "/studio/agents/" + id, ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="agent-key-revoked">Revoked on 2 November 2026, 08:00`},
			NotExpectedContent: []string{`data-testid="revoke-open"`, `data-testid="test-connection-form"`}},
	})
	if _, err := a.Agents.Authenticate(context.Background(), secret); err == nil {
		t.Fatal("a revoked key still authenticates")
	}
}

// TestAgentsPageAuthor: an Author is offered only the modes and scopes of
// the role (no auto, schedules:write:own), and a scope or mode above it
// posted anyway is refused with its sentence and makes nothing.
func TestAgentsPageAuthor(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	author := a.AddUser(t, "author@example.com", "Ayla Author", policy.Author, "en")
	c := a.SignedIn(t, author)
	c.Check(t, apptest.Scenario{Name: "Form", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="scope-schedules:write:own"`, `data-testid="scope-releases:publish:own"`,
			`data-testid="mode-edits"`},
		NotExpectedContent: []string{`data-testid="scope-schedules:write"`, `data-testid="scope-releases:publish"`,
			`data-testid="mode-auto"`}})
	before, keys := a.Fingerprint(t), agentKeyCount(a, t)
	c.Check(t, apptest.Scenario{Name: "ScopeAboveTheRole", Method: "POST", URL: "/studio/agents",
		Form: url.Values{"csrf_token": {c.Token()}, "name": {"too much"}, "mode": {"edits"},
			"scope": {"schedules:read", "schedules:write"}},
		ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{`data-testid="error-scopes">Your role does not allow one of the permissions chosen.`,
			`value="schedules:read" checked data-testid="scope-schedules:read"`},
		NotExpectedContent: []string{`data-testid="new-secret"`}})
	c.Check(t, apptest.Scenario{Name: "ModeAboveTheRole", Method: "POST", URL: "/studio/agents",
		Form:               url.Values{"csrf_token": {c.Token()}, "name": {"too much"}, "mode": {"auto"}},
		ExpectedStatus:     http.StatusUnprocessableEntity,
		ExpectedContent:    []string{`data-testid="error-mode">Your role does not allow this mode: choose a lower one.`},
		NotExpectedContent: []string{`data-testid="new-secret"`}})
	if a.Fingerprint(t) != before || agentKeyCount(a, t) != keys {
		t.Fatal("a refused key changed the database")
	}
	// Defaults: a key posted with no scope gets the mode's, at the role's level.
	c.Check(t, apptest.Scenario{Name: "Defaults", Method: "POST", URL: "/studio/agents",
		Form:           url.Values{"csrf_token": {c.Token()}, "name": {"drafts"}, "mode": {"edits"}},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`data-testid="new-secret"`,
			"<li>Schedule only your own content</li>"}})
	ks, err := a.Agents.Keys(context.Background(), author, a.Site.ID)
	if err != nil || len(ks) != 1 || len(ks[0].Scopes) == 0 {
		t.Fatalf("keys = %+v, %v", ks, err)
	}
	for _, s := range ks[0].Scopes {
		if !policy.Holds(policy.Author, s) {
			t.Errorf("an Author's key holds %s", s)
		}
	}
}

// TestAgentsPageTurkish: the page, a refusal and the secret's banner in
// Turkish, with the glossary's words.
func TestAgentsPageTurkish(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.SetLang(t, a.Editor, "tr")
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Page", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Yapay zekâ ajanları</h1>", `data-testid="agents-link" aria-current="page">Yapay zekâ ajanları</a>`,
			"<strong>Yalnızca plan</strong>", "<strong>Elle onay</strong>", "<strong>Düzenleme</strong>", "<strong>Otomatik</strong>",
			"Anahtar oluştur"}})
	c.Check(t, apptest.Scenario{Name: "Refusal", Method: "POST", URL: "/studio/agents",
		Form: url.Values{"csrf_token": {c.Token()}, "name": {""}, "mode": {"plan"}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Anahtara tek satırlık bir ad verin (en çok 120 karakter)."}})
	c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: "/studio/agents",
		Form: url.Values{"csrf_token": {c.Token()}, "name": {"Haftalık planlayıcı"}, "mode": {"plan"}}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Yeni yapay zekâ ajanı anahtarınız: “Haftalık planlayıcı”", "Şimdi kopyalayın",
			`data-testid="agent-key-mode">Yalnızca plan `, "<h2 id=\"key-connect\">Bir yapay zekâ ajanı bağlayın</h2>", ">Bağlantıyı dene</button>",
			`data-modes="{&#34;auto&#34;:&#34;Otomatik&#34;,`}})
}

// TestAgentsPageAutomationKey: an automation's own key is listed with its
// automation, its revoke dialog says the automation stops, and revoking it
// leaves the automation broken (key-revoked). An Administrator sees and
// revokes the site's keys.
func TestAgentsPageAutomationKey(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	au, err := a.Automations.CreateAutomation(ctx, a.Editor, a.Site.ID, "Weekly drafts", "agent-task", "FREQ=WEEKLY;BYDAY=MO", "2026-11-09T09:00")
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := a.Agents.MintForAutomation(ctx, a.Editor, a.Site.ID, au.ID, policy.ModeEdits, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := a.SignedIn(t, a.Editor)
	c.Check(t, apptest.Scenario{Name: "Listed", URL: "/studio/agents?revoke=" + k.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<a href="/studio/schedules/automations/` + au.ID + `">Weekly drafts</a>`,
			"This is an automation&#39;s own key: the automation stops"}})
	admin := a.Admin(t)
	ac := a.SignedIn(t, admin)
	ac.Check(t, apptest.Scenario{Name: "AdminSeesAll", URL: "/studio/agents", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Agent keys of this site", "<td>Elif Editor</td>", `data-testid="agent-key-link">Weekly drafts</a>`}})
	// The automation's key page names the automation by its id, for the
	// task's instructions, and, to an Administrator, the key's owner.
	ac.Check(t, apptest.Scenario{Name: "KeyPage", URL: "/studio/agents/" + k.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<a href="/studio/schedules/automations/` + au.ID + `">Weekly drafts</a>`,
			`data-testid="automation-id">` + au.ID + `</code>`, "<dt>Owner</dt><dd>Elif Editor</dd>"}})
	ac.Check(t, apptest.Scenario{Name: "AdminRevokes", Method: "POST", URL: "/studio/agents/" + k.ID + "/revoke",
		Form: url.Values{"csrf_token": {ac.Token()}}, ExpectedStatus: http.StatusSeeOther})
	got, err := a.Automations.Get(ctx, a.Editor, a.Site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "broken" || got.PausedReason != "key-revoked" {
		t.Fatalf("automation = %s (%s), want broken (key-revoked)", got.State, got.PausedReason)
	}
}
