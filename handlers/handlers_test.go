package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"studio/engine/agents"
	"studio/engine/automations"
	"sync"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
)

func TestSignIn(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)

	t.Run("English", func(t *testing.T) {
		c := a.Client(t, "en-GB,en;q=0.9")
		token := c.CSRF("/studio/login")
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Form", URL: "/studio/login", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<html lang="en">`, `<form method="post" action="/studio/login"`,
					`name="email"`, `name="password" type="password"`, `name="csrf_token" value="` + token + `"`, "Sign in to Studio"},
				NotExpectedContent: []string{"Sign out"}},
			{Name: "WrongPassword", Method: "POST", URL: "/studio/login",
				Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {"wrong password"}},
				ExpectedStatus: http.StatusUnauthorized,
				ExpectedContent: []string{`data-testid="alert">The email or the password is wrong.</p>`,
					`value="` + a.Editor.Email + `"`},
				NotExpectedContent: []string{"wrong password", "Elif Editor"}},
			{Name: "UnknownEmail", Method: "POST", URL: "/studio/login",
				Form:            url.Values{"csrf_token": {token}, "email": {"nobody@example.com"}, "password": {apptest.Password}},
				ExpectedStatus:  http.StatusUnauthorized,
				ExpectedContent: []string{"The email or the password is wrong."}},
			{Name: "NoToken", Method: "POST", URL: "/studio/login",
				Form:            url.Values{"email": {a.Editor.Email}, "password": {apptest.Password}},
				ExpectedStatus:  http.StatusForbidden,
				ExpectedContent: []string{"This form has expired."}},
			{Name: "StillSignedOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}},
		})
	})

	t.Run("Turkish", func(t *testing.T) {
		c := a.Client(t, "tr-TR,tr;q=0.9,en;q=0.5")
		token := c.CSRF("/studio/login")
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Form", URL: "/studio/login", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`<html lang="tr">`, "Giriş yap", "Parola"}},
			{Name: "WrongPassword", Method: "POST", URL: "/studio/login",
				Form:               url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {"yanlış parola"}},
				ExpectedStatus:     http.StatusUnauthorized,
				ExpectedContent:    []string{`data-testid="alert">E-posta ya da parola yanlış.</p>`},
				NotExpectedContent: []string{"The email or the password is wrong."}},
		})
	})

	t.Run("SignInAndOut", func(t *testing.T) {
		c := a.Client(t, "")
		token := c.CSRF("/studio/login")
		// Looking at the form stores no session; choosing a language does.
		c.Check(t, apptest.Scenario{Name: "Language", Method: "POST", URL: "/studio/lang",
			Form: url.Values{"csrf_token": {token}, "lang": {"en"}}, ExpectedStatus: http.StatusSeeOther})
		before := c.Cookie(apptest.SessionCookie)
		if before == "" {
			t.Fatal("no session cookie after choosing a language")
		}
		res := c.Check(t, apptest.Scenario{Name: "CorrectPassword", Method: "POST", URL: "/studio/login",
			Form:            url.Values{"csrf_token": {token}, "email": {"EDITOR@example.com"}, "password": {apptest.Password}},
			ExpectedStatus:  http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio"}})
		var ck *http.Cookie
		for _, k := range res.Raw.Cookies() {
			if k.Name == apptest.SessionCookie {
				ck = k
			}
		}
		if ck == nil {
			t.Fatal("sign-in set no session cookie")
		}
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
			t.Errorf("session cookie HttpOnly=%v SameSite=%v Path=%q, want HttpOnly, Lax, /", ck.HttpOnly, ck.SameSite, ck.Path)
		}
		if ck.Value == before {
			t.Errorf("session token not renewed on sign-in: still %q", before)
		}
		// The token from before sign-in is worth nothing now.
		fixed := a.Client(t, "")
		fixed.SetCookie(apptest.SessionCookie, before)
		fixed.Check(t, apptest.Scenario{Name: "OldToken", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": apptest.LoginNext("/studio/schedules")}})

		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "Root", URL: "/studio", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/s/" + a.Site.ID + "/schedules"}},
			{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="user-name">Elif Editor · Editor</span>`, "Sign out"}},
			{Name: "LoginFormWhenSignedIn", URL: "/studio/login", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio"}},
			{Name: "SignOutWithoutToken", Method: "POST", URL: "/studio/logout", ExpectedStatus: http.StatusForbidden},
		})
		token = c.Token() // renewed at sign-in
		res = c.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout",
			Form: url.Values{"csrf_token": {token}}, ExpectedStatus: http.StatusSeeOther,
			ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "AfterSignOut", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/login?next=%2Fstudio%2Fschedules"}},
		})
	})

	t.Run("Next", func(t *testing.T) {
		for _, tc := range []struct{ Name, Next, Location string }{
			{"InsideStudio", "/studio/content", "/studio/content"},
			{"WithQuery", "/studio/content?kind=page", "/studio/content?kind=page"},
			{"OtherHost", "//evil.example/studio", "/studio"},
			{"Absolute", "https://evil.example/studio", "/studio"},
			{"PublicSite", "/posts/welcome", "/studio"},
			{"Empty", "", "/studio"},
		} {
			t.Run(tc.Name, func(t *testing.T) {
				c := a.Client(t, "")
				token := c.CSRF(apptest.LoginNext(tc.Next))
				c.Check(t, apptest.Scenario{Method: "POST", URL: "/studio/login",
					Form:           url.Values{"csrf_token": {token}, "email": {a.Editor.Email}, "password": {apptest.Password}, "next": {tc.Next}},
					ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": tc.Location}})
			})
		}
		c := a.Client(t, "")
		c.Check(t, apptest.Scenario{Name: "FormKeepsNext", URL: apptest.LoginNext("/studio/content"), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`name="next" value="/studio/content"`}})
	})
}

// postForms are valid forms (but for the CSRF token) for the POST routes of
// the route table, by pattern; a route missing here is posted empty.
func postForms(a *apptest.App) map[string]url.Values {
	return map[string]url.Values{
		"/studio/login":                    {"email": {a.Editor.Email}, "password": {apptest.Password}},
		"/studio/lang":                     {"lang": {"tr"}},
		"/studio/releases/{id}/unschedule": {"rev": {"1"}},
		"/studio/releases/{id}/cancel":     {"rev": {"1"}},
		"/studio/releases/{id}/move":       {"rev": {"1"}, "date": {"2026-11-02"}, "time": {"10:30"}},
		"/studio/content":                  {"kind": {"contentEntry"}, "title": {"Results"}, "slug": {"results"}, "status": {"draft"}},
		"/studio/content/{id}":             {"rev": {"1"}, "kind": {"contentEntry"}, "title": {"Election night"}, "slug": {"election-night"}, "status": {"draft"}},
		"/studio/content/{id}/schedule":    {"rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		"/studio/content/{id}/delete":      {"rev": {"1"}},
		"/studio/content/{id}/gates":       {"rev": {"1"}, "from_date": {"2026-11-03"}, "from_time": {"09:00"}},
		"/studio/settings/time-zone":       {"rev": {"2"}, "timeZone": {"Europe/Berlin"}},
		"/studio/settings/lang":            {"rev": {"2"}, "lang": {"en"}},
		"/studio/settings/address":         {"rev": {"2"}, "publicUrl": {"https://gazette.example"}, "defaultHost": {"on"}},
		"/studio/settings/pause":           {"rev": {"0"}, "reason": {"Checking the feed"}, "confirm": {"yes"}},
		"/studio/settings/resume":          {"rev": {"1"}, "reason": {"Feed checked"}, "confirm": {"yes"}},
		"/studio/settings/daily-write-cap": {"rev": {"0"}, "dailyWriteCap": {"150"}},
		"/studio/approvals/{id}/deny":      {"reason": {"Not before the polls close."}},
		"/studio/tokens":                   {"name": {"deploy script"}},
		"/studio/agents":                   {"name": {"weekly planner"}, "mode": {"edits"}},

		// The test's release is scheduled at 10:00: publishing it early is a
		// manual run too (§13), so no missed release is needed here.
		"/studio/releases/{id}/publish-now": {"rev": {"1"}, "confirm": {"yes"}},

		// The Month grid's move (month.go), posted as a page: Move's.
		"/studio/releases/{id}/move-calendar": {"rev": {"1"}, "date": {"2026-11-02"}, "time": {"10:30"}},
	}
}

// routeURL fills a route pattern's {id} with a real id: the release for
// release routes, the request for approval routes, the draft article for
// content routes.
func routeURL(pattern, releaseID, nodeID, approvalID string) string {
	id := nodeID
	switch {
	case strings.HasPrefix(pattern, "/studio/releases/"):
		id = releaseID
	case strings.HasPrefix(pattern, "/studio/approvals/"):
		id = approvalID
	}
	u := strings.ReplaceAll(pattern, "{id}", id)
	if strings.HasSuffix(pattern, "/preview") {
		u += "?date=2026-11-02&time=09:00"
	}
	return u
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	for _, rt := range routeTable() {
		if rt.Method != http.MethodPost {
			continue
		}
		t.Run(rt.Method+" "+rt.Pattern, func(t *testing.T) {
			t.Parallel() // each route on an app of its own: the longest test of the package when one after another
			a := apptest.New(t)
			rel := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
			u := routeURL(rt.Pattern, rel.ID, a.Draft.ID, a.PendingRequest(t))
			form := postForms(a)[rt.Pattern]
			if du, df, ok := draftRoute(a, t, rt.Pattern); ok { // a draft release to change (drafts_test.go)
				u, form = du, df
			}
			if rt.Pattern == "/studio/releases/{id}/undo" { // a published release to undo
				a.Clock.Set(rel.When.At)
				if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
					t.Fatal(err)
				}
				site, err := a.Engine.Site(context.Background(), a.Site.ID)
				if err != nil {
					t.Fatal(err)
				}
				form = url.Values{"site_rev": {fmt.Sprint(site.Rev)}}
			}
			if rt.Pattern == "/studio/content/publish" { // something visible to publish
				a.CreateNode(t, release.KindPage, content.Body{Title: "Contact", Slug: "contact", Status: content.StatusPublished})
			}
			who := a.Editor
			if !policy.Has(who.Role, rt.Scope) { // site settings are an administrator's
				who = a.Admin(t)
			}
			if rt.Pattern == "/studio/settings/resume" { // something to resume
				a.PauseSchedules(t, "Checking the feed")
			}
			want := http.StatusSeeOther
			switch rt.Pattern {
			case "/studio/tokens", "/studio/agents": // the new secret is the answer itself, never kept for a redirect
				want = http.StatusOK
			case "/studio/agents/{id}/revoke": // one of the person's own agent keys
				k, _, err := a.Agents.Mint(context.Background(), who, a.Site.ID, agents.KeyInput{Name: "planner", Mode: policy.ModePlan})
				if err != nil {
					t.Fatal(err)
				}
				u = "/studio/agents/" + k.ID + "/revoke"
			case "/studio/tokens/{id}/revoke": // one of the person's own tokens
				_, tok, err := a.Identity.CreateToken(context.Background(), who, "script", nil)
				if err != nil {
					t.Fatal(err)
				}
				u = "/studio/tokens/" + tok.ID + "/revoke"
			}
			switch rt.Pattern {
			case "/studio/releases/{id}/repin", "/studio/releases/{id}/rebase": // a release held as a conflict
				held := a.ConflictRelease(t)
				u = strings.ReplaceAll(rt.Pattern, "{id}", held.ID)
				form = url.Values{"rev": {fmt.Sprint(held.Rev)}, "date": {"2026-11-02"}, "time": {"10:30"}}
			case "/studio/content/{id}/edit-scheduled": // the node the test's release holds
				u, form = a.EditScheduledForm(t, rel)
			case "/studio/content/{id}/gates/lift": // a live embargo to lift (gates_test.go)
				u, form = a.EmbargoLive(t)
			case "/studio/content/{id}/media": // a media file, saved without a new file (content_address_test.go)
				u, form = "/studio/content/"+mediaFile(a, t).ID+"/media", url.Values{"rev": {"1"}, "title": {"Cover"},
					"slug": {"cover.png"}, "alt": {"A cover"}, "status": {"draft"}}
			case "/studio/schedules/automations/{id}/run-now": // an automation to run
				u = "/studio/schedules/automations/" + a.BrokenLinkCheck(t, who).ID + "/run-now"
			case "/studio/schedules/automations": // the editor's new automation (automations_studio_test.go)
				form = apptest.EditorForm("", "MO", "TH")
			case "/studio/schedules/automations/{id}", "/studio/schedules/automations/{id}/pause",
				"/studio/schedules/automations/{id}/delete": // an automation to save, pause or delete at its rev
				u = strings.ReplaceAll(rt.Pattern, "{id}", a.BrokenLinkCheck(t, who).ID)
				form = apptest.EditorForm("", "TU")
				form.Set("rev", "1")
			case "/studio/schedules/automations/{id}/resume": // a paused automation to resume
				au := a.BrokenLinkCheck(t, who)
				if _, err := a.Automations.Pause(context.Background(), who, a.Site.ID, au.ID, au.Rev); err != nil {
					t.Fatal(err)
				}
				u, form = strings.ReplaceAll(rt.Pattern, "{id}", au.ID), url.Values{"rev": {fmt.Sprint(au.Rev + 1)}}
			case "/studio/schedules/automations/{id}/take-over": // an Editor's agent task, taken over by an Administrator
				who = a.Admin(t)
				no := false
				task, err := a.Automations.Create(context.Background(), a.Editor, a.Site.ID, automations.Input{Name: "Planner", Preset: "daily",
					Start: "2026-11-03T09:00", Task: &automations.TaskInput{Instructions: "Plan.", ModeCap: policy.ModeManual,
						ReadsUntrustedText: &no, WindowMinutes: 30}})
				if err != nil {
					t.Fatal(err)
				}
				u, form, want = strings.ReplaceAll(rt.Pattern, "{id}", task.ID), url.Values{"rev": {fmt.Sprint(task.Rev)}}, http.StatusOK
			case "/studio/schedules/runs/{id}/dismiss": // a finding of a run (history_test.go)
				u, form = dismissForm(a, t)
			case "/studio/content/media", "/studio/content/upload": // a new media file needs its file: a multipart upload (content_address_test.go, images_test.go)
				want = http.StatusUnprocessableEntity
			case "/studio/setup": // gone once Studio is set up; a first run's own is in setup_test.go
				want = http.StatusNotFound
			case "/studio/account/profile": // the person's own name and language (account_test.go)
				form = url.Values{"name": {who.Name}, "lang": {"en"}}
			case "/studio/account/password":
				form = url.Values{"current": {apptest.Password}, "password": {"another long secret"}}
			case "/studio/people/{id}/reset-password": // a member's reset link, the answer itself (people_test.go)
				u, want = "/studio/people/"+a.Contributor.ID+"/reset-password", http.StatusOK
			case "/studio/reset": // a reset link of the contributor's
				secret, _, err := a.People.ResetLink(context.Background(), who, a.Site.ID, a.Contributor.ID)
				if err != nil {
					t.Fatal(err)
				}
				form = url.Values{"token": {secret}, "password": {"another long secret"}}
			case "/studio/content/preview-text": // the editor's preview: a fragment (images_test.go)
				form, want = url.Values{"body": {"**Results**"}}, http.StatusOK
			case "/studio/people/invitations": // the new link is the answer itself (people_test.go)
				form, want = url.Values{"email": {"new@example.com"}, "role": {"editor"}}, http.StatusOK
			case "/studio/people/invitations/{id}/revoke": // an open invitation
				_, inv, err := a.People.Invite(context.Background(), who, a.Site.ID, "new@example.com", policy.Author)
				if err != nil {
					t.Fatal(err)
				}
				u = "/studio/people/invitations/" + inv.ID + "/revoke"
			case "/studio/account/sessions/{id}/end": // another session of the person's (account_test.go)
				a.SignedIn(t, who)
				u = "/studio/account/sessions/" + a.LastSession(t, who, "") + "/end"
			case "/studio/sites": // a new site, made by an Owner (sites_test.go)
				who = a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
				form = url.Values{"siteName": {"Kuzey"}, "publicUrl": {"https://kuzey.example"}, "timeZone": {"Europe/Istanbul"}, "siteLang": {"tr"}}
			case "/studio/people/{id}/role": // a member to change
				u, form = "/studio/people/"+a.Contributor.ID+"/role", url.Values{"role": {"author"}}
			case "/studio/people/{id}/remove": // a member to remove
				u = "/studio/people/" + a.AddUser(t, "leaving@example.com", "Leyla", policy.Author, "en").ID + "/remove"
			case "/studio/join": // an invitation's link, taken up by a new account
				secret, _, err := a.People.Invite(context.Background(), who, a.Site.ID, "new@example.com", policy.Author) // who is an administrator: nobody holds "anyone"
				if err != nil {
					t.Fatal(err)
				}
				form = url.Values{"token": {secret}, "name": {"Nur"}, "password": {apptest.Password}}
			}
			c := a.SignedIn(t, who)
			token := c.Token()
			before := a.Fingerprint(t)
			apptest.RunScenarios(t, c, []apptest.Scenario{
				{Name: "NoToken", Method: "POST", URL: u, Form: apptest.WithToken(form, ""),
					ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"This form has expired."}},
				{Name: "WrongToken", Method: "POST", URL: u, Form: apptest.WithToken(form, apptest.WrongToken(token)),
					ExpectedStatus: http.StatusForbidden, ExpectedContent: []string{"This form has expired."}},
				{Name: "WrongHeader", Method: "POST", URL: u, Form: apptest.WithToken(form, ""),
					Header:         map[string]string{"HX-Request": "true", "X-CSRF-Token": apptest.WrongToken(token)},
					ExpectedStatus: http.StatusForbidden},
				{Name: "OtherSessionsToken", Method: "POST", URL: u,
					Form: apptest.WithToken(form, a.Client(t, "").CSRF("/studio/login")), ExpectedStatus: http.StatusForbidden},
				{Name: "StillSignedIn", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
					ExpectedContent: []string{who.Name, `<html lang="en">`}},
			})
			if after := a.Fingerprint(t); after != before {
				t.Errorf("a refused POST changed state:\nbefore %s\nafter  %s", before, after)
			}
			// The same form with the token goes through: the 403s above
			// came from the token alone.
			c.Check(t, apptest.Scenario{Name: "WithToken", Method: "POST", URL: u, Form: apptest.WithToken(form, token),
				ExpectedStatus: want})
		})
	}

	t.Run("HTMXHeader", func(t *testing.T) {
		t.Parallel()
		a := apptest.New(t)
		c := a.SignedIn(t, a.Editor)
		token := c.Token()
		hx := map[string]string{"HX-Request": "true", "X-CSRF-Token": token}
		c.Check(t, apptest.Scenario{Name: "Schedule", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form: url.Values{"rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}}, Header: hx,
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		if n := a.ReleaseCount(t); n != 1 {
			t.Errorf("%d releases after an htmx schedule, want 1", n)
		}
		c.Check(t, apptest.Scenario{Name: "Language", Method: "POST", URL: "/studio/lang",
			Form: url.Values{"lang": {"tr"}}, Header: hx, ExpectedStatus: http.StatusSeeOther})
		c.Check(t, apptest.Scenario{Name: "Turkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`}})
	})
}

