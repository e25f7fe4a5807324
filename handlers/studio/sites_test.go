package studio_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"studio/engine/policy"
	"studio/engine/setup"
	"studio/handlers/internal/apptest"
	"studio/locales"
)

// studioLinkRe finds the Studio addresses a page links, posts or asks htmx
// for (including the Month grid's data-* URLs).
var studioLinkRe = regexp.MustCompile(`(?:href|action|formaction|hx-get|hx-post|data-[a-z-]+)="(/studio[^"]*)"`)

// sitelessPage reports the Studio pages of no site (templates.StudioPath).
func sitelessPage(p string) bool {
	for _, s := range []string{"/studio/login", "/studio/logout", "/studio/lang", "/studio/setup", "/studio/join", "/studio/reset"} {
		if p == s || strings.HasPrefix(p, s+"?") || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// TestSitesInStudio (issue 15): an Owner makes another site in Studio and
// becomes its Owner; the site is in every Studio URL, and every link,
// form and htmx request of a page keeps it; a site one is no member of is
// a page that does not exist; bad input is refused field by field and
// changes nothing.
func TestSitesInStudio(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	owner := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	c := a.SignedIn(t, owner)
	home := "/studio/s/" + a.Site.ID

	c.Check(t, apptest.Scenario{Name: "Root", URL: "/studio", ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": home + "/schedules"}})
	for _, page := range []string{"/schedules", "/schedules?view=month", "/content", "/content/" + a.Draft.ID, "/approvals",
		"/history", "/people", "/settings", "/account", "/schedules/automations"} {
		res := c.Check(t, apptest.Scenario{Name: page, URL: home + page, ExpectedStatus: http.StatusOK,
			ExpectedContent: []string{`data-testid="site-name">Demo Gazette<`}})
		links := studioLinkRe.FindAllStringSubmatch(res.Body, -1)
		if len(links) < 5 {
			t.Fatalf("%s links %d Studio addresses; the pattern misses them", page, len(links))
		}
		for _, m := range links {
			if p := m[1]; p != home && !strings.HasPrefix(p, home+"/") && !sitelessPage(p) {
				t.Errorf("%s links %q, outside its site's %s", page, p, home)
			}
		}
	}

	// The New site page, and its refusals: every field at once, nothing
	// written.
	c.Check(t, apptest.Scenario{Name: "NewSiteForm", URL: home + "/sites/new", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="new-site-form"`, `action="` + home + `/sites"`, `data-testid="add-site"`}})
	token := c.Token()
	en := locales.For("en")
	before := a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "AllBad", Method: "POST", URL: home + "/sites", ExpectedStatus: http.StatusUnprocessableEntity,
		Form:            url.Values{"csrf_token": {token}, "siteName": {" "}, "publicUrl": {"ftp://kuzey.example/x"}, "timeZone": {"Mars/Olympus"}, "siteLang": {"xx"}},
		ExpectedContent: []string{en.T("error.bad_site_name"), html.EscapeString(en.T("error.bad_public_url")), en.T("error.unknown_zone"), en.T("error.bad_language")}})
	if after := a.Fingerprint(t); after != before {
		t.Errorf("a refused site changed state:\n%s\n%s", before, after)
	}
	good := url.Values{"csrf_token": {token}, "siteName": {"Kuzey Haber"}, "publicUrl": {"https://kuzey.example"},
		"timeZone": {"Europe/Istanbul"}, "siteLang": {"tr"}}
	res := c.Check(t, apptest.Scenario{Name: "Create", Method: "POST", URL: home + "/sites", Form: good, ExpectedStatus: http.StatusSeeOther})
	sites, err := a.Engine.Sites(ctx)
	if err != nil || len(sites) != 2 {
		t.Fatalf("sites after one was made: %v %v", sites, err)
	}
	kuzey := sites[0]
	if kuzey.ID == a.Site.ID {
		kuzey = sites[1]
	}
	if kuzey.Name != "Kuzey Haber" || kuzey.TimeZone != "Europe/Istanbul" || kuzey.Lang != "tr" || kuzey.PublicURL != "https://kuzey.example" || kuzey.DefaultHost {
		t.Errorf("the new site: %+v", kuzey)
	}
	if got, want := res.Header.Get("Location"), "/studio/s/"+kuzey.ID+"/schedules"; got != want {
		t.Errorf("after making the site: to %q, want %q", got, want)
	}
	if m, err := a.Store.MemberByID(ctx, kuzey.ID, owner.ID); err != nil || m.Role != policy.Owner {
		t.Errorf("the maker's membership of the new site: %+v %v", m, err)
	}
	c.Check(t, apptest.Scenario{Name: "Created", URL: res.Header.Get("Location"), ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{en.T("sites.created"), `data-testid="site-name">Kuzey Haber<`}})
	// The same host again is refused: the public site tells sites apart by host.
	again := url.Values{"csrf_token": {token}, "siteName": {"Kuzey 2"}, "publicUrl": {"https://KUZEY.example/"},
		"timeZone": {"UTC"}, "siteLang": {"en"}}
	before = a.Fingerprint(t)
	c.Check(t, apptest.Scenario{Name: "HostTaken", Method: "POST", URL: home + "/sites", Form: again,
		ExpectedStatus: http.StatusUnprocessableEntity, ExpectedContent: []string{en.T("error.public_url_taken")}})
	if after := a.Fingerprint(t); after != before {
		t.Errorf("a refused site changed state:\n%s\n%s", before, after)
	}

	// The new site's Studio: its name, a switcher to both, and the
	// unprefixed Studio follows the site last opened.
	there := "/studio/s/" + kuzey.ID
	c.Check(t, apptest.Scenario{Name: "NewSiteStudio", URL: there + "/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="site-name">Kuzey Haber<`, `href="` + home + `/content"`, `href="` + there + `/content"`}})
	c.Check(t, apptest.Scenario{Name: "LastSite", URL: "/studio", ExpectedStatus: http.StatusSeeOther,
		ExpectedHeaders: map[string]string{"Location": there + "/schedules"}})
	c.Check(t, apptest.Scenario{Name: "Unprefixed", URL: "/studio/content", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{`data-testid="site-name">Kuzey Haber<`}})

	// Nobody else sees it: a site one is no member of does not exist.
	ed := a.SignedIn(t, a.Editor)
	for _, p := range []string{there + "/content", there + "/schedules", there + "/settings", "/studio/s/site_nope/content"} {
		ed.Check(t, apptest.Scenario{Name: "NotAMember", URL: p, ExpectedStatus: http.StatusNotFound, NotExpectedContent: []string{"Kuzey"}})
	}
	ed.Check(t, apptest.Scenario{Name: "OwnSite", URL: "/studio/content", ExpectedStatus: http.StatusOK, NotExpectedContent: []string{"Kuzey"}})

	// An Administrator may not make sites: no link, no page, no site.
	admin := a.SignedIn(t, a.Admin(t))
	admin.Check(t, apptest.Scenario{Name: "AdminNoLink", URL: home + "/content", ExpectedStatus: http.StatusOK, NotExpectedContent: []string{`data-testid="add-site"`}})
	admin.Check(t, apptest.Scenario{Name: "AdminForm", URL: home + "/sites/new", ExpectedStatus: http.StatusForbidden})
	before = a.Fingerprint(t)
	good.Set("csrf_token", admin.Token())
	good.Set("publicUrl", "https://guney.example")
	admin.Check(t, apptest.Scenario{Name: "AdminCreate", Method: "POST", URL: home + "/sites", Form: good, ExpectedStatus: http.StatusForbidden})
	if after := a.Fingerprint(t); after != before {
		t.Errorf("an Administrator's site changed state:\n%s\n%s", before, after)
	}
	if sites, _ := a.Engine.Sites(ctx); len(sites) != 2 {
		t.Errorf("an Administrator made a site: %d sites", len(sites))
	}
}

// TestSiteAddressInSettings (issue 15): an Administrator sets where the
// public site is read, and the public site answers that host with it;
// another site's host and a bad address are refused and change nothing;
// only an Owner of both sites moves the default for unknown hosts.
func TestSiteAddressInSettings(t *testing.T) {
	t.Parallel()
	a := apptest.New(t)
	ctx := context.Background()
	en := locales.For("en")
	home := "/studio/s/" + a.Site.ID
	oya := a.AddUser(t, "owner@example.com", "Oya Owner", policy.Owner, "en")
	kuzey, err := a.Setup.CreateSite(ctx, oya, setup.SiteInput{Name: "Kuzey Haber", PublicURL: "https://kuzey.example",
		TimeZone: "Europe/Istanbul", Lang: "tr"})
	if err != nil {
		t.Fatal(err)
	}
	save := func(c *apptest.Client, site, publicURL string, def bool) apptest.Response {
		t.Helper()
		s, err := a.Engine.Site(ctx, site)
		if err != nil {
			t.Fatal(err)
		}
		form := url.Values{"csrf_token": {c.Token()}, "rev": {fmt.Sprint(s.Rev)}, "publicUrl": {publicURL}}
		if def {
			form.Set("defaultHost", "on")
		}
		return c.Post("/studio/s/"+site+"/settings/address", form)
	}
	admin := a.SignedIn(t, a.Admin(t))
	if res := save(admin, a.Site.ID, "https://gazette.example", true); res.Status != http.StatusSeeOther {
		t.Fatalf("an Administrator's address: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	admin.Check(t, apptest.Scenario{Name: "Saved", URL: home + "/settings", ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{en.T("settings.address_saved"), `value="https://gazette.example"`}})
	v := a.Client(t, "")
	v.Check(t, apptest.Scenario{Name: "ItsHost", URL: "/rss.xml", Header: map[string]string{"Host": "gazette.example"}, ExpectedStatus: http.StatusOK,
		ExpectedContent: []string{"<link>https://gazette.example/posts/welcome</link>"}})

	zed := a.SignedIn(t, a.AddUserOn(t, kuzey.ID, "zed@kuzey.example", "Zed", policy.Owner))
	before := a.Fingerprint(t)
	for _, c := range []struct {
		name, url string
		def       bool
		sentence  string
	}{
		{"Taken", "https://kuzey.example/", true, en.T("error.public_url_taken")},
		{"Bad", "gazette.example", true, html.EscapeString(en.T("error.bad_public_url"))},
		{"AdminGivesUpTheDefault", "https://gazette.example", false, en.T("error.default_owner_only")},
	} {
		res := save(admin, a.Site.ID, c.url, c.def)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, c.sentence) {
			t.Errorf("%s: %d, want 422 saying %q\n%s", c.name, res.Status, c.sentence, apptest.Excerpt(res.Body))
		}
	}
	// Kuzey's own Owner is no Owner of the Gazette, the default now.
	if res := save(zed, kuzey.ID, "https://kuzey.example", true); res.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(res.Body, en.T("error.default_owner_only")) {
		t.Errorf("an Owner of Kuzey only took the default: %d", res.Status)
	}
	if after := a.Fingerprint(t); after != before {
		t.Errorf("refused addresses changed state:\n%s\n%s", before, after)
	}
	// Oya owns both: Kuzey answers unknown hosts from now on.
	if err := a.Store.AddMember(ctx, a.Site.ID, oya.ID, policy.Owner, apptest.Start); err == nil {
		t.Fatal("Oya was already the Gazette's Owner, the fixture is wrong")
	}
	if res := save(a.SignedIn(t, oya), kuzey.ID, "https://kuzey.example", true); res.Status != http.StatusSeeOther {
		t.Fatalf("an Owner of both sites moving the default: %d\n%s", res.Status, apptest.Excerpt(res.Body))
	}
	sites, err := a.Engine.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		if s.DefaultHost != (s.ID == kuzey.ID) {
			t.Errorf("%s answers unknown hosts: %v", s.Name, s.DefaultHost)
		}
	}
	v.Check(t, apptest.Scenario{Name: "UnknownHostIsKuzey", URL: "/", Header: map[string]string{"Host": "elsewhere.example"},
		ExpectedStatus: http.StatusOK, ExpectedContent: []string{`lang="tr"`}, NotExpectedContent: []string{"Welcome to the Gazette"}})
}
