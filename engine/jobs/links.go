package jobs

import (
	"context"
	"regexp"
	"strings"
	"time"

	"studio/engine/content"
	"studio/engine/model/gate"
	"studio/engine/model/release"
)

// liveIndex is a live snapshot's nodes by id and by public path.
type liveIndex struct {
	byID   map[string]IndexNode
	byPath map[string]IndexNode
}

// maxIndexes bounds the snapshots whose index Jobs keeps.
const maxIndexes = 4

// index returns the live index of a snapshot, read once per snapshot.
func (j *Jobs) index(ctx context.Context, snapshotID string) (*liveIndex, error) {
	j.mu.Lock()
	ix, ok := j.indexes[snapshotID]
	j.mu.Unlock()
	if ok {
		return ix, nil
	}
	nodes, err := j.store.LiveIndex(ctx, snapshotID)
	if err != nil {
		return nil, err
	}
	ix = &liveIndex{byID: make(map[string]IndexNode, len(nodes)), byPath: make(map[string]IndexNode, len(nodes))}
	for _, n := range nodes { // by id: the first of two with one address keeps it
		ix.byID[n.ID] = n
		if p := content.Path(n.Kind, n.Slug); p != "" && n.Published {
			if _, taken := ix.byPath[p]; !taken {
				ix.byPath[p] = n
			}
		}
	}
	j.mu.Lock()
	if len(j.indexes) >= maxIndexes {
		clear(j.indexes)
	}
	j.indexes[snapshotID] = ix
	j.mu.Unlock()
	return ix, nil
}

// Where a link lands at an instant.
const (
	landsOK        = ""
	landsMissing   = "missing"
	landsEmbargoed = "embargoed"
	landsExpired   = "expired"
	landsOutside   = "outside" // not a public page (Studio, the API) or another site: not checked
)

// siteRoutes are the public site's own paths that are always there.
var siteRoutes = map[string]bool{"/": true, "/posts": true, "/rss.xml": true, "/sitemap.xml": true, "/robots.txt": true}

// notPublic are first path segments that are not the public site's pages.
var notPublic = map[string]bool{"studio": true, "api": true, "mcp": true, "preview": true, "static": true,
	"health": true, "metrics": true}

// gateNode is n as the gates see it.
func gateNode(n IndexNode) gate.Node {
	return gate.Node{ID: n.ID, Published: n.Published, From: n.From, Until: n.Until}
}

// lands says where a node lands at now: open, or held back by a gate.
func lands(n IndexNode, now time.Time) string {
	switch gate.State(gateNode(n), now) {
	case gate.Embargoed:
		return landsEmbargoed
	case gate.Expired:
		return landsExpired
	}
	if !n.Published {
		return landsMissing
	}
	return landsOK
}

// resolvePath says where an internal link lands at now, with the node it
// names (when it names one).
func (ix *liveIndex) resolvePath(target string, now time.Time) (string, IndexNode) {
	p, ok := InternalPath(target)
	if !ok {
		return landsOutside, IndexNode{}
	}
	if siteRoutes[p] {
		return landsOK, IndexNode{}
	}
	seg := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 2)
	if notPublic[seg[0]] {
		return landsOutside, IndexNode{}
	}
	n, found := ix.byPath[p]
	if !found {
		return landsMissing, IndexNode{}
	}
	return lands(n, now), n
}

// resolveRef says where a reference (a node id) lands at now.
func (ix *liveIndex) resolveRef(id string, now time.Time) (string, IndexNode) {
	n, ok := ix.byID[id]
	if !ok {
		return landsMissing, IndexNode{ID: id}
	}
	return lands(n, now), n
}

// InternalPath returns the path of a link to the site itself — one that
// starts with a single "/" — without its query and fragment and with runs
// of slashes collapsed; false for any other link (another site, mailto:,
// an anchor on the page), which the jobs never fetch (§11.4: no egress).
func InternalPath(target string) (string, bool) {
	t := strings.TrimSpace(target)
	if !strings.HasPrefix(t, "/") || strings.HasPrefix(t, "//") {
		return "", false
	}
	return NormalizePath(t), true
}

// NormalizePath is the form a public path is judged and counted in: no
// query or fragment, no repeated or trailing slashes, at most MaxPathBytes
// bytes (cut at a character boundary). Case is kept: slugs are lower case,
// so /Posts/X is another path, as the router sees it.
func NormalizePath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	var b strings.Builder
	b.Grow(len(p) + 1)
	b.WriteByte('/')
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte('/')
		}
		b.WriteString(seg)
	}
	out := b.String()
	if len(out) > MaxPathBytes {
		cut := MaxPathBytes
		for cut > 0 && out[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		out = out[:cut]
	}
	return out
}

// MaxPathBytes caps a path as the jobs keep it.
const MaxPathBytes = 200

// link is one link or media reference in a body.
type link struct {
	field  string // body, summary, refs
	target string
	media  bool // an image (Markdown ![]() or <img src>), or a /media/ path
}

var (
	// Markdown inline links and images: [text](target "title"), ![alt](<target>).
	markdownLink = regexp.MustCompile(`(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)`)
	// Markdown autolinks <target> naming a path.
	autoLink = regexp.MustCompile(`<(/[^>\s]*)>`)
	// HTML written in a body: href and src attributes.
	htmlLink = regexp.MustCompile(`(?i)<(a|img|source|video|audio)\b[^>]*?\s(?:href|src)\s*=\s*["']([^"']+)["']`)
)

// links lists the links and media references of a body, in order: the
// text's links, then its references (node ids).
func links(b content.Body) []link {
	var out []link
	add := func(field, target string, media bool) {
		if strings.HasPrefix(strings.TrimSpace(target), "/media/") {
			media = true
		}
		out = append(out, link{field: field, target: strings.TrimSpace(target), media: media})
	}
	for _, f := range []struct{ name, text string }{{"body", b.Text}, {"summary", b.Summary}} {
		for _, m := range markdownLink.FindAllStringSubmatch(f.text, -1) {
			add(f.name, m[2], m[1] == "!")
		}
		for _, m := range autoLink.FindAllStringSubmatch(f.text, -1) {
			add(f.name, m[1], false)
		}
		for _, m := range htmlLink.FindAllStringSubmatch(f.text, -1) {
			add(f.name, m[2], !strings.EqualFold(m[1], "a"))
		}
	}
	for _, id := range b.Refs {
		out = append(out, link{field: "refs", target: id, media: strings.HasPrefix(id, "ast_")})
	}
	return out
}

// isAsset reports whether n is an asset (a media reference).
func isAsset(n IndexNode) bool { return n.Kind == release.KindAsset }