func TestRouteTable(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	rel := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
	req := a.PendingRequest(t)
	forms := postForms(a)

	t.Run("SignedOut", func(t *testing.T) {
		c := a.Client(t, "")
		token := c.CSRF("/studio/login")
		before := a.Fingerprint(t)
		for _, rt := range routeTable() {
			if rt.Scope == handlers.Anyone {
				continue
			}
			u := routeURL(rt.Pattern, rel.ID, a.Draft.ID, req)
			var form url.Values
			if rt.Method == http.MethodPost {
				form = apptest.WithToken(forms[rt.Pattern], token)
			}
			// A page comes back to itself after sign-in; a form post or a
			// fragment is not a page, so it comes back to where the person
			// was (here: nowhere known, so Studio's start).
			back := apptest.LoginNext(u)
			if rt.Method != http.MethodGet {
				back = apptest.LoginNext("/studio")
			}
			if handlers.StudioBodies()[rt.Method+" "+rt.Pattern].JSON {
				// A script's route cannot follow a sign-in page: it is told
				// in JSON, htmx or not.
				for _, h := range []map[string]string{nil, {"HX-Request": "true"}} {
					apptest.RunScenarios(t, c, []apptest.Scenario{{Name: rt.Method + " " + rt.Pattern + " JSON", Method: rt.Method, URL: u, Form: form,
						Header: h, ExpectedStatus: http.StatusUnauthorized, ExpectedContent: []string{`{"error":{"code":"signed_out","message":"You are signed out.`},
						ExpectedHeaders: map[string]string{"Content-Type": "application/json; charset=utf-8", "Location": ""}}})
				}
				continue
			}
			apptest.RunScenarios(t, c, []apptest.Scenario{
				{Name: rt.Method + " " + rt.Pattern, Method: rt.Method, URL: u, Form: form,
					ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": back}},
				{Name: rt.Method + " " + rt.Pattern + " htmx", Method: rt.Method, URL: u, Form: form,
					Header:          map[string]string{"HX-Request": "true"},
					ExpectedStatus:  http.StatusUnauthorized,
					ExpectedHeaders: map[string]string{"HX-Redirect": apptest.LoginNext("/studio"), "Location": ""}},
			})
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("signed-out requests changed state:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("Contributor", func(t *testing.T) {
		c := a.SignedIn(t, a.Contributor)
		token := c.Token()
		before := a.Fingerprint(t)
		refused := 0
		for _, rt := range routeTable() {
			if rt.Scope == handlers.Anyone || policy.Has(policy.Contributor, rt.Scope) {
				continue
			}
			refused++
			u := routeURL(rt.Pattern, rel.ID, a.Draft.ID, req)
			var form url.Values
			if rt.Method == http.MethodPost {
				form = apptest.WithToken(forms[rt.Pattern], token)
			}
			c.Check(t, apptest.Scenario{Name: rt.Method + " " + rt.Pattern, Method: rt.Method, URL: u, Form: form,
				ExpectedStatus:  http.StatusForbidden,
				ExpectedContent: []string{"Your role does not allow this."}})
		}
		if refused == 0 {
			t.Error("no route needs a scope a contributor lacks; site:publish should")
		}
		if after := a.Fingerprint(t); after != before {
			t.Errorf("refused requests changed state:\nbefore %s\nafter  %s", before, after)
		}
		// The pages a contributor may see open.
		for _, rt := range routeTable() {
			if rt.Method != http.MethodGet || rt.Scope == handlers.Anyone || !policy.Has(policy.Contributor, rt.Scope) {
				continue
			}
			u := routeURL(rt.Pattern, rel.ID, a.Draft.ID, req)
			want := http.StatusOK
			if rt.Pattern == "/studio" || strings.HasPrefix(rt.Pattern, "/studio/schedules/month/") {
				want = http.StatusSeeOther // the Month grid's fragments, asked for as pages, send to the page
			}
			if rt.Pattern == "/studio/content/{id}/preview" {
				want = http.StatusSeeOther // mints a preview link and sends to it
			}
			if rt.Pattern == "/studio/content/{id}/file" { // a media file's image
				u = "/studio/content/" + mediaFile(a, t).ID + "/file"
			}
			if rt.Pattern == "/studio/schedules/automations/{id}" { // an automation, read-only for a contributor
				u = "/studio/schedules/automations/" + a.BrokenLinkCheck(t, a.Editor).ID
			}
			if rt.Pattern == "/studio/schedules/runs/{id}" { // a run's page (history_test.go)
				u = "/studio/schedules/runs/" + finishedRun(a, t).ID
			}
			c.Check(t, apptest.Scenario{Name: rt.Method + " " + rt.Pattern, URL: u, ExpectedStatus: want,
				NotExpectedContent: []string{"Your role does not allow this."}})
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		out := a.Client(t, "")
		in := a.SignedIn(t, a.Editor)
		apptest.RunScenarios(t, out, []apptest.Scenario{
			{Name: "SignedOut", URL: "/studio/whatever", ExpectedStatus: http.StatusNotFound},
			{Name: "SignedOutDeep", URL: "/studio/whatever/else", ExpectedStatus: http.StatusNotFound},
		})
		apptest.RunScenarios(t, in, []apptest.Scenario{
			{Name: "SignedIn", URL: "/studio/whatever", ExpectedStatus: http.StatusNotFound},
			{Name: "Node", URL: "/studio/content/ent_doesnotexist00", ExpectedStatus: http.StatusNotFound,
				ExpectedContent: []string{"This page does not exist, or it was deleted."}},
			{Name: "Release", URL: "/studio/releases/rel_doesnotexist00", ExpectedStatus: http.StatusNotFound,
				ExpectedContent: []string{"This page does not exist, or it was deleted."}},
			{Name: "ScheduleForm", URL: "/studio/content/ent_doesnotexist00/schedule", ExpectedStatus: http.StatusNotFound},
		})
	})
}

func TestScheduleForm(t *testing.T) {
	t.Parallel()

	t.Run("ZoneNote", func(t *testing.T) {
		a := apptest.New(t)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		a.SignedIn(t, a.Editor).Check(t, apptest.Scenario{Name: "English", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="zone-note">Times are in Istanbul (UTC+3) time.</p>`,
				"Schedule “Election night live”", `name="rev" value="1"`, `min="2026-11-02"`,
				"It will be published at this time without further approval."}})
		a.SetLang(t, a.Contributor, "tr")
		a.SignedIn(t, a.Contributor).Check(t, apptest.Scenario{Name: "Turkish", URL: u, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`id="zone-note">Saatler İstanbul saatine (UTC+3) göredir.</p>`,
				"“Election night live” için yayım zamanla",
				"Yayımlanmadan önce bir editörün onaylaması gerekir."},
			NotExpectedContent: []string{"Istanbul ("}})
	})

	t.Run("Schedule", func(t *testing.T) {
		a := apptest.New(t)
		c := a.SignedIn(t, a.Editor)
		token := c.CSRF("/studio/content/" + a.Draft.ID + "/schedule")
		c.Check(t, apptest.Scenario{Name: "Post", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		agenda := c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<p class="notice">Scheduled.</p>`,
				`<h2 id="day-2026-11-02">Today · Monday 2 November</h2>`,
				`<time datetime="2026-11-02T06:00:00Z">09:00 Istanbul</time>`,
				">Election night live</a>", `data-state="scheduled">Scheduled</span>`, "by Elif Editor"}})
		ids := apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 1 {
			t.Fatalf("Agenda lists releases %v, want one", ids)
		}
		c.Check(t, apptest.Scenario{Name: "FlashOnce", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			NotExpectedContent: []string{`<p class="notice">`}})
		c.Check(t, apptest.Scenario{Name: "Release", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Election night live</h1>", `data-state="scheduled">Scheduled</span>`,
				"Monday 2 November 2026", "09:00 Istanbul", "pinned version 2", "Not live",
				`data-testid="unschedule">Unschedule</button>`, `data-testid="cancel">Cancel</button>`}})
		// Scheduling it again is an overlap (D15, §6.2): warned, allowed,
		// and flagged on both release pages with the other's time.
		c.Check(t, apptest.Scenario{Name: "Held", URL: "/studio/content/" + a.Draft.ID + "/schedule", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`data-testid="overlap">This is already in another release, publishing Monday 2 November 09:00. You can still schedule it`},
			NotExpectedContent: []string{`data-testid="alert"`}})
		c.Check(t, apptest.Scenario{Name: "ScheduleAgain", Method: "POST", URL: "/studio/content/" + a.Draft.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-02"}, "time": {"10:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		if n := a.ReleaseCount(t); n != 2 {
			t.Errorf("%d releases, want 2", n)
		}
		both := apptest.AgendaReleaseIDs(c.Check(t, apptest.Scenario{Name: "AgendaOverlap", URL: "/studio/schedules", ExpectedStatus: http.StatusOK}).Body)
		if len(both) != 2 || both[0] != ids[0] {
			t.Fatalf("Agenda lists releases %v, want %s and the 10:00 one", both, ids[0])
		}
		c.Check(t, apptest.Scenario{Name: "FirstFlagsTheLater", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap-` + both[1] + `"`}})
		c.Check(t, apptest.Scenario{Name: "LaterFlagsTheFirst", URL: "/studio/releases/" + both[1], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap-` + ids[0] + `"`}})

		// A live article with a newer working copy: both versions show.
		if _, err := a.Nodes.SaveNode(context.Background(), a.Editor, a.Site.ID, a.Live.ID, 1,
			apptest.WithTitle(a.Live.Body, "Welcome to the Gazette, again")); err != nil {
			t.Fatal(err)
		}
		c.Check(t, apptest.Scenario{Name: "PostLive", Method: "POST", URL: "/studio/content/" + a.Live.ID + "/schedule",
			Form:           url.Values{"csrf_token": {token}, "rev": {"2"}, "date": {"2026-11-03"}, "time": {"18:30"}},
			ExpectedStatus: http.StatusSeeOther})
		agenda = c.Check(t, apptest.Scenario{Name: "AgendaTwoDays", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Today · Monday 2 November", "Tomorrow · Tuesday 3 November", "18:30 Istanbul"}})
		ids = apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 3 {
			t.Fatalf("Agenda lists releases %v, want three", ids)
		}
		c.Check(t, apptest.Scenario{Name: "ReleaseOfLive", URL: "/studio/releases/" + ids[2], ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"pinned version 2", "live version 1"},
			NotExpectedContent: []string{"Not live"}})

		// Turkish.
		a.SetLang(t, a.Editor, "tr")
		c.Check(t, apptest.Scenario{Name: "AgendaTurkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, "Bugün · 2 Kasım Pazartesi", "Yarın · 3 Kasım Salı",
				"09:00 İstanbul", `data-state="scheduled">Zamanlandı</span>`, "Elif Editor zamanladı"},
			NotExpectedContent: []string{"Today", "Scheduled", "by Elif"}})
		c.Check(t, apptest.Scenario{Name: "HeldTurkish", URL: "/studio/content/" + a.Draft.ID + "/schedule", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="overlap">Bu içerik başka bir yayın paketinde de var; o paketin yayım zamanı: 2 Kasım Pazartesi 09:00.`}})
		c.Check(t, apptest.Scenario{Name: "ReleaseTurkish", URL: "/studio/releases/" + ids[2], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"sabitlenmiş sürüm 2", "yayındaki sürüm 1", "3 Kasım 2026 Salı",
				">Zamanlamayı kaldır</button>", ">İptal et</button>"}})
	})

	t.Run("BadInput", func(t *testing.T) {
		rows := []struct {
			Name, Date, Time, Rev string
			Status                int
			TestID, En, Tr        string
		}{
			{"MalformedDate", "2026-13-01", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"DottedDate", "02.11.2026", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"NoSuchDay", "2026-02-30", "09:00", "1", 422, "error-date",
				"Enter a date, such as 2026-11-02 for 2 November 2026.", "Geçerli bir tarih girin (örneğin 2 Kasım 2026 için 2026-11-02)."},
			{"MalformedTime", "2026-11-02", "9am", "1", 422, "error-time",
				"Enter a time, such as 09:00.", "Geçerli bir saat girin (örneğin 09:00)."},
			{"NoSuchTime", "2026-11-02", "24:00", "1", 422, "error-time",
				"Enter a time, such as 09:00.", "Geçerli bir saat girin (örneğin 09:00)."},
			{"Past", "2026-11-02", "07:59", "1", 422, "error-time",
				"This time has already passed. Choose a later one.", "Bu saat geçti. Daha sonraki bir saat seçin."},
			{"Yesterday", "2026-11-01", "12:00", "1", 422, "error-time",
				"This time has already passed. Choose a later one.", "Bu saat geçti. Daha sonraki bir saat seçin."},
			{"Now", "2026-11-02", "08:00", "1", 422, "error-time",
				"Choose a time at least one minute from now, or publish now.",
				"En az bir dakika sonrası için bir saat seçin ya da şimdi yayımlayın."},
			{"TooFar", "2027-11-04", "09:00", "1", 422, "error-time",
				"Choose a time within the next 366 days.", "Önümüzdeki 366 gün içinde bir tarih seçin."},
			{"Stale", "2026-11-02", "09:00", "0", 409, "alert",
				"This changed somewhere else meanwhile. Load the latest version and try again.",
				"Bu içerik bu arada başka bir yerde değişti. En güncelini yükleyip yeniden deneyin."},
		}
		a := apptest.New(t)
		en := a.SignedIn(t, a.Editor)
		a.SetLang(t, a.Contributor, "tr")
		tr := a.SignedIn(t, a.Contributor)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		for _, who := range []struct {
			Name string
			c    *apptest.Client
		}{{"English", en}, {"Turkish", tr}} {
			token := who.c.CSRF(u)
			for _, row := range rows {
				msg, other := row.En, row.Tr
				if who.Name == "Turkish" {
					msg, other = row.Tr, row.En
				}
				who.c.Check(t, apptest.Scenario{Name: who.Name + "/" + row.Name, Method: "POST", URL: u,
					Form:           url.Values{"csrf_token": {token}, "rev": {row.Rev}, "date": {row.Date}, "time": {row.Time}},
					ExpectedStatus: row.Status,
					ExpectedContent: []string{`data-testid="` + row.TestID + `">` + msg + `</p>`,
						`data-testid="schedule-form"`, `value="` + row.Date + `"`, `value="` + row.Time + `"`},
					NotExpectedContent: []string{other}})
			}
		}
		if n := a.ReleaseCount(t); n != 0 {
			t.Errorf("%d releases after refused schedules, want none", n)
		}
		if d, err := a.Nodes.Node(context.Background(), a.Editor, a.Site.ID, a.Draft.ID); err != nil || d.Rev != 1 {
			t.Errorf("draft at rev %d (%v) after refused schedules, want 1", d.Rev, err)
		}
		// The last good minute and the first: 366 days ahead is in.
		en.Check(t, apptest.Scenario{Name: "Horizon", Method: "POST", URL: u,
			Form:           url.Values{"csrf_token": {en.Token()}, "rev": {"1"}, "date": {"2027-11-03"}, "time": {"08:00"}},
			ExpectedStatus: http.StatusSeeOther})
	})

	t.Run("Contributor", func(t *testing.T) {
		a := apptest.New(t)
		c := a.SignedIn(t, a.Contributor)
		u := "/studio/content/" + a.Draft.ID + "/schedule"
		c.Check(t, apptest.Scenario{Name: "Post", Method: "POST", URL: u,
			Form:           url.Values{"csrf_token": {c.CSRF(u)}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/schedules"}})
		agenda := c.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Scheduled and sent for approval.", `data-state="awaiting_approval">Waiting for approval</span>`,
				"by Chris Contributor", "Today · Monday 2 November"},
			NotExpectedContent: []string{`data-state="scheduled"`}})
		ids := apptest.AgendaReleaseIDs(agenda.Body)
		if len(ids) != 1 {
			t.Fatalf("Agenda lists releases %v, want one", ids)
		}
		if r := a.Release(t, ids[0]); r.State != release.StateAwaitingApproval {
			t.Errorf("release state %s, want awaiting_approval", r.State)
		}
		// Their own request: they may take it back.
		c.Check(t, apptest.Scenario{Name: "Release", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="unschedule"`, `data-testid="cancel"`}})
	})

	t.Run("UnscheduleAndCancel", func(t *testing.T) {
		a := apptest.New(t)
		first := a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
		second := a.ScheduleAt(t, a.Editor, a.OtherDraft(t), "2026-11-02", "10:00")
		c := a.SignedIn(t, a.Editor)
		token := c.Token()
		apptest.RunScenarios(t, c, []apptest.Scenario{
			{Name: "StaleCancel", Method: "POST", URL: "/studio/releases/" + first.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"7"}}, ExpectedStatus: http.StatusConflict,
				ExpectedContent: []string{`data-testid="alert">This changed somewhere else meanwhile.`}},
			{Name: "Unschedule", Method: "POST", URL: "/studio/releases/" + first.ID + "/unschedule",
				Form: url.Values{"csrf_token": {token}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther,
				ExpectedHeaders: map[string]string{"Location": "/studio/releases/" + first.ID}},
			{Name: "Unscheduled", URL: "/studio/releases/" + first.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent:    []string{"Unscheduled. It is a draft again and can be edited.", `data-state="draft">Draft</span>`},
				NotExpectedContent: []string{`data-testid="unschedule"`}},
			{Name: "Cancel", Method: "POST", URL: "/studio/releases/" + second.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"1"}}, ExpectedStatus: http.StatusSeeOther},
			{Name: "Canceled", URL: "/studio/releases/" + second.ID, ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{"Canceled. Nothing will be published.", `data-state="canceled">Canceled</span>`,
					`data-testid="release-outcome">Canceled on 2 November 2026, 08:00.</dd>`},
				NotExpectedContent: []string{`data-testid="cancel"`, `data-testid="unschedule"`}},
			{Name: "CancelAgain", Method: "POST", URL: "/studio/releases/" + second.ID + "/cancel",
				Form: url.Values{"csrf_token": {token}, "rev": {"2"}}, ExpectedStatus: http.StatusUnprocessableEntity,
				ExpectedContent: []string{"This release can no longer be changed this way."}},
			{Name: "AgendaEmpty", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
				ExpectedContent: []string{`data-testid="agenda-empty"`}},
		})
	})
}

func TestViewerTimeZone(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	preview := "/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-02&time=09:00"
	fragment := map[string]string{"Content-Type": "text/html; charset=utf-8"}

	berlin := a.SignedIn(t, a.Editor)
	berlin.SetCookie("tz", url.QueryEscape("Europe/Berlin")) // as studio.js sets it
	local := a.SignedIn(t, a.Editor)
	local.SetCookie("tz", "Europe%2FIstanbul")
	bogus := a.SignedIn(t, a.Editor)
	bogus.SetCookie("tz", "Mars%2FOlympus")
	plain := a.SignedIn(t, a.Editor)

	apptest.RunScenarios(t, berlin, []apptest.Scenario{
		{Name: "Berlin", URL: preview, ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			ExpectedContent: []string{`data-testid="preview"`, "Monday 2 November", "09:00 Istanbul",
				"07:00 your time, Berlin"},
			NotExpectedContent: []string{"<html", "<body"}},
		{Name: "BadDate", URL: "/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-31&time=09:00",
			ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			NotExpectedContent: []string{`data-testid="preview"`}},
	})
	apptest.RunScenarios(t, plain, []apptest.Scenario{
		{Name: "NoCookie", URL: preview, ExpectedStatus: http.StatusOK, ExpectedHeaders: fragment,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time"}},
	})
	apptest.RunScenarios(t, local, []apptest.Scenario{
		{Name: "SameZone", URL: preview, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time"}},
	})
	apptest.RunScenarios(t, bogus, []apptest.Scenario{
		{Name: "UnknownZone", URL: preview, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"09:00 Istanbul"}, NotExpectedContent: []string{"your time", "Olympus"}},
	})

	// The Agenda shows both clocks too, and Turkish words for them.
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	berlin.Check(t, apptest.Scenario{Name: "Agenda", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"09:00 Istanbul", "07:00 your time, Berlin"}})
	a.SetLang(t, a.Editor, "tr")
	berlin.Check(t, apptest.Scenario{Name: "Turkish", URL: preview, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"2 Kasım Pazartesi", "09:00 İstanbul", "sizin saatinizle 07:00, Berlin"}})
}

// TestSchedulePreviewText reads the preview as a person does: its text.
func TestSchedulePreviewText(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	res := c.Get("/studio/content/" + a.Draft.ID + "/schedule/preview?date=2026-11-02&time=09:00")
	if got, want := textOf(res.Body), "Publishes on Monday 2 November at 09:00 Istanbul"; !strings.Contains(got, want) {
		t.Errorf("preview reads %q, want it to contain %q", got, want)
	}
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

func textOf(html string) string {
	return strings.Join(strings.Fields(tagRe.ReplaceAllString(html, "")), " ")
}

func TestPublicSite(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	anon := a.Client(t, "")
	noStore := map[string]string{"Cache-Control": "no-store"}

	apptest.RunScenarios(t, anon, []apptest.Scenario{
		{Name: "DraftHidden", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound,
			ExpectedHeaders: noStore, NotExpectedContent: []string{"Election night live", "Follow the results"}},
		{Name: "HomeWithoutDraft", URL: "/", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{"Demo Gazette", "Welcome to the Gazette", `href="/about"`},
			NotExpectedContent: []string{"Election night live"}},
		{Name: "LiveArticle", URL: "/posts/welcome", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>Welcome to the Gazette</h1>", "This is the first article."}},
		{Name: "LivePage", URL: "/about", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<h1>About</h1>"}},
		{Name: "UnknownPage", URL: "/nothing-here", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
		{Name: "PageIsNotAPost", URL: "/posts/about", ExpectedStatus: http.StatusNotFound, ExpectedHeaders: noStore},
	})
	homeBefore := anon.Get("/").Header.Get("ETag")

	c := a.SignedIn(t, a.Editor)
	u := "/studio/content/" + a.Draft.ID + "/schedule"
	c.Check(t, apptest.Scenario{Name: "Schedule", Method: "POST", URL: u,
		Form:           url.Values{"csrf_token": {c.CSRF(u)}, "rev": {"1"}, "date": {"2026-11-02"}, "time": {"09:00"}},
		ExpectedStatus: http.StatusSeeOther})

	// A minute early: nothing goes live.
	a.Clock.Set(time.Date(2026, 11, 2, 5, 59, 0, 0, time.UTC))
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 0 {
		t.Fatalf("RunDue at 08:59: %+v, %v; want nothing published", rep, err)
	}
	anon.Check(t, apptest.Scenario{Name: "StillHidden", URL: "/posts/election-night", ExpectedStatus: http.StatusNotFound,
		ExpectedHeaders: noStore})

	a.Clock.Set(time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC))
	if rep, err := a.Scheduler.RunDue(ctx, "manual"); err != nil || rep.Published != 1 {
		t.Fatalf("RunDue at 09:00: %+v, %v; want one published", rep, err)
	}
	res := anon.Check(t, apptest.Scenario{Name: "Live", URL: "/posts/election-night", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<h1>Election night live</h1>", "Follow the results here.",
			`datetime="2026-11-02T06:00:00Z"`},
		ExpectedHeaders: map[string]string{"Cache-Control": "public, max-age=0, must-revalidate"}})
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("a 200 without an ETag")
	}
	home := anon.Check(t, apptest.Scenario{Name: "HomeLists", URL: "/", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`href="/posts/election-night"`, "Election night live", "Welcome to the Gazette"}})
	if h := home.Header.Get("ETag"); h == "" || h == homeBefore {
		t.Errorf("home ETag %q after the release, was %q: want a new one", h, homeBefore)
	}
	apptest.RunScenarios(t, anon, []apptest.Scenario{
		{Name: "NotModified", URL: "/posts/election-night", Header: map[string]string{"If-None-Match": etag},
			ExpectedStatus: http.StatusNotModified, ExpectedHeaders: map[string]string{"ETag": etag},
			NotExpectedContent: []string{"Election"}},
		{Name: "OldHomeETag", URL: "/", Header: map[string]string{"If-None-Match": homeBefore},
			ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Election night live"}},
		{Name: "OtherETag", URL: "/posts/election-night", Header: map[string]string{"If-None-Match": `"other"`},
			ExpectedStatus: http.StatusOK},
	})
	// The Agenda says how it went.
	agenda := c.Get("/studio/schedules")
	ids := apptest.AgendaReleaseIDs(agenda.Body)
	if len(ids) != 1 {
		t.Fatalf("Agenda lists releases %v, want one", ids)
	}
	c.Check(t, apptest.Scenario{Name: "Outcome", URL: "/studio/releases/" + ids[0], ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-state="published">Published</span>`,
			"Published on 2 November 2026, 09:00, on time.", "live version 2"}})
}

// TestPublicSiteETag holds the public site's ETags to RFC 9110 §8.8.3.
func TestPublicSiteETag(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	etag := c.Get("/posts/welcome").Header.Get("ETag")
	if !regexp.MustCompile(`^(W/)?"[\x21\x23-\x7E\x80-\xFF]*"$`).MatchString(etag) {
		t.Errorf("ETag %q is not an RFC 9110 entity-tag", etag)
	}
	// Weak (the same page goes out in several codings): W/"x" and "x"
	// both match it.
	opaque, weak := strings.CutPrefix(etag, "W/")
	if !weak {
		t.Errorf("ETag %q is strong: the gzip, zstd and plain answers share it", etag)
	}
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "Weak", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": "W/" + opaque},
			ExpectedStatus: http.StatusNotModified},
		{Name: "Opaque", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": opaque},
			ExpectedStatus: http.StatusNotModified},
		{Name: "List", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": `"other", ` + etag},
			ExpectedStatus: http.StatusNotModified},
		{Name: "Star", URL: "/posts/welcome", Header: map[string]string{"If-None-Match": "*"},
			ExpectedStatus: http.StatusNotModified},
	})
}

func TestLanguageSwitch(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.SignedIn(t, a.Editor)
	token := c.Token()
	apptest.RunScenarios(t, c, []apptest.Scenario{
		{Name: "English", URL: "/studio/content", ExpectedStatus: http.StatusOK,
			ExpectedContent:    []string{`<html lang="en">`, `<a href="/studio/schedules">Schedules</a>`},
			NotExpectedContent: []string{"Zamanlamalar"}},
		{Name: "Unsupported", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"de"}},
			ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"Studio does not speak that language yet."}},
		{Name: "Switch", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"tr"}},
			Header:         map[string]string{"Referer": a.URL + "/studio/content?kind=page"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/content?kind=page"}},
		{Name: "Turkish", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`<html lang="tr">`, `<a href="/studio/schedules" aria-current="page">Zamanlamalar</a>`,
				">İçerik</a>", ">Çıkış yap</button>", `value="tr" lang="tr" aria-pressed="true"`},
			NotExpectedContent: []string{">Schedules<", "Sign out"}},
		{Name: "OffsiteReferer", Method: "POST", URL: "/studio/lang", Form: url.Values{"csrf_token": {token}, "lang": {"tr"}},
			Header:         map[string]string{"Referer": "https://evil.example/studio/content"},
			ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio"}},
	})
	if u, err := a.Identity.User(context.Background(), a.Editor.ID); err != nil || u.Lang != "tr" {
		t.Errorf("account language %q (%v), want tr", u.Lang, err)
	}
	c.Check(t, apptest.Scenario{Name: "SignOut", Method: "POST", URL: "/studio/logout",
		Form: url.Values{"csrf_token": {token}}, ExpectedStatus: http.StatusSeeOther})

	// Remembered on the account: a new browser, even one asking for English.
	again := a.Client(t, "en")
	again.SignIn(a.Editor.Email)
	again.Check(t, apptest.Scenario{Name: "Remembered", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "Zamanlamalar"}, NotExpectedContent: []string{">Schedules<"}})

	// Signed out, the choice lives in the session.
	anon := a.Client(t, "en")
	anon.Check(t, apptest.Scenario{Name: "SignedOutSwitch", Method: "POST", URL: "/studio/lang",
		Form:           url.Values{"csrf_token": {anon.CSRF("/studio/login")}, "lang": {"tr"}},
		Header:         map[string]string{"Referer": a.URL + "/studio/login"},
		ExpectedStatus: http.StatusSeeOther, ExpectedHeaders: map[string]string{"Location": "/studio/login"}})
	anon.Check(t, apptest.Scenario{Name: "SignedOutTurkish", URL: "/studio/login", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`<html lang="tr">`, "Giriş yap"}})
}

func TestHealth(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	// The details are for signed-in callers (health_test.go); a token signs
	// in without a Studio request, whose backstop would tick.
	secret, _, err := a.Identity.CreateToken(context.Background(), a.Contributor, "monitor", nil)
	if err != nil {
		t.Fatal(err)
	}
	health := func(name string) map[string]any {
		t.Helper()
		res := c.Check(t, apptest.Scenario{Name: name, URL: "/health", ExpectedStatus: http.StatusOK,
			Header:          map[string]string{"Authorization": "Bearer " + secret},
			ExpectedContent: []string{`"status":"ok"`, `"scheduler":{`},
			ExpectedHeaders: map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store"}})
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
			t.Fatalf("/health is not JSON: %v\n%s", err, res.Body)
		}
		if _, ok := out["scheduler"].(map[string]any); !ok {
			t.Fatalf("/health scheduler is %T, want an object", out["scheduler"])
		}
		return out
	}
	out := health("BeforeAnyTick")
	if out["status"] != "ok" || out["now"] != "2026-11-02T05:00:00Z" {
		t.Errorf("/health = %v", out)
	}
	if s := out["scheduler"].(map[string]any); s["healthy"] != false {
		t.Errorf("scheduler before any tick = %v, want healthy false", s)
	}

	if _, err := a.Scheduler.RunDue(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	s := health("AfterTick")["scheduler"].(map[string]any)
	if s["healthy"] != true || s["heartbeatAt"] != "2026-11-02T05:00:00Z" || s["trigger"] != "manual" ||
		s["nextWakeAt"] != "2026-11-02T05:05:00Z" || s["lagSeconds"] != float64(0) { // an idle scheduler promises its next beat in five minutes
		t.Errorf("scheduler after a tick = %v", s)
	}

	a.Clock.Advance(7 * time.Minute) // the promised beat is two minutes overdue: still within grace
	if s := health("Grace")["scheduler"].(map[string]any); s["healthy"] != true {
		t.Errorf("scheduler 2 minutes after its promise = %v, want healthy true", s)
	}
	a.Clock.Advance(time.Minute) // no beat for eight minutes, but nothing is due within a day (§8.7)
	if s := health("IdleGrace")["scheduler"].(map[string]any); s["healthy"] != true {
		t.Errorf("idle scheduler 3 minutes after its promise = %v, want healthy true", s)
	}
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00") // due within a day: stalled
	if s := health("Late")["scheduler"].(map[string]any); s["healthy"] != false {
		t.Errorf("scheduler 3 minutes after its promise, a release due today = %v, want healthy false", s)
	}
	a.Clock.Advance(7*time.Minute + time.Millisecond) // ten minutes past its promise: stalled at all
	if s := health("Stopped")["scheduler"].(map[string]any); s["healthy"] != false || s["state"] != "stopped" {
		t.Errorf("scheduler 10 minutes after its promise = %v, want healthy false, stopped", s)
	}
}

// TestLanguageIsolation renders the Agenda for an English and a Turkish
// person at once: every response must be in its person's language alone
// (miniflux once shared a printer between requests).
func TestLanguageIsolation(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	a.ScheduleAt(t, a.Editor, a.Draft, "2026-11-02", "09:00")
	a.SetLang(t, a.Contributor, "tr")
	en := a.SignedIn(t, a.Editor)
	tr := a.SignedIn(t, a.Contributor)

	langs := []struct {
		Name     string
		c        *apptest.Client
		has, not []string
	}{
		{"English", en,
			[]string{`<html lang="en">`, ">Schedules</a>", "<h1>Schedules</h1>", "Today · Monday 2 November",
				">Scheduled</span>", "by Elif Editor", "Times are in Istanbul (UTC+3) time.", "Elif Editor · Editor"},
			[]string{"Zamanlamalar", "Bugün", "Kasım", "Zamanlandı", "zamanladı", "İstanbul", "Çıkış"}},
		{"Turkish", tr,
			[]string{`<html lang="tr">`, ">Zamanlamalar</a>", "<h1>Zamanlamalar</h1>", "Bugün · 2 Kasım Pazartesi",
				">Zamanlandı</span>", "Elif Editor zamanladı", "Saatler İstanbul saatine (UTC+3) göredir.",
				"Chris Contributor · Katkıda bulunan"},
			[]string{"Schedules", "Today", "November", ">Scheduled<", "by Elif", "Istanbul (", "Sign out"}},
	}
	const rounds = 20
	var wg sync.WaitGroup
	for i := 0; i < rounds; i++ {
		for _, l := range langs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := l.c.TryDo(http.MethodGet, "/studio/schedules", nil, nil)
				if err != nil {
					t.Errorf("%s: %v", l.Name, err)
					return
				}
				if res.Status != http.StatusOK {
					t.Errorf("%s: status %d", l.Name, res.Status)
					return
				}
				for _, s := range l.has {
					if !strings.Contains(res.Body, s) {
						t.Errorf("%s Agenda lacks %q", l.Name, s)
					}
				}
				for _, s := range l.not {
					if strings.Contains(res.Body, s) {
						t.Errorf("%s Agenda has %q", l.Name, s)
					}
				}
			}()
		}
	}
	wg.Wait()
}

// TestSignInAfterFragment follows Guard's redirect from an htmx request the
// way htmx does: the browser goes to HX-Redirect, the person signs in, and
// must land on a page.
func TestSignInAfterFragment(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	c := a.Client(t, "")
	page := "/studio/content/" + a.Draft.ID + "/schedule"
	res := c.Do(http.MethodGet, page+"/preview?date=2026-11-02&time=09:00", nil,
		map[string]string{"HX-Request": "true", "HX-Current-URL": a.URL + page})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", res.Status)
	}
	target, err := url.Parse(res.Header.Get("HX-Redirect"))
	if err != nil {
		t.Fatal(err)
	}
	if next := target.Query().Get("next"); next != page {
		t.Errorf("HX-Redirect next = %q, want the page %q", next, page)
	}
}

// draftRoute gives TestCSRF what a draft release's routes need: a fresh
// draft (the article and a new page) to change, the URL and a valid form.
// ok is false for the other routes.
func draftRoute(a *apptest.App, t *testing.T, pattern string) (string, url.Values, bool) {
	t.Helper()
	switch pattern {
	case "/studio/releases":
		return pattern, url.Values{"title": {"Autumn launch"}, "node": {a.Draft.ID}}, true
	case "/studio/releases/{id}/rename", "/studio/releases/{id}/items", "/studio/releases/{id}/items/remove",
		"/studio/releases/{id}/repin-draft", "/studio/releases/{id}/schedule":
	default:
		return "", nil, false
	}
	extra := a.CreateNode(t, release.KindPage, content.Body{Title: "Results", Slug: "results", Status: content.StatusDraft})
	rel, err := a.Releases.NewRelease(context.Background(), a.Editor, a.Site.ID, "Autumn launch", []string{a.Draft.ID, extra.ID})
	if err != nil {
		t.Fatal(err)
	}
	u := strings.ReplaceAll(pattern, "{id}", rel.ID)
	rev := []string{"1"}
	switch pattern {
	case "/studio/releases/{id}/rename":
		return u, url.Values{"rev": rev, "title": {"Winter launch"}}, true
	case "/studio/releases/{id}/items":
		more := a.CreateNode(t, release.KindPage, content.Body{Title: "Charts", Slug: "charts", Status: content.StatusDraft})
		return u, url.Values{"rev": rev, "node": {more.ID}}, true
	case "/studio/releases/{id}/items/remove":
		return u, url.Values{"rev": rev, "node": {extra.ID}}, true
	case "/studio/releases/{id}/schedule":
		return u, url.Values{"rev": rev, "date": {"2026-11-02"}, "time": {"09:30"}}, true
	}
	return u, url.Values{"rev": rev}, true
}

// finishedRun is a broken-links run with one finding, run by the editor.
func finishedRun(a *apptest.App, t *testing.T) automations.Run {
	t.Helper()
	a.BrokenArticle(t)
	return a.RunNow(t, a.Editor, a.BrokenLinkCheck(t, a.Editor))
}

// dismissForm is "Not a problem" on the one finding of a finished run.
func dismissForm(a *apptest.App, t *testing.T) (string, url.Values) {
	t.Helper()
	run := finishedRun(a, t)
	for key := range a.FindingsPrint(t) {
		return studio.RunURL(run.ID) + "/dismiss", url.Values{"key": {key}}
	}
	t.Fatal("the run found nothing")
	return "", nil
}
