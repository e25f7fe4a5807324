package handlers_test

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"studio/engine"
	"studio/engine/model/automation"
	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/internal/apptest"
)

var apiParamRe = regexp.MustCompile(`\{(\w+)\}`)

// TestNothingOfAnotherSite is the tenancy sweep (issues 15 and 36): it
// reads the route tables and the MCP tool list, so a route or a tool
// added later is swept without anyone writing a test. An Owner of site
// A, signed in, asks every Studio route (with and without A's prefix, and
// under B's), every API route with her session and with her token, the
// health report and every public route on A's host; A's agent keys (a
// person's and an agent task's) call every MCP tool naming B and naming
// A; B's ids go wherever a route or a tool takes one. No answer shows
// anything of site B, and nothing of B changes, its History included. B's
// own Owner sees B's things on the same routes, so the markers are real.
func TestNothingOfAnotherSite(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	z := apptest.NewZeta(t, a)
	keys := apptest.AgentKeysOfA(t, a, z)
	oya := a.AddUser(t, "oya@example.com", "Oya Owner", policy.Owner, "en")
	c := a.SignedIn(t, oya)
	token := c.Token()
	before := z.Fingerprint(t, a)
	home, theirs := "/studio/s/"+a.Site.ID, "/studio/s/"+z.Site.ID

	form := url.Values{"csrf_token": {token}, "rev": {"1"}, "release_rev": {"1"}, "site_rev": {"1"}, "date": {"2026-11-05"},
		"time": {"09:00"}, "role": {"author"}, "email": {"x@example.com"}, "name": {"Oya Owner"}, "title": {"T"},
		"nodes": {z.Article.ID, z.Draft.ID}, "node": {z.Draft.ID}, "key": {"k"}, "lang": {"en"}, "current": {"wrong password"}}
	checked := 0
	for _, rt := range routeTable() {
		if rt.Scope == handlers.Anyone {
			continue
		}
		path := z.WithIDs(rt.Pattern)
		for _, u := range []string{path, home + strings.TrimPrefix(path, "/studio"), theirs + strings.TrimPrefix(path, "/studio")} {
			var res apptest.Response
			if rt.Method == http.MethodGet {
				res = c.Get(u)
			} else {
				res = c.Do(rt.Method, u, form, nil)
			}
			checked++
			if s := z.Leak(res.Body+res.Header.Get("Location")+res.Header.Get("HX-Redirect"), u); s != "" {
				t.Errorf("%s %s (%d) shows site B's %q\n%s", rt.Method, u, res.Status, s, apptest.Excerpt(res.Body))
			}
			if strings.HasPrefix(u, theirs) && res.Status != http.StatusNotFound {
				t.Errorf("%s %s: status %d under site B's prefix, want 404", rt.Method, u, res.Status)
			}
		}
		// Every act above left the person signed in on A, so each answer
		// above was a real answer, not a sign-in page.
		if res := c.Get(home + "/schedules"); res.Status != http.StatusOK {
			t.Fatalf("after %s %s: A's Schedules page answers %d", rt.Method, rt.Pattern, res.Status)
		}
	}
	// Filters that name B's things in the query.
	for _, u := range []string{"/schedules/history?automation=" + z.Automation, "/content?author=" + z.Owner.ID,
		"/history?actor=" + z.Owner.ID, "/history.csv", "/schedules?view=month&month=2026-11", "/schedules/month/day?date=2026-11-04",
		"/content?q=Zeta", "/notifications", "/approvals"} {
		res := c.Do(http.MethodGet, home+u, nil, map[string]string{"HX-Request": "true"})
		if s := z.Leak(res.Body, u); s != "" || res.Status != http.StatusOK {
			t.Errorf("GET %s%s: %d, shows site B's %q", home, u, res.Status, s)
		}
	}

	// The API, with Oya's token and with her session: B's routes are not
	// found; A's routes with B's ids name nothing of B.
	tok := a.TokenFor(t, oya)
	bySession := func(method, path, body string) (int, map[string]any) {
		req, err := http.NewRequest(method, a.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", c.Token())
		res, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	byToken := func(method, path, body string) (int, map[string]any) {
		return apptest.APICall(t, a, method, path, tok, body)
	}
	for _, rt := range apptest.APIRouteTable() {
		for _, call := range []func(method, path, body string) (int, map[string]any){byToken, bySession} {
			for _, site := range []string{z.Site.ID, a.Site.ID} {
				path := apiParamRe.ReplaceAllStringFunc(rt.Pattern, func(p string) string {
					switch p {
					case "{siteId}":
						return site
					case "{releaseId}":
						return z.Release
					case "{approvalId}":
						return z.Request
					case "{automationId}":
						return z.Automation
					case "{runId}":
						return z.Run
					}
					return z.Article.ID
				})
				body := ""
				if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
					body = "{}"
				}
				status, out := call(rt.Method, path, body)
				checked++
				if s := z.Leak(strings.Join(flatten(out), " "), path); s != "" {
					t.Errorf("%s %s (%d) shows site B's %q: %v", rt.Method, path, status, s, out)
				}
				if site == z.Site.ID && strings.Contains(rt.Pattern, "{siteId}") && status != http.StatusNotFound {
					t.Errorf("%s %s: %d on site B, want 404", rt.Method, path, status)
				}
			}
		}
	}
	// MCP, with A's agent keys: every tool the server lists.
	mcpBase := a.Serve(t, false)
	for name, secret := range keys {
		calls, refused := sweepMCP(t, a, z, mcpBase, secret)
		checked += calls
		t.Logf("MCP with A's %s: %d calls, %d refused naming B", name, calls, refused)
	}
	for _, p := range []string{"/health", "/api/scheduler", "/api/sites"} {
		res := c.Get(p)
		if s := z.Leak(res.Body, p); s != "" || res.Status != http.StatusOK {
			t.Errorf("GET %s: %d, shows site B's %q\n%s", p, res.Status, s, res.Body)
		}
	}

	// The public site on A's host (the default): none of B's routes.
	visitor := a.Client(t, "")
	for _, p := range []string{"/", "/posts", "/posts/zeta-article", "/zeta-page", "/rss.xml", "/sitemap.xml", "/robots.txt",
		"/media/zeta-image.png", "/nope"} {
		res := visitor.Get(p)
		checked++
		if s := z.Leak(res.Body, p); s != "" {
			t.Errorf("GET %s on A's host (%d) shows site B's %q", p, res.Status, s)
		}
	}

	if after := z.Fingerprint(t, a); after != before {
		t.Errorf("site A's Owner changed site B:\nbefore %s\nafter  %s", before, after)
	}

	// The markers are real: B's Owner and B's host see B's things.
	zed := a.SignedIn(t, z.Owner)
	seen := 0
	for _, p := range []string{"/content", "/content/" + z.Article.ID, "/releases/" + z.Release, "/approvals/" + z.Request,
		"/schedules/automations/" + z.Automation, "/schedules/runs/" + z.Run, "/people", "/history", "/tokens", "/agents"} {
		if res := zed.Get(theirs + p); res.Status == http.StatusOK && z.Leak(res.Body, "") != "" {
			seen++
		} else {
			t.Errorf("B's Owner on %s%s: %d, nothing of B", theirs, p, res.Status)
		}
	}
	if res := visitor.Do(http.MethodGet, "/posts/zeta-article", nil, map[string]string{"Host": "zeta.example"}); res.Status != http.StatusOK ||
		!strings.Contains(res.Body, "Zeta article") || !strings.Contains(res.Body, "/media/zeta-image.png") {
		t.Errorf("B's article on B's host: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	t.Logf("%d answers checked for site B; B's Owner saw B on %d pages", checked, seen)
}

// flatten is every string and key in a decoded JSON value.
func flatten(v any) []string {
	switch x := v.(type) {
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, k)
			out = append(out, flatten(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, flatten(e)...)
		}
		return out
	case string:
		return []string{x}
	}
	return nil
}

// sweepMCP is the MCP row of the tenancy sweep (issue 36, hole 2): with
// the agent key secret of site A, every tool the server lists is called
// naming Zeta (refused forbidden before anything is read, with a sentence
// that says the key is another site's) and naming A with Zeta's ids. No
// answer shows anything of Zeta, and none is an internal error; every call
// is audited on A (none on Zeta: the caller's fingerprint of Zeta counts
// its audit rows). So that each call naming A reaches its use case with
// Zeta's ids, the tools that taint go last and a get_mode follows every
// call (ten refusals in a row would end a run). It returns the calls made
// and those refused on Zeta.
func sweepMCP(t *testing.T, a *apptest.App, z apptest.Zeta, base, secret string) (calls, refusedOnZeta int) {
	t.Helper()
	ctx := context.Background()
	s := (&apptest.MCPFixture{Base: base}).Connect(t, secret)
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	auditA := func() int {
		var n int
		if err := a.Store.DB().QueryRow(`SELECT count(*) FROM audit WHERE site_id = ? AND action = 'mcp.tool'`, a.Site.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rowsBefore := auditA()
	tools := slices.Clone(list.Tools)
	slices.SortStableFunc(tools, func(x, y *sdk.Tool) int {
		tx, _ := policy.Tool(x.Name)
		ty, _ := policy.Tool(y.Name)
		return cmp.Compare(b2i(tx.Taints), b2i(ty.Taints))
	})
	for _, tl := range tools {
		for _, site := range []string{z.Site.ID, a.Site.ID} {
			args := z.MCPArgs(tl.InputSchema, site)
			asked, _ := json.Marshal(args)
			out, res := apptest.CallTool(t, s, tl.Name, args)
			calls++
			if leak := z.Leak(strings.Join(flatten(out), " "), string(asked)); leak != "" {
				t.Errorf("%s %s shows Zeta's %q: %v", tl.Name, asked, leak, out)
			}
			if e, _ := out["error"].(map[string]any); e != nil && e["code"] == "internal" {
				t.Errorf("%s %s: internal error", tl.Name, asked)
			}
			if _, named := args["siteId"]; named && site == z.Site.ID {
				refusedOnZeta++
				msg := apptest.ToolError(t, tl.Name+" on Zeta", out, res, engine.CodeForbidden)
				if !strings.Contains(msg, "another site") {
					t.Errorf("%s on Zeta: %q does not say the key is another site's", tl.Name, msg)
				}
			} else if e, _ := out["error"].(map[string]any); e != nil {
				switch e["code"] {
				case engine.CodeTainted, automation.CodeAnomalyRefusals:
					t.Errorf("%s %s was stopped before its use case (%v): the sweep did not reach it", tl.Name, asked, e["code"])
				}
			}
			// A call that goes through: no run of refusals in a row; and an
			// agent task's run is still open for the next tool.
			if mode := apptest.OkTool(t, s, "get_mode", nil); mode["automationId"] != nil && mode["run"] == nil {
				t.Fatalf("after %s %s the agent task's run is over: the sweep cannot go on", tl.Name, asked)
			}
		}
	}
	if got := auditA() - rowsBefore; got != 2*calls {
		t.Errorf("%d calls audited on A, want %d (every call, and its get_mode, is the key's site's)", got, 2*calls)
	}
	if refusedOnZeta < 10 {
		t.Fatalf("only %d tools named a site: the sweep reached too little", refusedOnZeta)
	}
	return calls, refusedOnZeta
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
