package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/policy"
	"studio/engine/release"
)

// The demo accounts. Their passwords exist only in the demo: real accounts
// come from `studio user add`.
const demoPassword = "demo-password"

var demoUsers = []struct {
	email, name string
	role        policy.Role
	lang        string
}{
	{"owner@demo.test", "Halil Owner", policy.Owner, "tr"},
	{"editor@demo.test", "Elif Editor", policy.Editor, "tr"},
	{"contributor@demo.test", "Chris Contributor", policy.Contributor, "en"},
}

// demoSignIn tells a newcomer how to sign in to the demo at addr.
func demoSignIn(addr string) string {
	return "Sign in at http://" + addr + "/studio/login with a demo account (password \"" + demoPassword + "\"):\n" +
		"  owner@demo.test (Owner) · editor@demo.test (Editor) · contributor@demo.test (Contributor)"
}

func demoCmd(ctx context.Context, args []string, stdout io.Writer) error {
	st, err := parseAndOpen(ctx, flag.NewFlagSet("demo", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	defer st.Close()
	seeded, err := seedDemo(ctx, engine.New(st, systemClock{}, nil))
	if err != nil {
		return err
	}
	if !seeded {
		fmt.Fprintln(stdout, "The database already has a site; nothing seeded.")
		return nil
	}
	fmt.Fprintln(stdout, demoSignIn("127.0.0.1:8080"))
	return nil
}

// seedDemo creates "Demo Gazette" with people and content, on a database
// without sites only. Most content goes live at once; two articles stay
// drafts for the newcomer to schedule.
func seedDemo(ctx context.Context, eng *engine.Engine) (bool, error) {
	sites, err := eng.Sites(ctx)
	if err != nil || len(sites) > 0 {
		return false, err
	}
	site, err := eng.CreateSite(ctx, "Demo Gazette", "Europe/Istanbul")
	if err != nil {
		return false, err
	}
	var owner engine.User
	for i, u := range demoUsers {
		created, err := eng.AddUser(ctx, u.email, u.name, u.role, demoPassword, u.lang)
		if err != nil {
			return false, err
		}
		if i == 0 {
			owner = created
		}
	}
	now := eng.Now()
	nodes := []struct {
		kind release.NodeKind
		body content.Body
	}{
		{release.KindPage, content.Body{Title: "Hakkımızda", Slug: "hakkimizda", Lang: "tr", Status: content.StatusPublished,
			Text: "Demo Gazette, Studio'nun zamanlanmış yayımlarını denemek için hazırlanmış örnek bir sitedir."}},
		{release.KindPage, content.Body{Title: "About", Slug: "about", Lang: "en", Status: content.StatusPublished,
			Text: "Demo Gazette is a sample site for trying Studio's scheduled publishing."}},
		{release.KindContentEntry, content.Body{Title: "İstanbul'da sonbahar", Slug: "istanbulda-sonbahar", Lang: "tr",
			Status: content.StatusPublished, Summary: "Boğaz'da renkler değişiyor.", PublishedAt: &now,
			Text: "Kasım geldiğinde Boğaz kıyısındaki ağaçlar sararır.\n\nVapur iskelelerinde simitçiler yine yerlerini aldı."}},
		{release.KindContentEntry, content.Body{Title: "Welcome to the Gazette", Slug: "welcome", Lang: "en",
			Status: content.StatusPublished, Summary: "What this site is for.", PublishedAt: &now,
			Text: "This is the first article of the Demo Gazette.\n\nOpen Studio to schedule the next one."}},
		{release.KindContentEntry, content.Body{Title: "Seçim gecesi canlı yayın", Slug: "secim-gecesi", Lang: "tr",
			Status: content.StatusDraft, Summary: "Sonuçlar gelir gelmez bu sayfada.",
			Text: "Sandıklar kapandığında sonuçları buradan izleyebilirsiniz."}},
		{release.KindContentEntry, content.Body{Title: "Election night live", Slug: "election-night", Lang: "en",
			Status: content.StatusDraft, Summary: "Results as they come in.",
			Text: "Follow the results here as soon as the polls close."}},
	}
	const firstDraft = 4 // the drafts are created after the publish
	for i, n := range nodes {
		if i == firstDraft {
			if _, err := eng.Publish(ctx, owner, site.ID); err != nil {
				return false, err
			}
		}
		if _, err := eng.CreateNode(ctx, owner, site.ID, n.kind, n.body); err != nil {
			return false, err
		}
	}
	return true, nil
}
