package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"studio/engine/agents"
	"studio/engine/automations"
	"testing"
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/handlers"
	"studio/handlers/internal/apptest"
	"studio/handlers/studio"
)

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
	// A media file's address (mediaFile's), after its release (a review's).
	u := strings.NewReplacer("{id}", id, "{side}", "after", "{slug}", "cover.png").Replace(pattern)
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
			if du, df, ok := draftRoute(a, t, rt.Pattern); ok { // a draft release to change (studio/drafts_test.go)
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
			case "/studio/releases/{id}/uncancel": // the editor's Cancel, a moment ago
				if err := a.Releases.Cancel(context.Background(), a.Editor, a.Site.ID, rel.ID, rel.Rev); err != nil {
					t.Fatal(err)
				}
				form = url.Values{"rev": {fmt.Sprint(rel.Rev + 1)}}
			case "/studio/releases/{id}/repin", "/studio/releases/{id}/rebase": // a release held as a conflict
				held := a.ConflictRelease(t)
				u = strings.ReplaceAll(rt.Pattern, "{id}", held.ID)
				form = url.Values{"rev": {fmt.Sprint(held.Rev)}, "date": {"2026-11-02"}, "time": {"10:30"}}
			case "/studio/content/{id}/edit-scheduled": // the node the test's release holds
				u, form = a.EditScheduledForm(t, rel)
			case "/studio/content/{id}/gates/lift": // a live embargo to lift (studio/gates_test.go)
				u, form = a.EmbargoLive(t)
			case "/studio/content/{id}/media": // a media file, saved without a new file (studio/content_address_test.go)
				u, form = "/studio/content/"+mediaFile(a, t).ID+"/media", url.Values{"rev": {"1"}, "title": {"Cover"},
					"slug": {"cover.png"}, "alt": {"A cover"}, "status": {"draft"}}
			case "/studio/schedules/automations/{id}/run-now": // an automation to run
				u = "/studio/schedules/automations/" + a.BrokenLinkCheck(t, who).ID + "/run-now"
			case "/studio/schedules/automations": // the editor's new automation (studio/automations_test.go)
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
			case "/studio/schedules/runs/{id}/dismiss": // a finding of a run (studio/history_test.go)
				u, form = dismissForm(a, t)
			case "/studio/content/media", "/studio/content/upload": // a new media file needs its file: a multipart upload (studio/content_address_test.go, studio/images_test.go)
				want = http.StatusUnprocessableEntity
			case "/studio/setup": // gone once Studio is set up; a first run's own is in studio/setup_test.go
				want = http.StatusNotFound
			case "/studio/account/profile": // the person's own name and language (studio/account_test.go)
				form = url.Values{"name": {who.Name}, "lang": {"en"}}
			case "/studio/account/password":
				form = url.Values{"current": {apptest.Password}, "password": {"another long secret"}}
			case "/studio/people/{id}/reset-password": // a member's reset link, the answer itself (studio/people_test.go)
				u, want = "/studio/people/"+a.Contributor.ID+"/reset-password", http.StatusOK
			case "/studio/reset": // a reset link of the contributor's
				secret, _, err := a.People.ResetLink(context.Background(), who, a.Site.ID, a.Contributor.ID)
				if err != nil {
					t.Fatal(err)
				}
				form = url.Values{"token": {secret}, "password": {"another long secret"}}
			case "/studio/content/preview-text": // the editor's preview: a fragment (studio/images_test.go)
				form, want = url.Values{"body": {"**Results**"}}, http.StatusOK
			case "/studio/people/invitations": // the new link is the answer itself (studio/people_test.go)
				form, want = url.Values{"email": {"new@example.com"}, "role": {"editor"}}, http.StatusOK
			case "/studio/people/invitations/{id}/revoke": // an open invitation
				_, inv, err := a.People.Invite(context.Background(), who, a.Site.ID, "new@example.com", policy.Author)
				if err != nil {
					t.Fatal(err)
				}
				u = "/studio/people/invitations/" + inv.ID + "/revoke"
			case "/studio/account/sessions/{id}/end": // another session of the person's (studio/account_test.go)
				a.SignedIn(t, who)
				u = "/studio/account/sessions/" + a.LastSession(t, who, "") + "/end"
			case "/studio/sites": // a new site, made by an Owner (studio/sites_test.go)
				who = a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
				form = url.Values{"siteName": {"Kuzey"}, "publicUrl": {"https://kuzey.example"}, "timeZone": {"Europe/Istanbul"}, "siteLang": {"tr"}}
			case "/studio/people/{id}/role": // a member to change
				u, form = "/studio/people/"+a.Contributor.ID+"/role", url.Values{"role": {"author"}}
			case "/studio/oauth/authorize": // a connector's request, allowed
				form = apptest.OAuthConsentForm(a.OAuthRequest(t), "allow", "plan")
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
		var cover *content.Node // one media file for the routes that show one
		coverFile := func() content.Node {
			if cover == nil {
				n := mediaFile(a, t)
				cover = &n
			}
			return *cover
		}
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
				u = "/studio/content/" + coverFile().ID + "/file"
			}
			if rt.Pattern == "/studio/media/{slug}" { // a media file not live yet, as the editor's preview shows it
				coverFile()
			}
			if rt.Pattern == "/studio/releases/{id}/media/{side}/{slug}" { // a media file as its release pins it
				coverFile()
				shows := a.CreateNode(t, release.KindContentEntry, content.Body{Title: "Map", Slug: "map-of-results", Status: content.StatusPublished,
					Text: "![The map](/media/cover.png)"})
				u = "/studio/releases/" + a.ScheduleAt(t, a.Editor, shows, "2026-11-02", "11:00").ID + "/media/after/cover.png"
			}
			if rt.Pattern == "/studio/schedules/automations/{id}" { // an automation, read-only for a contributor
				u = "/studio/schedules/automations/" + a.BrokenLinkCheck(t, a.Editor).ID
			}
			if rt.Pattern == "/studio/schedules/runs/{id}" { // a run's page (studio/history_test.go)
				u = "/studio/schedules/runs/" + finishedRun(a, t).ID
			}
			if rt.Pattern == "/studio/oauth/authorize" { // a connector's request (handlers/mcp/oauth_test.go)
				u += "?" + a.OAuthRequest(t).Encode()
			}
			if rt.Pattern == "/studio/agents/{id}" { // one of the contributor's own agent keys
				k, _, err := a.Agents.Mint(context.Background(), a.Contributor, a.Site.ID, agents.KeyInput{Name: "reader", Mode: policy.ModePlan})
				if err != nil {
					t.Fatal(err)
				}
				u = "/studio/agents/" + k.ID
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

// mediaFile creates a draft media file, cover.png.
func mediaFile(a *apptest.App, t *testing.T) content.Node {
	t.Helper()
	n, err := a.Nodes.CreateAsset(context.Background(), a.Editor, a.Site.ID, content.Body{Title: "Cover", Slug: "cover.png",
		Status: content.StatusDraft, Mime: "image/png", Data: apptest.FixturePNG(t, 5), Alt: "A cover"})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
