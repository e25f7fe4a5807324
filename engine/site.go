package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/policy"
)

// siteHash digests the site's body, so a pointer flip can be guarded on it.
func siteHash(s Site) string {
	data, _ := json.Marshal(struct {
		Name, TimeZone, PublishedSnapshotID string
	}{s.Name, s.TimeZone, s.PublishedSnapshotID})
	sum := sha256.Sum256(data)
	return "sha256-" + hex.EncodeToString(sum[:])
}

// SiteHash is siteHash for the use-case packages above the kernel.
func SiteHash(s Site) string { return siteHash(s) }

// CreateSite creates a site with no live snapshot, in the schema's default
// language (the demo's; see SetSiteLang to change it).
func (e *Engine) CreateSite(ctx context.Context, name, timeZone string) (Site, error) {
	return e.CreateSiteIn(ctx, name, timeZone, "")
}

// CreateSiteIn is CreateSite in the language lang ("" for the default).
func (e *Engine) CreateSiteIn(ctx context.Context, name, timeZone, lang string) (Site, error) {
	if _, err := localtime.LoadZone(timeZone); err != nil {
		return Site{}, refuse("bad_zone", "timeZone")
	}
	if lang != "" && !ValidLanguage(lang) {
		return Site{}, refuse("bad_language", "lang")
	}
	s := Site{ID: ids.New("site"), Name: name, TimeZone: timeZone, Lang: lang, Rev: 1}
	s.Hash = siteHash(s)
	if err := e.store.CreateSite(ctx, s, e.Now()); err != nil {
		return Site{}, err
	}
	return e.store.Site(ctx, s.ID) // with the language the schema gave it
}

// Site returns the site with id.
func (e *Engine) Site(ctx context.Context, id string) (Site, error) { return e.store.Site(ctx, id) }

// Sites lists every site, oldest first.
func (e *Engine) Sites(ctx context.Context) ([]Site, error) { return e.store.Sites(ctx) }

// MayPublishSite reports whether u may publish the whole working copy
// (Publish): site:publish at the any level. Publishing only one's own
// changes (site:publish:own) goes through a release of them.
func MayPublishSite(u User) bool { return u.Level(policy.SitePublish) == policy.LevelAny }
