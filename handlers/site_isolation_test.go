package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers"
)

// zeta is a second site, Zeta Times, with everything a site has: people,
// live and draft content with an image, a scheduled release, a request
// waiting for approval, an automation with a run, an invitation, an agent
// key and a token. Every name of it says "Zeta".
type zeta struct {
	site               engine.Site
	owner, contributor engine.User
	article, draft     content.Node
	release            string // scheduled
	request            string // the approval request of a release waiting for approval
	automation, run    string
	invitation         string
	agentKey, token    string
	// ids are every id above, which none of site A's answers may name.
	ids []string
}

func newZeta(t *testing.T, a *testApp) zeta {
	t.Helper()
	ctx := context.Background()
	var z zeta
	var err error
	if z.site, err = a.setup.AddSite(ctx, "Zeta Times", "https://zeta.example", "Europe/Istanbul", "en"); err != nil {
		t.Fatal(err)
	}
	z.owner = a.addUserOn(t, z.site.ID, "zed@zeta.example", "Zed Zetaowner", policy.Owner)
	z.contributor = a.addUserOn(t, z.site.ID, "zoe@zeta.example", "Zoe Zetacontributor", policy.Contributor)
	node := func(u engine.User, kind release.NodeKind, b content.Body) content.Node {
		n, err := a.nodes.CreateNode(ctx, u, z.site.ID, kind, b)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	now := a.eng.Now()
	img, err := a.nodes.CreateAsset(ctx, z.owner, z.site.ID, content.Body{Title: "Zeta image", Slug: "zeta-image.png",
		Status: content.StatusPublished, Mime: "image/png", Data: fixturePNG(t, 3), Alt: "Zeta skyline"})
	if err != nil {
		t.Fatal(err)
	}
	node(z.owner, release.KindPage, content.Body{Title: "Zeta page", Slug: "zeta-page", Lang: "en", Status: content.StatusPublished, Text: "Zeta about."})
	z.article = node(z.owner, release.KindContentEntry, content.Body{Title: "Zeta article", Slug: "zeta-article", Lang: "en",
		Status: content.StatusPublished, PublishedAt: &now, Text: "Zeta text ![Zeta skyline](/media/zeta-image.png)"})
	if _, err := a.nodes.Publish(ctx, z.owner, z.site.ID); err != nil {
		t.Fatal(err)
	}
	z.draft = node(z.contributor, release.KindContentEntry, content.Body{Title: "Zeta draft", Slug: "zeta-draft", Lang: "en",
		Status: content.StatusDraft, Text: "Zeta soon."})
	later := node(z.owner, release.KindPage, content.Body{Title: "Zeta later", Slug: "zeta-later", Lang: "en", Status: content.StatusDraft})
	schedule := func(u engine.User, n content.Node) release.Release {
		r, err := a.releases.ScheduleNode(ctx, u, releases.ScheduleInput{SiteID: z.site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: "2026-11-04", Time: "10:00"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	z.release = schedule(z.owner, later).ID
	asked := schedule(z.contributor, z.draft)
	list, err := a.releases.Approvals(ctx, z.owner, z.site.ID)
	if err != nil || len(list) != 1 || list[0].Release.ID != asked.ID {
		t.Fatalf("Zeta's approvals: %+v %v", list, err)
	}
	z.request = list[0].Request.ID
	au, err := a.aut.Create(ctx, z.owner, z.site.ID, automations.Input{Name: "Zeta link check",
		Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-02T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := a.aut.RunNow(ctx, z.owner, z.site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := a.sched.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		if run, err = a.aut.Run(ctx, z.owner, z.site.ID, run.ID); err != nil {
			t.Fatal(err)
		}
		if !run.Open() {
			break
		}
	}
	z.automation, z.run = au.ID, run.ID
	if _, inv, err := a.people.Invite(ctx, z.owner, z.site.ID, "zack@zeta.example", policy.Author); err != nil {
		t.Fatal(err)
	} else {
		z.invitation = inv.ID
	}
	k, _, err := a.agents.Mint(ctx, z.owner, z.site.ID, agents.KeyInput{Name: "Zeta planner", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	z.agentKey = k.ID
	if _, tok, err := a.identity.CreateToken(ctx, z.owner, "Zeta script", nil); err != nil {
		t.Fatal(err)
	} else {
		z.token = tok.ID
	}
	z.ids = []string{z.site.ID, z.owner.ID, z.contributor.ID, img.ID, z.article.ID, z.draft.ID, later.ID, z.release, asked.ID,
		z.request, z.automation, z.run, z.invitation, z.agentKey, z.token}
	return z
}

// leak is the first thing of Zeta's that body names ("" for none), but
// for the ids the request itself named.
func (z zeta) leak(body, asked string) string {
	for _, s := range append([]string{"Zeta", "zeta", "zed@", "zoe@"}, z.ids...) {
		if strings.Contains(body, s) && !strings.Contains(asked, s) {
			return s
		}
	}
	return ""
}

// fingerprint is everything of Zeta's the database holds, as one string.
func (z zeta) fingerprint(t *testing.T, a *testApp) string {
	t.Helper()
	var fp string
	err := a.store.DB().QueryRow(`SELECT
		(SELECT name || ':' || rev || ':' || coalesce(published_snapshot_id, '') || ':' || time_zone || ':' || lang FROM sites WHERE id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || state || ':' || rev, ' '), '') FROM releases WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || rev || ':' || coalesce(deleted_at, ''), ' '), '') FROM nodes WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || state || ':' || rev, ' '), '') FROM automations WHERE site_id = ?1) || ' | ' ||
		(SELECT count(*) FROM schedule_runs WHERE site_id = ?1) || ' runs | ' ||
		(SELECT coalesce(group_concat(id || ':' || status, ' '), '') FROM approvals WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(user_id || ':' || role, ' '), '') FROM memberships WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || coalesce(revoked_at, '') || coalesce(accepted_at, ''), ' '), '') FROM invitations WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || coalesce(revoked_at, ''), ' '), '') FROM agent_keys WHERE site_id = ?1) || ' | ' ||
		(SELECT coalesce(group_concat(id || ':' || coalesce(revoked_at, ''), ' '), '') FROM tokens WHERE user_id IN (?2, ?3)) || ' | ' ||
		(SELECT coalesce(group_concat(email || ':' || name || ':' || lang, ' '), '') FROM users WHERE id IN (?2, ?3)) || ' | ' ||
		(SELECT count(*) FROM audit WHERE site_id = ?1) || ' audit | ' ||
		(SELECT coalesce(group_concat(paused, ''), '') FROM schedule_settings WHERE site_id = ?1)`,
		z.site.ID, z.owner.ID, z.contributor.ID).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// withZetaIDs fills a Studio route pattern's {id} with the Zeta id of its
// kind.
func (z zeta) withIDs(pattern string) string {
	id := z.article.ID
	switch {
	case strings.HasPrefix(pattern, "/studio/releases/"):
		id = z.release
	case strings.HasPrefix(pattern, "/studio/approvals/"):
		id = z.request
	case strings.HasPrefix(pattern, "/studio/schedules/automations/"):
		id = z.automation
	case strings.HasPrefix(pattern, "/studio/schedules/runs/"):
		id = z.run
	case strings.HasPrefix(pattern, "/studio/people/invitations/"):
		id = z.invitation
	case strings.HasPrefix(pattern, "/studio/people/"):
		id = z.contributor.ID
	case strings.HasPrefix(pattern, "/studio/agents/"):
		id = z.agentKey
	case strings.HasPrefix(pattern, "/studio/tokens/"):
		id = z.token
	}
	return strings.ReplaceAll(pattern, "{id}", id)
}

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
	a := newApp(t)
	z := newZeta(t, a)
	keys := agentKeysOfA(t, a, z)
	oya := a.addUser(t, "oya@example.com", "Oya Owner", policy.Owner, "en")
	c := a.signedIn(t, oya)
	token := c.token()
	before := z.fingerprint(t, a)
	home, theirs := "/studio/s/"+a.site.ID, "/studio/s/"+z.site.ID

	form := url.Values{"csrf_token": {token}, "rev": {"1"}, "release_rev": {"1"}, "site_rev": {"1"}, "date": {"2026-11-05"},
		"time": {"09:00"}, "role": {"author"}, "email": {"x@example.com"}, "name": {"Oya Owner"}, "title": {"T"},
		"nodes": {z.article.ID, z.draft.ID}, "node": {z.draft.ID}, "key": {"k"}, "lang": {"en"}, "current": {"wrong password"}}
	checked := 0
	for _, rt := range routeTable() {
		if rt.Scope == handlers.Anyone {
			continue
		}
		path := z.withIDs(rt.Pattern)
		for _, u := range []string{path, home + strings.TrimPrefix(path, "/studio"), theirs + strings.TrimPrefix(path, "/studio")} {
			var res response
			if rt.Method == http.MethodGet {
				res = c.get(u)
			} else {
				res = c.do(rt.Method, u, form, nil)
			}
			checked++
			if s := z.leak(res.Body+res.Header.Get("Location")+res.Header.Get("HX-Redirect"), u); s != "" {
				t.Errorf("%s %s (%d) shows site B's %q\n%s", rt.Method, u, res.Status, s, excerpt(res.Body))
			}
			if strings.HasPrefix(u, theirs) && res.Status != http.StatusNotFound {
				t.Errorf("%s %s: status %d under site B's prefix, want 404", rt.Method, u, res.Status)
			}
		}
		// Every act above left the person signed in on A, so each answer
		// above was a real answer, not a sign-in page.
		if res := c.get(home + "/schedules"); res.Status != http.StatusOK {
			t.Fatalf("after %s %s: A's Schedules page answers %d", rt.Method, rt.Pattern, res.Status)
		}
	}
	// Filters that name B's things in the query.
	for _, u := range []string{"/schedules/history?automation=" + z.automation, "/content?author=" + z.owner.ID,
		"/history?actor=" + z.owner.ID, "/history.csv", "/schedules?view=month&month=2026-11", "/schedules/month/day?date=2026-11-04",
		"/content?q=Zeta", "/notifications", "/approvals"} {
		res := c.do(http.MethodGet, home+u, nil, map[string]string{"HX-Request": "true"})
		if s := z.leak(res.Body, u); s != "" || res.Status != http.StatusOK {
			t.Errorf("GET %s%s: %d, shows site B's %q", home, u, res.Status, s)
		}
	}

	// The API, with Oya's token and with her session: B's routes are not
	// found; A's routes with B's ids name nothing of B.
	tok := a.tokenFor(t, oya)
	bySession := func(method, path, body string) (int, map[string]any) {
		req, err := http.NewRequest(method, a.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", c.token())
		res, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	byToken := func(method, path, body string) (int, map[string]any) { return apiCall(t, a, method, path, tok, body) }
	for _, rt := range apiRouteTable() {
		for _, call := range []func(method, path, body string) (int, map[string]any){byToken, bySession} {
			for _, site := range []string{z.site.ID, a.site.ID} {
				path := apiParamRe.ReplaceAllStringFunc(rt.Pattern, func(p string) string {
					switch p {
					case "{siteId}":
						return site
					case "{releaseId}":
						return z.release
					case "{approvalId}":
						return z.request
					case "{automationId}":
						return z.automation
					case "{runId}":
						return z.run
					}
					return z.article.ID
				})
				body := ""
				if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
					body = "{}"
				}
				status, out := call(rt.Method, path, body)
				checked++
				if s := z.leak(strings.Join(flatten(out), " "), path); s != "" {
					t.Errorf("%s %s (%d) shows site B's %q: %v", rt.Method, path, status, s, out)
				}
				if site == z.site.ID && strings.Contains(rt.Pattern, "{siteId}") && status != http.StatusNotFound {
					t.Errorf("%s %s: %d on site B, want 404", rt.Method, path, status)
				}
			}
		}
	}
	// MCP, with A's agent keys: every tool the server lists.
	mcpBase := a.serve(t, false)
	for name, secret := range keys {
		calls, refused := sweepMCP(t, a, z, mcpBase, secret)
		checked += calls
		t.Logf("MCP with A's %s: %d calls, %d refused naming B", name, calls, refused)
	}
	for _, p := range []string{"/health", "/api/scheduler", "/api/sites"} {
		res := c.get(p)
		if s := z.leak(res.Body, p); s != "" || res.Status != http.StatusOK {
			t.Errorf("GET %s: %d, shows site B's %q\n%s", p, res.Status, s, res.Body)
		}
	}

	// The public site on A's host (the default): none of B's routes.
	visitor := a.client(t, "")
	for _, p := range []string{"/", "/posts", "/posts/zeta-article", "/zeta-page", "/rss.xml", "/sitemap.xml", "/robots.txt",
		"/media/zeta-image.png", "/nope"} {
		res := visitor.get(p)
		checked++
		if s := z.leak(res.Body, p); s != "" {
			t.Errorf("GET %s on A's host (%d) shows site B's %q", p, res.Status, s)
		}
	}

	if after := z.fingerprint(t, a); after != before {
		t.Errorf("site A's Owner changed site B:\nbefore %s\nafter  %s", before, after)
	}

	// The markers are real: B's Owner and B's host see B's things.
	zed := a.signedIn(t, z.owner)
	seen := 0
	for _, p := range []string{"/content", "/content/" + z.article.ID, "/releases/" + z.release, "/approvals/" + z.request,
		"/schedules/automations/" + z.automation, "/schedules/runs/" + z.run, "/people", "/history", "/tokens", "/agents"} {
		if res := zed.get(theirs + p); res.Status == http.StatusOK && z.leak(res.Body, "") != "" {
			seen++
		} else {
			t.Errorf("B's Owner on %s%s: %d, nothing of B", theirs, p, res.Status)
		}
	}
	if res := visitor.do(http.MethodGet, "/posts/zeta-article", nil, map[string]string{"Host": "zeta.example"}); res.Status != http.StatusOK ||
		!strings.Contains(res.Body, "Zeta article") || !strings.Contains(res.Body, "/media/zeta-image.png") {
		t.Errorf("B's article on B's host: %d\n%s", res.Status, excerpt(res.Body))
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
