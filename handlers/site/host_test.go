package site_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/setup"
	"studio/handlers/internal/apptest"
)

// TestPublicSiteByHost (issue 15): each site is served at the host of its
// public URL, with its own absolute URLs; the hosts no site names get the
// default site, or a 404 when no site is the default; a preview link shows
// its node's own site whatever host it is opened on.
func TestPublicSiteByHost(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	kuzey, err := a.Setup.CreateSite(ctx, owner, setup.SiteInput{Name: "Kuzey Haber", PublicURL: "https://kuzey.example",
		TimeZone: "Europe/Istanbul", Lang: "tr"})
	if err != nil {
		t.Fatal(err)
	}
	there := owner
	there.SiteID = kuzey.ID
	now := a.Engine.Now()
	_, err = a.Nodes.CreateNode(ctx, there, kuzey.ID, release.KindContentEntry, content.Body{Title: "Kuzeyden haberler",
		Slug: "kuzeyden", Lang: "tr", Status: content.StatusPublished, PublishedAt: &now, Text: "Metin."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Nodes.Publish(ctx, there, kuzey.ID); err != nil {
		t.Fatal(err)
	}
	draft, err := a.Nodes.CreateNode(ctx, there, kuzey.ID, release.KindContentEntry, content.Body{Title: "Taslak haber",
		Slug: "taslak", Lang: "tr", Status: content.StatusDraft, Text: "Henüz değil."})
	if err != nil {
		t.Fatal(err)
	}
	v := a.Client(t, "")
	on := func(host string) map[string]string { return map[string]string{"Host": host} }
	apptest.RunScenarios(t, v, []apptest.Scenario{
		{Name: "KuzeyHome", URL: "/", Header: on("kuzey.example"), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Kuzeyden haberler", `lang="tr"`}, NotExpectedContent: []string{"Welcome to the Gazette"}},
		{Name: "KuzeyHostCase", URL: "/posts/kuzeyden", Header: on("KUZEY.example:443"), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Kuzeyden haberler", `href="https://kuzey.example/posts/kuzeyden"`}},
		{Name: "KuzeyFeed", URL: "/rss.xml", Header: on("kuzey.example"), ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"<link>https://kuzey.example/posts/kuzeyden</link>"}, NotExpectedContent: []string{"welcome"}},
		{Name: "KuzeyHasNoGazette", URL: "/posts/welcome", Header: on("kuzey.example"), ExpectedStatus: http.StatusNotFound},
		{Name: "DefaultHome", URL: "/", ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{"Welcome to the Gazette"}, NotExpectedContent: []string{"Kuzey"}},
		{Name: "UnknownHostIsTheDefault", URL: "/posts/welcome", Header: on("elsewhere.example"), ExpectedStatus: http.StatusOK},
		{Name: "GazetteHasNoKuzey", URL: "/posts/kuzeyden", ExpectedStatus: http.StatusNotFound, NotExpectedContent: []string{"Kuzey"}},
	})

	// A preview link opened on Studio's own host shows its site's node.
	c := a.SignedIn(t, owner)
	res := c.Get("/studio/s/" + kuzey.ID + "/content/" + draft.ID + "/preview")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/preview/") {
		t.Fatalf("preview: %d to %q", res.Status, res.Header.Get("Location"))
	}
	v.Check(t, apptest.Scenario{Name: "Preview", URL: res.Header.Get("Location"), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"Taslak haber", "Kuzey Haber"}})

	// Without a default site, a host no site names is nobody's.
	if _, err := a.Store.DB().Exec(`UPDATE sites SET default_host = 0`); err != nil {
		t.Fatal(err)
	}
	apptest.RunScenarios(t, v, []apptest.Scenario{
		{Name: "NoDefault", URL: "/", Header: on("elsewhere.example"), ExpectedStatus: http.StatusNotFound,
			NotExpectedContent: []string{"Gazette", "Kuzey"}},
		{Name: "KuzeyStill", URL: "/", Header: on("kuzey.example"), ExpectedStatus: http.StatusOK, ExpectedContent: []string{"Kuzeyden haberler"}},
	})
}
