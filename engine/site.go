package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/localtime"
	"studio/engine/model/release"
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

// SiteHash is siteHash for the use-case packages beside the root.
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

// NodeDetail is a node's working copy with its live version and its hold.
type NodeDetail struct {
	content.Node
	Live       *release.Ref
	LiveStatus content.Status // the live version's status: only published shows
	Held       *Held
}

// node is Node for a use case that has checked its caller already.
func (e *Engine) node(ctx context.Context, siteID, id string) (NodeDetail, error) {
	d, _, err := e.NodeWithLive(ctx, siteID, id)
	return d, err
}

// NodeWithLive is node with the live version's body, nil when the node is
// not live: what engine/gates compares the working copy's gates with. It
// checks no caller: for the engine's use cases that checked theirs (and
// the public site's signed preview links, whose signature is the check).
func (e *Engine) NodeWithLive(ctx context.Context, siteID, id string) (NodeDetail, *content.Body, error) {
	n, err := e.store.Node(ctx, siteID, id)
	if err != nil {
		return NodeDetail{}, nil, err
	}
	live, held, err := e.LiveAndHeld(ctx, siteID, id)
	if err != nil {
		return NodeDetail{}, nil, err
	}
	d := NodeDetailOf(n, live, held)
	if l, ok := live[id]; ok {
		b := l.Body
		return d, &b, nil
	}
	return d, nil, nil
}

// ShownStatus is the status a list shows for the node: a node that is not
// live and that a release holds to publish is a draft until the release
// runs, although scheduling promoted its working copy to published (§7.5).
func (d NodeDetail) ShownStatus() content.Status {
	if d.Live == nil && d.Held != nil && !d.Held.Removes && d.Body.Status == content.StatusPublished {
		return content.StatusDraft
	}
	return d.Body.Status
}

func NodeDetailOf(n content.Node, live map[string]LiveNode, held map[string]Held) NodeDetail {
	d := NodeDetail{Node: n}
	if l, ok := live[n.ID]; ok {
		d.Live, d.LiveStatus = &l.Ref, l.Body.Status
	}
	if h, ok := held[n.ID]; ok {
		d.Held = &h
	}
	return d
}

// liveAndHeld reads the live versions and holds of a site's nodes, or of
// one node when nodeID is set.
func (e *Engine) LiveAndHeld(ctx context.Context, siteID, nodeID string) (map[string]LiveNode, map[string]Held, error) {
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return nil, nil, err
	}
	var live []LiveNode
	if site.PublishedSnapshotID != "" {
		if live, err = e.store.LiveNodes(ctx, site.PublishedSnapshotID, nodeID); err != nil {
			return nil, nil, err
		}
	}
	held, err := e.store.HeldNodes(ctx, siteID, nodeID)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]LiveNode, len(live))
	for _, n := range live {
		byID[n.ID] = n
	}
	return byID, held, nil
}

func (e *Engine) liveRefs(ctx context.Context, site Site) ([]release.Ref, error) {
	if site.PublishedSnapshotID == "" {
		return nil, nil
	}
	snap, err := e.store.Snapshot(ctx, site.PublishedSnapshotID)
	if err != nil {
		return nil, err
	}
	return snap.Refs, nil
}

// MayPublishSite reports whether u may publish the whole working copy
// (Publish): site:publish at the any level. Publishing only one's own
// changes (site:publish:own) goes through a release of them.
func MayPublishSite(u User) bool { return u.Level(policy.SitePublish) == policy.LevelAny }

// LockedBy is the refusal to change a held node (§6.2): it names the
// release and, when it has one, its time.
func LockedBy(h *Held) *Error {
	args := map[string]any{"Release": h.ReleaseID}
	if h.At != nil {
		args["When"] = *h.At
	}
	return &Error{Code: CodeScheduledLocked, Args: args}
}
