package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/content"
	"studio/engine/identity"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/policy"
	"studio/engine/releases"
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
	demo := true
	st, folder, err := openData(ctx, flag.NewFlagSet("demo", flag.ContinueOnError), args, &demo)
	if err != nil {
		return err
	}
	defer st.Close()
	seed, err := folder.demoSeed()
	if err != nil {
		return err
	}
	seeded := false
	if seed {
		if seeded, err = seedDemo(ctx, releases.New(engine.New(st, systemClock{}, nil), st), st); err != nil {
			return err
		}
	}
	if !seeded {
		fmt.Fprintln(stdout, "The data folder already has a database; nothing seeded (the demo goes only into a new folder).")
		return nil
	}
	fmt.Fprintln(stdout, demoSignIn("127.0.0.1:8080"))
	return nil
}

// demoStore is what the demo seed writes besides the engine's store: the
// accounts and the automations.
type demoStore interface {
	identity.Store
	automations.Store
	nodes.Store
}

// seedDemo creates "Demo Gazette" with people and content, on a database
// without sites only. Most content goes live at once; two articles stay
// drafts for the newcomer to schedule.
func seedDemo(ctx context.Context, eng *releases.Releases, st demoStore) (bool, error) {
	nds := nodes.New(eng, st)
	sites, err := eng.Sites(ctx)
	if err != nil || len(sites) > 0 {
		return false, err
	}
	site, err := eng.CreateSiteIn(ctx, "Demo Gazette", "Europe/Istanbul", "tr")
	if err != nil {
		return false, err
	}
	people := identity.New(eng, st, nil)
	var users []engine.User // in the order of demoUsers: owner, editor, contributor
	for _, u := range demoUsers {
		created, err := people.AddUser(ctx, site.ID, u.email, u.name, u.role, demoPassword, u.lang)
		if err != nil {
			return false, err
		}
		users = append(users, created)
	}
	owner := users[0]
	now := eng.Now()
	// An image for the autumn article: a live asset it refers to, shown on
	// its page and in its sharing tags.
	img, err := demoImage()
	if err != nil {
		return false, err
	}
	cover, err := nds.CreateAsset(ctx, owner, site.ID, content.Body{Title: "Boğaz'da sonbahar", Slug: "bogazda-sonbahar.png",
		Status: content.StatusPublished, Mime: "image/png", Data: img, Alt: "Boğaz'da gün batımı: güneş, sonbahar renginde tepeler ve deniz"})
	if err != nil {
		return false, err
	}
	nodes := []struct {
		kind    release.NodeKind
		body    content.Body
		related string // the slug of an earlier entry it refers to
	}{
		{release.KindPage, content.Body{Title: "Hakkımızda", Slug: "hakkimizda", Lang: "tr", Status: content.StatusPublished,
			Text: "Demo Gazette, Studio'nun zamanlanmış yayımlarını denemek için hazırlanmış örnek bir sitedir."}, ""},
		{release.KindPage, content.Body{Title: "About", Slug: "about", Lang: "en", Status: content.StatusPublished,
			Text: "Demo Gazette is a sample site for trying Studio's scheduled publishing."}, ""},
		{release.KindContentEntry, content.Body{Title: "İstanbul'da sonbahar", Slug: "istanbulda-sonbahar", Lang: "tr",
			Status: content.StatusPublished, Summary: "Boğaz'da renkler değişiyor.", PublishedAt: &now, Refs: []string{cover.ID},
			Text: "Kasım geldiğinde Boğaz kıyısındaki ağaçlar sararır.\n\nVapur iskelelerinde simitçiler yine yerlerini aldı."}, ""},
		{release.KindContentEntry, content.Body{Title: "Welcome to the Gazette", Slug: "welcome", Lang: "en",
			Status: content.StatusPublished, Summary: "What this site is for.", PublishedAt: &now,
			Text: "This is the first article of the Demo Gazette.\n\nOpen Studio to schedule the next one."}, "istanbulda-sonbahar"},
		{release.KindContentEntry, content.Body{Title: "Seçim gecesi canlı yayın", Slug: "secim-gecesi", Lang: "tr",
			Status: content.StatusDraft, Summary: "Sonuçlar gelir gelmez bu sayfada.",
			Text: "Sandıklar kapandığında sonuçları buradan izleyebilirsiniz."}, ""},
		{release.KindContentEntry, content.Body{Title: "Election night live", Slug: "election-night", Lang: "en",
			Status: content.StatusDraft, Summary: "Results as they come in.",
			Text: "Follow the results here as soon as the polls close."}, ""},
	}
	const firstDraft = 4 // the drafts are created after the publish
	created := map[string]string{}
	for i, n := range nodes {
		if i == firstDraft {
			if _, err := nds.Publish(ctx, owner, site.ID); err != nil {
				return false, err
			}
		}
		if n.related != "" {
			n.body.Refs = append(n.body.Refs, created[n.related])
		}
		// The English articles and both drafts are the contributor's work,
		// the rest the owner's: each node keeps who created it (own-level
		// scopes, §10.1), and the contributor may ask for either draft.
		by := owner
		if n.kind == release.KindContentEntry && (n.body.Lang == "en" || n.body.Status == content.StatusDraft) {
			by = users[2]
		}
		c, err := nds.CreateNode(ctx, by, site.ID, n.kind, n.body)
		if err != nil {
			return false, err
		}
		created[n.body.Slug] = c.ID
	}
	if demoSchedules {
		if err := seedDemoSchedules(ctx, eng, st, site, users[0], users[1], users[2]); err != nil {
			return false, err
		}
	}
	return true, nil
}

