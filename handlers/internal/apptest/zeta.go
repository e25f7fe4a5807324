package apptest

import (
	"context"
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
)

// Zeta is a second site, Zeta Times, with everything a site has: people,
// live and draft content with an image, a scheduled release, a request
// waiting for approval, an automation with a run, an invitation, an agent
// key and a token. Every name of it says "Zeta".
type Zeta struct {
	Site               engine.Site
	Owner, contributor engine.User
	Article, Draft     content.Node
	Release            string // scheduled
	Request            string // the approval request of a release waiting for approval
	Automation, Run    string
	invitation         string
	AgentKey, token    string
	// ids are every id above, which none of site A's answers may name.
	ids []string
}

func NewZeta(t *testing.T, a *App) Zeta {
	t.Helper()
	ctx := context.Background()
	var z Zeta
	var err error
	if z.Site, err = a.Setup.AddSite(ctx, "Zeta Times", "https://zeta.example", "Europe/Istanbul", "en"); err != nil {
		t.Fatal(err)
	}
	z.Owner = a.AddUserOn(t, z.Site.ID, "zed@zeta.example", "Zed Zetaowner", policy.Owner)
	z.contributor = a.AddUserOn(t, z.Site.ID, "zoe@zeta.example", "Zoe Zetacontributor", policy.Contributor)
	node := func(u engine.User, kind release.NodeKind, b content.Body) content.Node {
		n, err := a.Nodes.CreateNode(ctx, u, z.Site.ID, kind, b)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	now := a.Engine.Now()
	img, err := a.Nodes.CreateAsset(ctx, z.Owner, z.Site.ID, content.Body{Title: "Zeta image", Slug: "zeta-image.png",
		Status: content.StatusPublished, Mime: "image/png", Data: FixturePNG(t, 3), Alt: "Zeta skyline"})
	if err != nil {
		t.Fatal(err)
	}
	node(z.Owner, release.KindPage, content.Body{Title: "Zeta page", Slug: "zeta-page", Lang: "en", Status: content.StatusPublished, Text: "Zeta about."})
	z.Article = node(z.Owner, release.KindContentEntry, content.Body{Title: "Zeta article", Slug: "zeta-article", Lang: "en",
		Status: content.StatusPublished, PublishedAt: &now, Text: "Zeta text ![Zeta skyline](/media/zeta-image.png)"})
	if _, err := a.Nodes.Publish(ctx, z.Owner, z.Site.ID); err != nil {
		t.Fatal(err)
	}
	z.Draft = node(z.contributor, release.KindContentEntry, content.Body{Title: "Zeta draft", Slug: "zeta-draft", Lang: "en",
		Status: content.StatusDraft, Text: "Zeta soon."})
	later := node(z.Owner, release.KindPage, content.Body{Title: "Zeta later", Slug: "zeta-later", Lang: "en", Status: content.StatusDraft})
	schedule := func(u engine.User, n content.Node) release.Release {
		r, err := a.Releases.ScheduleNode(ctx, u, releases.ScheduleInput{SiteID: z.Site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: "2026-11-04", Time: "10:00"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	z.Release = schedule(z.Owner, later).ID
	asked := schedule(z.contributor, z.Draft)
	list, err := a.Releases.Approvals(ctx, z.Owner, z.Site.ID)
	if err != nil || len(list) != 1 || list[0].Release.ID != asked.ID {
		t.Fatalf("Zeta's approvals: %+v %v", list, err)
	}
	z.Request = list[0].Request.ID
	au, err := a.Automations.Create(ctx, z.Owner, z.Site.ID, automations.Input{Name: "Zeta link check",
		Builtin: automation.BuiltinBrokenLinks, Preset: "weekly", Start: "2026-11-02T07:10"})
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := a.Automations.RunNow(ctx, z.Owner, z.Site.ID, au.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := a.Scheduler.RunDue(ctx, "manual"); err != nil {
			t.Fatal(err)
		}
		if run, err = a.Automations.Run(ctx, z.Owner, z.Site.ID, run.ID); err != nil {
			t.Fatal(err)
		}
		if !run.Open() {
			break
		}
	}
	z.Automation, z.Run = au.ID, run.ID
	if _, inv, err := a.People.Invite(ctx, z.Owner, z.Site.ID, "zack@zeta.example", policy.Author); err != nil {
		t.Fatal(err)
	} else {
		z.invitation = inv.ID
	}
	k, _, err := a.Agents.Mint(ctx, z.Owner, z.Site.ID, agents.KeyInput{Name: "Zeta planner", Mode: policy.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	z.AgentKey = k.ID
	if _, tok, err := a.Identity.CreateToken(ctx, z.Owner, "Zeta script", nil); err != nil {
		t.Fatal(err)
	} else {
		z.token = tok.ID
	}
	z.ids = []string{z.Site.ID, z.Owner.ID, z.contributor.ID, img.ID, z.Article.ID, z.Draft.ID, later.ID, z.Release, asked.ID,
		z.Request, z.Automation, z.Run, z.invitation, z.AgentKey, z.token}
	return z
}

// Leak is the first thing of Zeta's that body names ("" for none), but
// for the ids the request itself named.
func (z Zeta) Leak(body, asked string) string {
	for _, s := range append([]string{"Zeta", "zeta", "zed@", "zoe@"}, z.ids...) {
		if strings.Contains(body, s) && !strings.Contains(asked, s) {
			return s
		}
	}
	return ""
}

// Fingerprint is everything of Zeta's the database holds, as one string.
func (z Zeta) Fingerprint(t *testing.T, a *App) string {
	t.Helper()
	var fp string
	err := a.Store.DB().QueryRow(`SELECT
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
		z.Site.ID, z.Owner.ID, z.contributor.ID).Scan(&fp)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// withZetaIDs fills a Studio route pattern's {id} with the Zeta id of its
// kind.
func (z Zeta) WithIDs(pattern string) string {
	id := z.Article.ID
	switch {
	case strings.HasPrefix(pattern, "/studio/releases/"):
		id = z.Release
	case strings.HasPrefix(pattern, "/studio/approvals/"):
		id = z.Request
	case strings.HasPrefix(pattern, "/studio/schedules/automations/"):
		id = z.Automation
	case strings.HasPrefix(pattern, "/studio/schedules/runs/"):
		id = z.Run
	case strings.HasPrefix(pattern, "/studio/people/invitations/"):
		id = z.invitation
	case strings.HasPrefix(pattern, "/studio/people/"):
		id = z.contributor.ID
	case strings.HasPrefix(pattern, "/studio/agents/"):
		id = z.AgentKey
	case strings.HasPrefix(pattern, "/studio/tokens/"):
		id = z.token
	}
	return strings.ReplaceAll(pattern, "{id}", id)
}
