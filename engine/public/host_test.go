package public_test

import (
	"testing"

	"studio/engine"
	"studio/engine/public"
)

// SiteForHost (issue 15): a site is served at the host of its public URL
// (any case, a final dot, the port when the URL names one), the default
// site at every other host, and no site when none is the default among
// several.
func TestSiteForHost(t *testing.T) {
	site := func(id, url string, def bool) public.LiveSite {
		return public.LiveSite{Site: engine.Site{ID: id, PublicURL: url, DefaultHost: def}}
	}
	a := site("site_a", "https://news.example", true)
	b := site("site_b", "https://kuzey.example", false)
	c := site("site_c", "http://127.0.0.1:8081", false)
	d := site("site_d", "", false)
	all := []public.LiveSite{a, b, c, d}
	for _, tc := range []struct {
		sites []public.LiveSite
		host  string
		want  string
	}{
		{all, "kuzey.example", "site_b"},
		{all, "KUZEY.Example.", "site_b"},
		{all, "kuzey.example:443", "site_b"},
		{all, "news.example", "site_a"},
		{all, "127.0.0.1:8081", "site_c"},
		{all, "127.0.0.1:8080", "site_a"}, // c names its port
		{all, "elsewhere.example", "site_a"},
		{all, "", "site_a"},
		{[]public.LiveSite{b, c, d}, "elsewhere.example", ""},
		{[]public.LiveSite{b, c, d}, "kuzey.example", "site_b"},
		{[]public.LiveSite{d}, "anything.example", "site_d"},
		{nil, "news.example", ""},
	} {
		got, ok := public.SiteForHost(tc.sites, tc.host)
		if got.ID != tc.want || ok != (tc.want != "") {
			t.Errorf("SiteForHost(%d sites, %q) = %q, %v; want %q", len(tc.sites), tc.host, got.ID, ok, tc.want)
		}
	}
}