// demoSchedules says whether seedDemo fills the calendar (seedDemoSchedules).
// The browser tests walk a newcomer's path from an empty calendar and turn
// it off (demo_test.go).
var demoSchedules = true

// seedDemoSchedules gives the demo's calendar life over the weeks from now,
// in the site's zone: two built-in automations (a weekly broken-link sweep,
// a daily stale-content review), ten releases (two waiting for approval,
// one of two articles, one taking a page down) and an embargo.
func seedDemoSchedules(ctx context.Context, eng *releases.Releases, st demoStore, site engine.Site, owner, editor, contributor engine.User) error {
	nds := nodes.New(eng, st)
	loc, err := localtime.LoadZone(site.TimeZone)
	if err != nil {
		return err
	}
	today := localtime.WallOf(eng.Now(), loc)
	day := func(n int) string { return today.AddDays(n).Date() }
	jobs := []struct{ name, job, rule, start string }{
		{"Kırık bağlantı taraması", "builtin:broken-links", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=0", day(0) + "T07:00"},
		{"Eskimiş içerik taraması", "builtin:stale-content", "FREQ=DAILY;BYHOUR=6;BYMINUTE=30", day(0) + "T06:30"},
	}
	for _, a := range jobs {
		if _, err := automations.New(st, eng).CreateAutomation(ctx, owner, site.ID, a.name, a.job, a.rule, a.start); err != nil {
			return err
		}
	}

	// A live campaign page, taken down in three weeks.
	campaign, err := nds.CreateNode(ctx, owner, site.ID, release.KindPage, content.Body{Title: "Yılbaşı kampanyası",
		Slug: "yilbasi-kampanyasi", Lang: "tr", Status: content.StatusPublished,
		Text: "Aralık boyunca tüm aboneliklerde yüzde yirmi indirim."})
	if err != nil {
		return err
	}
	if _, err := nds.Publish(ctx, owner, site.ID); err != nil {
		return err
	}
	takeDown, err := eng.CreateDraft(ctx, editor, releases.DraftInput{SiteID: site.ID, Title: "Kampanya sona eriyor",
		RemoveIDs: []string{campaign.ID}})
	if err != nil {
		return err
	}
	if _, err := eng.ScheduleRelease(ctx, editor, site.ID, takeDown.ID, takeDown.Rev, day(21), "00:00"); err != nil {
		return err
	}

	// Each article is written by the person who schedules it: a
	// Contributor may schedule only their own (schedules:write:own, §10.2).
	entry := func(by engine.User, title, slug, lang, summary string) (content.Node, error) {
		return nds.CreateNode(ctx, by, site.ID, release.KindContentEntry, content.Body{Title: title, Slug: slug,
			Lang: lang, Status: content.StatusDraft, Summary: summary, Text: summary})
	}
	singles := []struct {
		by                    engine.User
		title, slug, lang, at string
		days                  int
	}{
		{editor, "Haftanın kitapları", "haftanin-kitaplari", "tr", "09:00", 1},
		{editor, "Local elections: what to expect", "local-elections", "en", "10:30", 2},
		{contributor, "Boğaz'da yeni vapur seferleri", "yeni-vapur-seferleri", "tr", "14:00", 3},
		{editor, "Interview: the city's new librarian", "new-librarian", "en", "09:00", 5},
		{editor, "Kış festivali programı", "kis-festivali", "tr", "18:00", 7},
		{contributor, "Transit strike: live updates", "transit-strike", "en", "07:30", 10},
		{editor, "The year in review", "year-in-review", "en", "12:00", 24},
	}
	for _, s := range singles {
		n, err := entry(s.by, s.title, s.slug, s.lang, s.title+".")
		if err != nil {
			return err
		}
		if _, err := eng.ScheduleNode(ctx, s.by, releases.ScheduleInput{SiteID: site.ID, NodeID: n.ID, ExpectedRev: n.Rev,
			Date: day(s.days), Time: s.at}); err != nil {
			return err
		}
	}

	// The weekend edition: two articles in one release.
	var weekend []string
	for _, e := range [][3]string{{"Weekend recipes", "weekend-recipes", "en"}, {"Hafta sonu gezi rehberi", "gezi-rehberi", "tr"}} {
		n, err := entry(editor, e[0], e[1], e[2], e[0]+".")
		if err != nil {
			return err
		}
		weekend = append(weekend, n.ID)
	}
	edition, err := eng.NewRelease(ctx, editor, site.ID, "Weekend edition", weekend)
	if err != nil {
		return err
	}
	if _, err := eng.ScheduleRelease(ctx, editor, site.ID, edition.ID, edition.Rev, day(9), "08:00"); err != nil {
		return err
	}

	// An embargoed report: its gate opens when its release publishes it.
	nine := today.AddDays(12)
	nine.Hour, nine.Minute = 9, 0
	open, _ := localtime.Resolve(nine, loc)
	report, err := nds.CreateNode(ctx, editor, site.ID, release.KindContentEntry, content.Body{Title: "Quarterly report",
		Slug: "quarterly-report", Lang: "en", Status: content.StatusDraft, Summary: "Embargoed until its release.",
		Text: "The quarter in numbers.", Availability: &content.Availability{From: &open}})
	if err != nil {
		return err
	}
	_, err = eng.ScheduleNode(ctx, editor, releases.ScheduleInput{SiteID: site.ID, NodeID: report.ID, ExpectedRev: report.Rev,
		Date: day(12), Time: "09:00"})
	return err
}

// demoImage draws the demo's autumn picture: a sky, a low sun, hills and the
// Bosphorus, as a 1200×630 PNG (the size sharing cards use).
func demoImage() ([]byte, error) {
	const w, h = 1200, 630
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: uint8(250 - y/6), G: uint8(190 - y/5), B: uint8(120 + y/8), A: 255} // evening sky
			dx, dy := x-820, y-300
			switch {
			case dx*dx+dy*dy < 70*70:
				c = color.NRGBA{R: 255, G: 214, B: 120, A: 255} // the sun
			case y > 380+int(40*math.Sin(float64(x)/140)):
				c = color.NRGBA{R: 150, G: 70, B: 30, A: 255} // hills in autumn
			}
			if y > 470 {
				c = color.NRGBA{R: 40, G: uint8(70 + (y-470)/6), B: 110, A: 255} // the water
			}
			m.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
