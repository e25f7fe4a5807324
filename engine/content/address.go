package content

import (
	"path"
	"strings"

	"studio/engine/model/release"
)

// Namespace is the route namespace whose addresses a kind of node takes on
// the public site: articles under /posts/{slug}, pages under /{slug}, media
// files under /media/{slug}. Other kinds have no address (""). A slug is
// unique within its namespace, across the live versions and the working
// copies of every node of a site.
func Namespace(k release.NodeKind) string {
	switch k {
	case release.KindContentEntry:
		return "posts"
	case release.KindPage:
		return "pages"
	case release.KindAsset:
		return "media"
	}
	return ""
}

// Path is the public address of a node of kind k with slug, "" for a kind
// without an address or an empty slug.
func Path(k release.NodeKind, slug string) string {
	if slug == "" {
		return ""
	}
	switch Namespace(k) {
	case "posts":
		return "/posts/" + slug
	case "pages":
		return "/" + slug
	case "media":
		return "/media/" + slug
	}
	return ""
}

// ReservedPageSlugs are the first path segments the process routes itself
// (Studio, the API, the public site's own routes and files): a page with
// one of them as its slug would never be reached, or would shadow them.
var ReservedPageSlugs = map[string]bool{
	"studio": true, "api": true, "posts": true, "media": true, "preview": true, "static": true,
	"health": true, "mcp": true, "metrics": true, "rss.xml": true, "sitemap.xml": true, "robots.txt": true,
}

// Reserved reports whether a node of kind k may not take slug because the
// process routes that address itself.
func Reserved(k release.NodeKind, slug string) bool {
	return k == release.KindPage && ReservedPageSlugs[strings.ToLower(slug)]
}

// assetExtensions are the file name extensions each asset type goes by.
var assetExtensions = map[string][]string{
	"image/png": {".png"}, "image/jpeg": {".jpg", ".jpeg"}, "image/gif": {".gif"},
	"image/webp": {".webp"}, "image/avif": {".avif"}, "image/svg+xml": {".svg"},
}

// ExtensionFits reports whether a media file's name ends in an extension of
// its media type (bogazda-sonbahar.png for image/png).
func ExtensionFits(name, mime string) bool {
	ext := path.Ext(name)
	for _, e := range assetExtensions[mime] {
		if ext == e {
			return true
		}
	}
	return false
}

// Extension is the usual extension of an asset type (".png"), "" for a
// type assets do not take.
func Extension(mime string) string {
	if e := assetExtensions[mime]; len(e) > 0 {
		return e[0]
	}
	return ""
}
