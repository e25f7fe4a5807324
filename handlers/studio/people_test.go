package studio_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine/agents"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/releases"
	"studio/handlers/internal/apptest"
)

// invitationLink is the link in a People page that just made one.
func invitationLink(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`value="(http[^"]+/studio/join\?token=[^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no invitation link in the page:\n%s", apptest.Excerpt(body))
	}
	return html.UnescapeString(m[1])
}

// The People page of an Owner: invite someone, who joins with the link and
// works with the role given; change their role; remove them, and their
// session has no site any more.
func TestPeoplePage(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	for _, u := range []struct {
		name string
		c    *apptest.Client
	}{{"Editor", a.SignedIn(t, a.Editor)}, {"Contributor", a.SignedIn(t, a.Contributor)}} {
		u.c.Check(t, apptest.Scenario{Name: u.name, URL: "/studio/people", ExpectedStatus: http.StatusForbidden})
		u.c.Check(t, apptest.Scenario{Name: u.name + "Nav", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
			NotExpectedContent: []string{`data-testid="people-link"`}})
	}
	c := a.SignedIn(t, owner)
	c.Check(t, apptest.Scenario{Name: "Page", URL: "/studio/people", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="people-link"`, "Elif Editor", "contributor@example.com", "Oya Owner", "(you)",
			`data-testid="invitations-empty"`, `value="owner"`, `data-testid="invite-form"`}})

	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "BadInvite", Method: "POST", URL: "/studio/people/invitations",
		Form:            url.Values{"csrf_token": {c.Token()}, "email": {"not an email"}, "role": {"emperor"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Enter a valid email address.", "Choose a role from the list.", `value="not an email"`}})
	c.Check(t, apptest.Scenario{Name: "AlreadyMember", Method: "POST", URL: "/studio/people/invitations",
		Form:           url.Values{"csrf_token": {c.Token()}, "email": {a.Editor.Email}, "role": {"author"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"This person is already a member of the site."}})
	if a.Fingerprint(t) != before {
		t.Fatal("a refused invitation changed something")
	}

	res := c.Check(t, apptest.Scenario{Name: "Invite", Method: "POST", URL: "/studio/people/invitations",
		Form:           url.Values{"csrf_token": {c.Token()}, "email": {"nur@example.com"}, "role": {"editor"}},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Invitation link for nur@example.com", "shown only this once"},
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	link := invitationLink(t, res.Body)
	u, err := url.Parse(link)
	if err != nil || u.Host != strings.TrimPrefix(a.URL, "http://") {
		t.Fatalf("link %q: want Studio's own address", link)
	}
	c.Check(t, apptest.Scenario{Name: "Listed", URL: "/studio/people", ExpectedStatus: http.StatusOK,
		ExpectedContent:    []string{`data-testid="invitations"`, "nur@example.com", "Oya Owner"},
		NotExpectedContent: []string{u.Query().Get("token")}})

	guest := a.Client(t, "tr")
	guest.Check(t, apptest.Scenario{Name: "WrongLink", URL: "/studio/join?token=studio_inv_nope", ExpectedStatus: http.StatusNotFound,
		ExpectedContent: []string{"Bu davet bağlantısı çalışmıyor"}})
	guest.Check(t, apptest.Scenario{Name: "JoinForm", URL: u.RequestURI(), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Demo Gazette sitesine katılın", "nur@example.com, bu sitede Editör olarak", `autocomplete="new-password"`},
		ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	token := guest.CSRF(u.RequestURI())
	guest.Check(t, apptest.Scenario{Name: "JoinRefused", Method: "POST", URL: "/studio/join",
		Form:            url.Values{"csrf_token": {token}, "token": {u.Query().Get("token")}, "name": {" "}, "password": {"kısa"}},
		ExpectedStatus:  http.StatusUnprocessableEntity,
		ExpectedContent: []string{"En az 10 karakterlik bir parola seçin."}})
	joined := guest.Check(t, apptest.Scenario{Name: "Join", Method: "POST", URL: "/studio/join",
		Form:           url.Values{"csrf_token": {token}, "token": {u.Query().Get("token")}, "name": {"Nur Yıldız"}, "password": {apptest.Password}},
		ExpectedStatus: http.StatusSeeOther})
	if joined.Header.Get("Location") != "/studio" {
		t.Fatalf("after joining: to %q", joined.Header.Get("Location"))
	}
	guest.Check(t, apptest.Scenario{Name: "SignedIn", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Nur Yıldız · Editör", "Hoş geldiniz!"}})
	guest.Check(t, apptest.Scenario{Name: "Spent", URL: u.RequestURI(), ExpectedStatus: http.StatusNotFound})

	nur, _, err := a.Store.UserByEmail(context.Background(), "nur@example.com")
	if err != nil {
		t.Fatal(err)
	}
	c.Check(t, apptest.Scenario{Name: "OwnRole", Method: "POST", URL: "/studio/people/" + owner.ID + "/role",
		Form: url.Values{"csrf_token": {c.Token()}, "role": {"editor"}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"You cannot change or remove your own membership here."}})
	c.Check(t, apptest.Scenario{Name: "ChangeRole", Method: "POST", URL: "/studio/people/" + nur.ID + "/role",
		Form: url.Values{"csrf_token": {c.Token()}, "role": {"contributor"}}, ExpectedStatus: http.StatusSeeOther})
	guest.Check(t, apptest.Scenario{Name: "Demoted", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Nur Yıldız · Katkıda bulunan"}})

	// Removed: what they asked for is denied, and they have no site.
	nurOnSite := nur
	nurOnSite.Role, nurOnSite.SiteID = policy.Contributor, a.Site.ID
	n, err := a.Nodes.CreateNode(context.Background(), nurOnSite, a.Site.ID, release.KindContentEntry,
		content.Body{Title: "Nur's story", Slug: "nur-story", Status: content.StatusDraft, Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	asked, err := a.Releases.ScheduleNode(context.Background(), nurOnSite, releases.ScheduleInput{SiteID: a.Site.ID, NodeID: n.ID,
		ExpectedRev: n.Rev, Date: "2026-11-02", Time: "09:00"})
	if err != nil || asked.State != release.StateAwaitingApproval {
		t.Fatalf("nur's request: %+v, %v", asked, err)
	}
	// Her agent key on the site (§11.8 "owner removed": revoked at once).
	key, _, err := a.Agents.Mint(context.Background(), nurOnSite, a.Site.ID, agents.KeyInput{Name: "Nur's desk", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	c.Check(t, apptest.Scenario{Name: "RemoveDialog", URL: "/studio/people?remove=" + nur.ID, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`id="remove-` + nur.ID + `"`, "Remove Nur Yıldız from the site?", "are denied"}})
	c.Check(t, apptest.Scenario{Name: "Remove", Method: "POST", URL: "/studio/people/" + nur.ID + "/remove",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusSeeOther})
	guest.Check(t, apptest.Scenario{Name: "Gone", URL: "/studio/schedules", ExpectedStatus: http.StatusForbidden,
		ExpectedContent: []string{"Henüz hiçbir sitenin üyesi değilsiniz."}, NotExpectedContent: []string{"Demo Gazette"}})
	if got := a.Release(t, asked.ID); got.State != release.StateDraft {
		t.Errorf("the removed person's request left the release %s, want draft", got.State)
	}
	var revoked, why string
	if err := a.Store.DB().QueryRow(`SELECT coalesce(revoked_at, ''), coalesce((SELECT json_extract(details, '$.reason') FROM audit
		WHERE action = 'agent.key.revoke' AND json_extract(details, '$.key') = k.id), '') FROM agent_keys k WHERE id = ?`, key.ID).Scan(&revoked, &why); err != nil ||
		revoked == "" || why != "owner-removed" {
		t.Errorf("the removed person's agent key: revoked %q, reason %q (%v)", revoked, why, err)
	}
	c.Check(t, apptest.Scenario{Name: "AfterRemove", URL: "/studio/people", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Removed from the site."}, NotExpectedContent: []string{"nur@example.com"}})
}

// An Administrator manages everyone but the Owners, and gives no Owner
// role.
func TestPeoplePageOfAnAdministrator(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	admin := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	c := a.SignedIn(t, admin)
	c.Check(t, apptest.Scenario{Name: "Page", URL: "/studio/people", ExpectedStatus: http.StatusOK,
		NotExpectedContent: []string{`value="owner"`, `action="/studio/people/` + owner.ID + `/role"`, `action="/studio/people/` + owner.ID + `/remove"`},
		ExpectedContent:    []string{`action="/studio/people/` + a.Editor.ID + `/role"`}})
	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "RemoveOwner", Method: "POST", URL: "/studio/people/" + owner.ID + "/remove",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Only an Owner can give, change or take away the Owner role."}})
	c.Check(t, apptest.Scenario{Name: "InviteOwner", Method: "POST", URL: "/studio/people/invitations",
		Form:           url.Values{"csrf_token": {c.Token()}, "email": {"x@example.com"}, "role": {"owner"}},
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{"Only an Owner can give"}})
	c.Check(t, apptest.Scenario{Name: "NotAMember", Method: "POST", URL: "/studio/people/user_nobody/role",
		Form: url.Values{"csrf_token": {c.Token()}, "role": {"editor"}}, ExpectedStatus: http.StatusNotFound})
	if a.Fingerprint(t) != before {
		t.Fatal("a refused change changed something")
	}
}

// A password reset link: made by an Owner or Administrator for a member,
// shown once, good once for 24 hours; it sets the new password, ends the
// member's sessions and signs them in.
func TestPasswordResetLink(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	admin := a.AddUser(t, "admin@example.com", "Ali Admin", policy.Admin, "en")
	elsewhere := a.SignedIn(t, a.Editor)
	c := a.SignedIn(t, admin)
	c.Check(t, apptest.Scenario{Name: "NotAnOwners", Method: "POST", URL: "/studio/people/" + owner.ID + "/reset-password",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Only an Owner can give"}})
	c.Check(t, apptest.Scenario{Name: "NotOnesOwn", Method: "POST", URL: "/studio/people/" + admin.ID + "/reset-password",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"You cannot change or remove your own membership here."}})
	first := c.Check(t, apptest.Scenario{Name: "Link", Method: "POST", URL: "/studio/people/" + a.Editor.ID + "/reset-password",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Password reset link for Elif Editor"}, ExpectedHeaders: map[string]string{"Cache-Control": "no-store"}})
	replaced := apptest.ResetLink(t, first.Body)
	res := c.Check(t, apptest.Scenario{Name: "Again", Method: "POST", URL: "/studio/people/" + a.Editor.ID + "/reset-password",
		Form: url.Values{"csrf_token": {c.Token()}}, ExpectedStatus: http.StatusOK})
	link := apptest.ResetLink(t, res.Body)

	guest := a.Client(t, "")
	guest.Check(t, apptest.Scenario{Name: "Replaced", URL: replaced, ExpectedStatus: http.StatusNotFound,
		ExpectedContent: []string{"This password reset link does not work"}})
	guest.Check(t, apptest.Scenario{Name: "Form", URL: link, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"This link sets a new password for Elif Editor."}})
	token := guest.CSRF(link)
	secret := strings.TrimPrefix(link, "/studio/reset?token=")
	guest.Check(t, apptest.Scenario{Name: "Weak", Method: "POST", URL: "/studio/reset",
		Form: url.Values{"csrf_token": {token}, "token": {secret}, "password": {"short"}}, ExpectedStatus: http.StatusUnprocessableEntity,
		ExpectedContent: []string{"Choose a password of at least 10 characters."}})
	elsewhere.Check(t, apptest.Scenario{Name: "NotYetEnded", URL: "/studio/schedules", ExpectedStatus: http.StatusOK})
	guest.Check(t, apptest.Scenario{Name: "Set", Method: "POST", URL: "/studio/reset",
		Form: url.Values{"csrf_token": {token}, "token": {secret}, "password": {"a freshly chosen secret"}}, ExpectedStatus: http.StatusSeeOther})
	guest.Check(t, apptest.Scenario{Name: "SignedIn", URL: "/studio/schedules", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Elif Editor · Editor", "Your new password is set."}})
	elsewhere.Check(t, apptest.Scenario{Name: "EndedElsewhere", URL: "/studio/schedules", ExpectedStatus: http.StatusSeeOther})
	guest.Check(t, apptest.Scenario{Name: "Used", URL: link, ExpectedStatus: http.StatusNotFound})
}
