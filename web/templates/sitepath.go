package templates

import (
	"context"
	"strings"

	"github.com/a-h/templ"
)

// SitePrefix is where a site's Studio pages live: /studio/s/{siteId}/…
// (issue 15). The same page without it, /studio/…, shows the site the
// person was last on; every page keeps the prefix it was asked under, so
// links, forms and htmx requests stay on one site in each tab.
const SitePrefix = "/studio/s/"

type siteBaseKey struct{}

// WithSiteBase makes StudioPath put the Studio paths of pages rendered
// with ctx under siteID's prefix; "" leaves them as they are.
func WithSiteBase(ctx context.Context, siteID string) context.Context {
	if siteID == "" {
		return ctx
	}
	return context.WithValue(ctx, siteBaseKey{}, SitePrefix+siteID)
}

// SiteBase is the prefix WithSiteBase set ("/studio/s/site_x"), or "".
func SiteBase(ctx context.Context) string {
	base, _ := ctx.Value(siteBaseKey{}).(string)
	return base
}

// StudioPath is the Studio path p ("/studio/content/ent_1?x=y") on the
// site of ctx: "/studio/s/site_x/content/ent_1?x=y". A path already under a
// site's prefix, or outside Studio, is returned as it is.
func StudioPath(ctx context.Context, p string) string {
	base := SiteBase(ctx)
	if base == "" || strings.HasPrefix(p, SitePrefix) {
		return p
	}
	rest, ok := strings.CutPrefix(p, "/studio")
	if !ok || (rest != "" && !strings.ContainsRune("/?#", rune(rest[0]))) || siteless(rest) {
		return p
	}
	return base + rest
}

// siteless reports the Studio pages of no site: signing in and out, the
// language switch, the first run, an invitation's and a reset's link.
func siteless(rest string) bool {
	page, _, _ := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	page, _, _ = strings.Cut(page, "?")
	switch page {
	case "login", "logout", "lang", "setup", "join", "reset":
		return true
	}
	return false
}

// studioURL is StudioPath for an href or action.
func studioURL(ctx context.Context, p string) templ.SafeURL {
	return templ.SafeURL(StudioPath(ctx, p))
}

// WithoutSite is the Studio path p taken out of its site's prefix:
// "/studio/s/site_x/schedules?v=month" → "/studio/schedules?v=month".
func WithoutSite(p string) string {
	rest, ok := strings.CutPrefix(p, SitePrefix)
	if !ok {
		return p
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return "/studio" + rest[i:]
	}
	return "/studio"
}
