package public

import (
	"net"
	"net/url"
	"strings"
)

// SiteForHost is the site a public request for host (its Host header, with
// or without a port) is for (issue 15): the oldest site whose public URL
// names that host (and port, when the URL gives one); else the site that
// is the default for unknown hosts; else the only site there is. False
// when none is: several sites, none of them this host's and none the
// default.
func SiteForHost(sites []LiveSite, host string) (LiveSite, bool) {
	name, port := splitHost(host)
	for _, s := range sites {
		if s.PublicURL == "" {
			continue
		}
		u, err := url.Parse(s.PublicURL)
		if err != nil {
			continue
		}
		if strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), name) && (u.Port() == "" || u.Port() == port) {
			return s, true
		}
	}
	for _, s := range sites {
		if s.DefaultHost {
			return s, true
		}
	}
	if len(sites) == 1 {
		return sites[0], true
	}
	return LiveSite{}, false
}

// splitHost is a Host header's name, lower-case without a final dot, and
// its port ("" without one).
func splitHost(host string) (name, port string) {
	name = host
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
	}
	return strings.ToLower(strings.TrimSuffix(name, ".")), port
}

// SameHost reports whether two public URLs name one host: the public site
// could tell their sites apart by nothing else.
func SameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && a != "" && b != "" && strings.EqualFold(ua.Host, ub.Host)
}
