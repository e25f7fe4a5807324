package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"studio/engine"
	"studio/engine/agents"
	"studio/engine/people"
	"studio/engine/policy"
	"studio/engine/services"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
	"studio/web/templates"
)

// routeTable is the Studio route table, for its methods, patterns and
// scopes only.
func routeTable() []handlers.Route {
	return handlers.StudioRoutes(studio.New(&services.Services{}, nil, nil))
}

// accounts is everything of every account the database holds that an act
// on an account could change: who they are, their password hash and
// session epoch, their memberships, sessions, access tokens, agent keys
// and reset links.
func accounts(a *apptest.App, t *testing.T) string {
	t.Helper()
	var fp string
	err := a.Store.DB().QueryRow(`SELECT
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT id || ':' || email || ':' || name || ':' || lang || ':' ||
			password_hash || ':' || session_epoch AS x FROM users ORDER BY id)) || ' | ' ||
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT site_id || ':' || user_id || ':' || role AS x FROM memberships
			ORDER BY site_id, user_id)) || ' | ' ||
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT id || ':' || epoch || ':' || coalesce(ended_at, '') AS x
			FROM user_sessions ORDER BY id)) || ' | ' ||
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT id || ':' || coalesce(revoked_at, '') AS x FROM tokens ORDER BY id)) || ' | ' ||
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT id || ':' || coalesce(revoked_at, '') AS x FROM agent_keys ORDER BY id)) || ' | ' ||
		(SELECT coalesce(group_concat(x, ' '), '') FROM (SELECT id || ':' || coalesce(used_at, '') AS x FROM password_resets ORDER BY id))`).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// count is a count(*) query's answer.
func count(a *apptest.App, t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Store.DB().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 36, hole 1: an Administrator, and an Owner, of the Gazette cannot
// make a password reset link for someone who writes for the Gazette but
// owns Zeta Times: the link would sign in as the Owner of Zeta. The People
// page offers no reset for them (a note instead), the route refuses in the
// person's language, the refusal is in the Gazette's History, and nothing
// of any account changes. Role changes stay per site; whoever manages the
// person on both sites makes the link.
func TestPasswordResetOfSomeoneOnAnotherSite(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	z := apptest.NewZeta(t, a)
	ctx := context.Background()
	if err := a.Store.AddMember(ctx, a.Site.ID, z.Owner.ID, policy.Editor, apptest.Start); err != nil {
		t.Fatal(err)
	}
	admin := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "tr")
	// The Gazette's People by name: Oya joins Zeta Times too.
	people := templates.SitePrefix + a.Site.ID + "/people"
	reset := func(id string) string { return people + "/" + id + "/reset-password" }

	ali := a.SignedIn(t, admin)
	ali.Check(t, apptest.Scenario{Name: "Page", URL: people, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`action="` + reset(a.Editor.ID) + `"`, `data-testid="reset-elsewhere"`, "Also works on other sites",
			`action="` + people + "/" + z.Owner.ID + `/role"`},
		NotExpectedContent: []string{`action="` + reset(z.Owner.ID) + `"`}})

	oya := a.SignedIn(t, owner)
	before, zeta := accounts(a, t), z.Fingerprint(t, a)
	ali.Check(t, apptest.Scenario{Name: "Administrator", Method: "POST", URL: reset(z.Owner.ID), Form: url.Values{"csrf_token": {ali.Token()}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"they also work on a site where you do not manage them",
			"under Your account"}, NotExpectedContent: []string{"/studio/reset?token="}})
	oya.Check(t, apptest.Scenario{Name: "OwnerInTurkish", Method: "POST", URL: reset(z.Owner.ID), Form: url.Values{"csrf_token": {oya.Token()}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"onu yönetmediğiniz başka bir sitede de çalışıyor",
			"Hesabınız sayfasından"}})
	if after := accounts(a, t); after != before {
		t.Fatalf("a refused reset link changed an account:\n%s\n%s", before, after)
	}
	if z.Fingerprint(t, a) != zeta {
		t.Fatal("a refused reset link changed Zeta Times")
	}
	if n := count(a, t, `SELECT count(*) FROM audit WHERE action = 'member.password_reset_refused' AND site_id = ?
		AND json_extract(details, '$.userId') = ? AND json_extract(details, '$.refusal') = 'member_elsewhere'`, a.Site.ID, z.Owner.ID); n != 2 {
		t.Errorf("%d refusals audited on the Gazette, want 2", n)
	}
	oya.Check(t, apptest.Scenario{Name: "History", URL: templates.SitePrefix + a.Site.ID + "/history?kind=people", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Parola sıfırlama bağlantısı isteği reddedildi", "Ali Admin"}})

	// A role change is the Gazette's own: it works.
	ali.Check(t, apptest.Scenario{Name: "RoleChange", Method: "POST", URL: people + "/" + z.Owner.ID + "/role",
		Form: url.Values{"csrf_token": {ali.Token()}, "role": {"author"}}, ExpectedStatus: http.StatusSeeOther})

	// Oya, an Owner of Zeta Times too, manages Zed everywhere.
	if err := a.Store.AddMember(ctx, z.Site.ID, owner.ID, policy.Owner, apptest.Start); err != nil {
		t.Fatal(err)
	}
	oya.Check(t, apptest.Scenario{Name: "PageEverywhere", URL: people, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`action="` + reset(z.Owner.ID) + `"`}, NotExpectedContent: []string{`data-testid="reset-elsewhere"`}})
	res := oya.Check(t, apptest.Scenario{Name: "ManagedEverywhere", Method: "POST", URL: reset(z.Owner.ID), Form: url.Values{"csrf_token": {oya.Token()}},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Zed Zetaowner için parola sıfırlama bağlantısı"}})
	apptest.ResetLink(t, res.Body)
	if n := count(a, t, `SELECT count(*) FROM password_resets WHERE user_id = ?`, z.Owner.ID); n != 1 {
		t.Errorf("%d reset links of Zed, want 1", n)
	}
}

// mcpStatus is the HTTP status /mcp answers a tools/list with secret.
func mcpStatus(a *apptest.App, t *testing.T, secret string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", a.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// apiStatus is the HTTP status /api/sites answers a bearer token.
func apiStatus(a *apptest.App, t *testing.T, secret string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", a.URL+"/api/sites", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// credentials gives u an access token and a person's agent key on the
// site, and returns their secrets.
func credentials(a *apptest.App, t *testing.T, u engine.User, siteID string) (token, key string) {
	t.Helper()
	ctx := context.Background()
	token, _, err := a.Identity.CreateToken(ctx, u, "Nightly script", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, key, err = a.Agents.Mint(ctx, u, siteID, agents.KeyInput{Name: "Desk", Mode: policy.ModePlan}); err != nil {
		t.Fatal(err)
	}
	return token, key
}

// Issue 36, hole 4: a password reset (someone else may have held the
// account) ends every session, revokes the access tokens and the person's
// agent keys, with one audit row, and Your account says what ended, in the
// person's language.
func TestResetEndsEveryCredential(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	admin := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	for _, c := range []struct {
		name     string
		u        engine.User
		lang     string
		sessions int
		want     []string
	}{
		{"English", a.Editor, "en", 1, []string{"Your new password is set.", "1 session was signed out.", "1 access token was revoked.",
			"1 agent key was revoked."}},
		{"Turkish", a.Contributor, "tr", 2, []string{"Yeni parolanız belirlendi.", "2 oturum kapatıldı.", "1 erişim anahtarı geçersiz kılındı.",
			"1 yapay zekâ ajanı anahtarı geçersiz kılındı."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a.SetLang(t, c.u, c.lang)
			var elsewhere []*apptest.Client
			for range c.sessions {
				elsewhere = append(elsewhere, a.SignedIn(t, c.u))
			}
			token, key := credentials(a, t, c.u, a.Site.ID)
			if s := apiStatus(a, t, token); s != http.StatusOK {
				t.Fatalf("the token before the reset: %d", s)
			}
			if s := mcpStatus(a, t, key); s == http.StatusUnauthorized {
				t.Fatalf("the agent key before the reset: %d", s)
			}
			ali := a.SignedIn(t, admin)
			res := ali.Check(t, apptest.Scenario{Name: "Link", Method: "POST", URL: "/studio/people/" + c.u.ID + "/reset-password",
				Form: url.Values{"csrf_token": {ali.Token()}}, ExpectedStatus: http.StatusOK})
			link := apptest.ResetLink(t, res.Body)
			resets := count(a, t, `SELECT count(*) FROM audit WHERE action = 'account.password_reset'`)

			guest := a.Client(t, "")
			csrf := guest.CSRF(link)
			guest.Check(t, apptest.Scenario{Name: "Set", Method: "POST", URL: "/studio/reset", ExpectedStatus: http.StatusSeeOther,
				Form:            url.Values{"csrf_token": {csrf}, "token": {strings.TrimPrefix(link, "/studio/reset?token=")}, "password": {"a freshly chosen secret"}},
				ExpectedHeaders: map[string]string{"Location": "/studio/account"}})
			guest.Check(t, apptest.Scenario{Name: "Account", URL: "/studio/account", ExpectedStatus: http.StatusOK, ExpectedContent: c.want})
			guest.Check(t, apptest.Scenario{Name: "Once", URL: "/studio/account", ExpectedStatus: http.StatusOK, NotExpectedContent: c.want[1:]})
			if s := apiStatus(a, t, token); s != http.StatusUnauthorized {
				t.Errorf("the token after the reset: %d, want 401", s)
			}
			if s := mcpStatus(a, t, key); s != http.StatusUnauthorized {
				t.Errorf("the agent key after the reset: %d, want 401", s)
			}
			for _, e := range elsewhere {
				e.Check(t, apptest.Scenario{Name: "SignedOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
			}
			if n := count(a, t, `SELECT count(*) FROM audit WHERE action = 'account.password_reset'`); n != resets+1 {
				t.Errorf("%d audit rows of resets, want %d", n, resets+1)
			}
		})
	}
}

// A password change and "Sign out everywhere else" end the other sessions
// only (the person is the one signed in): the access tokens and agent keys
// stay, and Your account says how many sessions ended, in English and
// Turkish, with one audit row each.
func TestPasswordChangeEndsOtherSessionsOnly(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	here := a.SignedIn(t, a.Editor)
	there, phone := a.SignedIn(t, a.Editor), a.SignedIn(t, a.Editor)
	token, key := credentials(a, t, a.Editor, a.Site.ID)
	here.Check(t, apptest.Scenario{Name: "Password", Method: "POST", URL: "/studio/account/password", ExpectedStatus: http.StatusSeeOther,
		Form: url.Values{"csrf_token": {here.Token()}, "current": {apptest.Password}, "password": {"a brand new secret"}}})
	here.Check(t, apptest.Scenario{Name: "Said", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Password changed.", "2 other sessions were signed out."}})
	for _, c := range []*apptest.Client{there, phone} {
		c.Check(t, apptest.Scenario{Name: "SignedOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
	}
	if s := apiStatus(a, t, token); s != http.StatusOK {
		t.Errorf("the token after a password change: %d, want 200", s)
	}
	if s := mcpStatus(a, t, key); s == http.StatusUnauthorized {
		t.Errorf("the agent key after a password change: %d", s)
	}
	if n := count(a, t, `SELECT count(*) FROM audit WHERE action = 'account.password_changed' AND details = '{"sessions":2}'`); n != 1 {
		t.Errorf("%d audit rows of the change with its count, want 1", n)
	}

	here.Check(t, apptest.Scenario{Name: "Alone", Method: "POST", URL: "/studio/account/sessions/end-others",
		Form: url.Values{"csrf_token": {here.Token()}}, ExpectedStatus: http.StatusSeeOther})
	here.Check(t, apptest.Scenario{Name: "NoneOpen", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"No other session of yours was open."}})

	a.SetLang(t, a.Editor, "tr")
	tablet := a.Client(t, "")
	token2 := tablet.CSRF("/studio/login")
	tablet.Check(t, apptest.Scenario{Name: "SignIn", Method: "POST", URL: "/studio/login", ExpectedStatus: http.StatusSeeOther,
		Form: url.Values{"csrf_token": {token2}, "email": {a.Editor.Email}, "password": {"a brand new secret"}}})
	here.Check(t, apptest.Scenario{Name: "EndOthers", Method: "POST", URL: "/studio/account/sessions/end-others",
		Form: url.Values{"csrf_token": {here.Token()}}, ExpectedStatus: http.StatusSeeOther})
	here.Check(t, apptest.Scenario{Name: "InTurkish", URL: "/studio/account", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Başka her yerdeki oturumlarınız kapatıldı.", "Başka 1 oturum kapatıldı."}})
	tablet.Check(t, apptest.Scenario{Name: "TabletOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
	if s := apiStatus(a, t, token); s != http.StatusOK {
		t.Errorf("the token after signing out everywhere else: %d, want 200", s)
	}
	if n := count(a, t, `SELECT count(*) FROM audit WHERE action = 'account.sessions_ended'`); n != 2 {
		t.Errorf("%d audit rows of signing out everywhere else, want 2", n)
	}
}

// The use cases of people, accounts and agent keys, each classified by
// whom it acts on. An "account-wide" one acts on another person's whole
// account: TestAccountWideActs tries each. A use case added later fails
// this classification until someone says which it is.
var accountUseCases = map[string]string{
	// engine/people
	"people.Members": "site", "people.Authors": "site", "people.Invitations": "site", "people.Invite": "site",
	"people.RevokeInvitation": "site", "people.SetRole": "site", "people.Remove": "site",
	"people.Open": "link", "people.Accept": "link", "people.OpenReset": "link", "people.Reset": "link",
	"people.ResetLink":      "account-wide",
	"people.RevokeKeysWith": "wiring", // services hands it engine/agents (removals revoke keys)
	// engine/identity: one's own account, an operator's tools, or the
	// reading of a secret.
	"identity.AddExisting": "operator", "identity.AddUser": "operator", "identity.CreateDeployToken": "operator",
	"identity.RevokeDeployToken": "operator", "identity.DeployToken": "secret", "identity.TokenUser": "secret",
	"identity.SignIn": "secret", "identity.SessionUser": "secret",
	"identity.ChangePassword": "own", "identity.EndOtherSessions": "own", "identity.EndSession": "own",
	"identity.KeepSession": "own", "identity.Sessions": "own", "identity.SetLanguage": "own", "identity.SetProfile": "own",
	"identity.StartSession": "own", "identity.CreateToken": "own", "identity.Tokens": "own", "identity.RevokeToken": "own",
	"identity.Memberships": "own", "identity.OnSite": "own", "identity.User": "own",
	// engine/agents: a key belongs to one site.
	"agents.Authenticate": "secret", "agents.Key": "site", "agents.KeyUser": "site", "agents.Keys": "site", "agents.Mint": "own",
	"agents.MintForAutomation": "site", "agents.MintForNewAutomation": "site", "agents.OwnerRemoved": "site", "agents.Revoke": "site",
}

// Studio routes that name a person, or act on an account: per site, one's
// own, or account-wide (tried by TestAccountWideActs).
var accountRoutes = map[string]string{
	"POST /studio/people/{id}/role":           "site",
	"POST /studio/people/{id}/remove":         "site",
	"POST /studio/people/{id}/reset-password": "account-wide",
}

// TestAccountWideActs is issue 36's sweep of account-wide acts: every one
// (each Studio route and each engine use case the tables above call
// account-wide), tried by an Owner and by an Administrator of the Gazette
// on each member of the Gazette whom they do not manage everywhere (an
// Owner, Administrator, Editor, Author or Contributor of Zeta Times, where
// they are not members; a Contributor of a third site where they are only
// Editors; an Owner of it where the Administrator is one too): each is
// refused (member_elsewhere), audited on the Gazette, and no account
// changes. Every use case and route of the area is classified, so a new
// one fails here until someone says whom it acts on.
func TestAccountWideActs(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	z := apptest.NewZeta(t, a)
	ctx := context.Background()
	for name, v := range map[string]any{"people": a.People, "identity": a.Identity, "agents": a.Agents} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumMethod() {
			m := name + "." + typ.Method(i).Name
			if _, ok := accountUseCases[m]; !ok {
				t.Errorf("%s is not classified: whom does it act on? (accountUseCases)", m)
			}
		}
	}
	var wideRoutes []string
	for _, rt := range routeTable() {
		key := rt.Method + " " + rt.Pattern
		kind, ok := accountRoutes[key]
		if !ok && (strings.Contains(rt.Pattern, "/people/{id}") || strings.Contains(rt.Pattern, "/users/")) {
			t.Errorf("%s names a person but is not classified (accountRoutes)", key)
		}
		if kind == "account-wide" {
			wideRoutes = append(wideRoutes, key)
		}
	}
	for _, rt := range apptest.APIRouteTable() {
		rt := rt.Method + " " + rt.Pattern
		if strings.Contains(rt, "/people") || strings.Contains(rt, "/users") || strings.Contains(rt, "/account") || strings.Contains(rt, "/tokens") {
			t.Errorf("%s acts on people or accounts but is not classified", rt)
		}
	}
	if len(wideRoutes) == 0 {
		t.Fatal("no account-wide route: is the table read?")
	}

	gazette := a.Site.ID
	oya := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	ali := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	third, err := a.Setup.AddSite(ctx, "Kappa Weekly", "https://kappa.example", "Europe/Istanbul", "en")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []engine.User{oya, ali} {
		if err := a.Store.AddMember(ctx, third.ID, u.ID, policy.Editor, apptest.Start); err != nil {
			t.Fatal(err)
		}
	}
	// Each target writes for the Gazette, has a session, a token and an
	// agent key.
	var targets []engine.User
	add := func(siteID, email, name string, role policy.Role) engine.User {
		u := a.AddUserOn(t, siteID, email, name, role)
		if err := a.Store.AddMember(ctx, gazette, u.ID, policy.Contributor, apptest.Start); err != nil {
			t.Fatal(err)
		}
		u.Role = role
		if _, err := a.Identity.StartSession(ctx, u, "Firefox/140.0"); err != nil {
			t.Fatal(err)
		}
		credentials(a, t, u, siteID)
		targets = append(targets, u)
		return u
	}
	for _, role := range policy.Roles {
		add(z.Site.ID, string(role)+"@zeta.example", "Zeta "+string(role), role)
	}
	kim := add(third.ID, "kim@kappa.example", "Kim Kappacontributor", policy.Contributor)
	add(third.ID, "kaan@kappa.example", "Kaan Kappaowner", policy.Owner)
	// Ali is an Administrator of Kappa: he manages Kim everywhere (not
	// tried), but not Kappa's Owner.
	if _, err := a.Store.DB().Exec(`UPDATE memberships SET role = 'admin' WHERE site_id = ? AND user_id = ?`, third.ID, ali.ID); err != nil {
		t.Fatal(err)
	}

	actors := map[string]*apptest.Client{oya.ID: a.SignedIn(t, oya), ali.ID: a.SignedIn(t, ali)}
	calls, mismatches := 0, 0
	for _, actor := range []engine.User{oya, ali} {
		for _, target := range targets {
			if actor.ID == ali.ID && target.ID == kim.ID {
				continue
			}
			tries := map[string]func() error{}
			for _, route := range wideRoutes {
				c := actors[actor.ID]
				method, pattern, _ := strings.Cut(route, " ")
				tries[route] = func() error {
					// On the Gazette by name: Oya is on Kappa Weekly too.
					path := templates.SitePrefix + gazette + strings.TrimPrefix(strings.ReplaceAll(pattern, "{id}", target.ID), "/studio")
					res := c.Do(method, path, url.Values{"csrf_token": {c.Token()}}, nil)
					if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "they also work on a site where you do not manage them") {
						return errors.New(res.Raw.Status + ": " + apptest.Excerpt(res.Body))
					}
					return nil
				}
			}
			tries["people.ResetLink"] = func() error {
				_, _, err := a.People.ResetLink(ctx, actor, gazette, target.ID)
				if e, ok := engine.AsError(err); !ok || e.Code != people.CodeMemberElsewhere {
					return errors.New("not refused member_elsewhere: " + errString(err))
				}
				return nil
			}
			for name, try := range tries {
				if kind := accountUseCases[name]; kind != "account-wide" && accountRoutes[name] != "account-wide" {
					t.Fatalf("%s is tried but not classified account-wide", name)
				}
				before := accounts(a, t)
				audited := count(a, t, `SELECT count(*) FROM audit WHERE site_id = ? AND action = 'member.password_reset_refused'
					AND json_extract(details, '$.userId') = ? AND json_extract(actor, '$.id') = ?`, gazette, target.ID, actor.ID)
				calls++
				var wrong []string
				if err := try(); err != nil {
					wrong = append(wrong, err.Error())
				}
				if after := accounts(a, t); after != before {
					wrong = append(wrong, "an account changed")
				}
				if n := count(a, t, `SELECT count(*) FROM audit WHERE site_id = ? AND action = 'member.password_reset_refused'
					AND json_extract(details, '$.userId') = ? AND json_extract(actor, '$.id') = ?`, gazette, target.ID, actor.ID); n != audited+1 {
					wrong = append(wrong, fmt.Sprintf("%d refusal rows, want %d", n, audited+1))
				}
				if len(wrong) > 0 {
					mismatches++
					t.Errorf("%s by %s on %s: %s", name, actor.Name, target.Name, strings.Join(wrong, "; "))
				}
			}
		}
	}
	if want := 2*len(targets) - 1; calls != want*(len(wideRoutes)+1) {
		t.Errorf("%d calls, want %d", calls, want*(len(wideRoutes)+1))
	}
	t.Logf("account-wide sweep: %d calls (%d routes and 1 use case × %d actor-target pairs), mismatches: %d",
		calls, len(wideRoutes), 2*len(targets)-1, mismatches)
	if n := count(a, t, `SELECT count(*) FROM password_resets`); n != 0 {
		t.Errorf("%d reset links were made", n)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
