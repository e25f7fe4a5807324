package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sort"
	"strings"

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

// Nodes lists a site's working copy with what is live and what is held,
// for someone who reads its content.
func (e *Engine) Nodes(ctx context.Context, u User, siteID string) ([]NodeDetail, error) {
	if err := require(u, siteID, policy.ContentRead); err != nil {
		return nil, err
	}
	nodes, err := e.store.Nodes(ctx, siteID)
	if err != nil {
		return nil, err
	}
	live, held, err := e.liveAndHeld(ctx, siteID, "")
	if err != nil {
		return nil, err
	}
	out := make([]NodeDetail, len(nodes))
	for i, n := range nodes {
		out[i] = detail(n, live, held)
	}
	return out, nil
}

// Node returns one node of a site with what is live and what is held, for
// someone who reads its content.
func (e *Engine) Node(ctx context.Context, u User, siteID, id string) (NodeDetail, error) {
	if err := require(u, siteID, policy.ContentRead); err != nil {
		return NodeDetail{}, err
	}
	return e.node(ctx, siteID, id)
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
	live, held, err := e.liveAndHeld(ctx, siteID, id)
	if err != nil {
		return NodeDetail{}, nil, err
	}
	d := detail(n, live, held)
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

func detail(n content.Node, live map[string]LiveNode, held map[string]Held) NodeDetail {
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
func (e *Engine) liveAndHeld(ctx context.Context, siteID, nodeID string) (map[string]LiveNode, map[string]Held, error) {
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

// CreateNode saves the first version of a page or an entry.
func (e *Engine) CreateNode(ctx context.Context, u User, siteID string, kind release.NodeKind, body content.Body) (content.Node, error) {
	if err := require(u, siteID, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	prefix := map[release.NodeKind]string{release.KindPage: "pag", release.KindContentEntry: "ent"}[kind]
	if prefix == "" {
		return content.Node{}, refuse("bad_node_kind", "kind")
	}
	n := content.Node{ID: ids.New(prefix), SiteID: siteID, Kind: kind}
	if strings.TrimSpace(body.Slug) == "" {
		body.Slug = content.Slugify(body.Title) // the address follows the title until someone types one
	}
	if body.Lang == "" {
		lang, err := e.siteLang(ctx, siteID)
		if err != nil {
			return content.Node{}, err
		}
		body.Lang = lang
	}
	return e.save(ctx, u, n, 0, body)
}

// siteLang is the language a new page, article or asset of a site is
// written in when its editor names none: the site's own (Site.Lang), the
// one its public site's words (its menu, its dates) are in.
func (e *Engine) siteLang(ctx context.Context, siteID string) (string, error) {
	s, err := e.store.Site(ctx, siteID)
	if err != nil {
		return "", err
	}
	return s.Lang, nil
}

// SaveNode saves a new version of a node the person last saw at expectedRev.
// A node held by a release is locked (RFC §6.2). A body without a language
// keeps the node's.
func (e *Engine) SaveNode(ctx context.Context, u User, siteID, id string, expectedRev int64, body content.Body) (content.Node, error) {
	return e.update(ctx, u, siteID, id, expectedRev, func(was content.Body) content.Body {
		if body.Lang == "" {
			body.Lang = was.Lang // a body that names no language keeps the one it had
		}
		return body
	})
}

// EditNode is SaveNode for the editor's fields: the parts of the body the
// editor does not show are kept.
func (e *Engine) EditNode(ctx context.Context, u User, siteID, id string, expectedRev int64, in content.Edit) (content.Node, error) {
	return e.update(ctx, u, siteID, id, expectedRev, func(b content.Body) content.Body { return b.With(in) })
}

func (e *Engine) update(ctx context.Context, u User, siteID, id string, expectedRev int64, edit func(content.Body) content.Body) (content.Node, error) {
	if err := require(u, siteID, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	d, err := e.node(ctx, siteID, id)
	if err != nil {
		return content.Node{}, err
	}
	if !u.mayWriteNode(d.Author.ID) {
		return content.Node{}, refuse(CodeForbidden, "") // someone else's node, at the own level
	}
	if d.Held != nil {
		return content.Node{}, LockedBy(d.Held)
	}
	if d.Rev != expectedRev {
		return content.Node{}, refuse(CodeStale, "")
	}
	return e.save(ctx, u, d.Node, expectedRev, edit(d.Body))
}

func (e *Engine) save(ctx context.Context, u User, n content.Node, expectedRev int64, body content.Body) (content.Node, error) {
	body = content.Normalize(body)
	validate := content.Validate
	if n.Kind == release.KindAsset {
		validate = content.ValidateAsset // a file: its slug is its file name
	}
	if err := validate(body); err != nil {
		var fe *content.FieldError
		if errors.As(err, &fe) {
			return content.Node{}, &Error{Code: fe.Key[len("error."):], Field: fe.Field}
		}
		return content.Node{}, err
	}
	if n.Kind == release.KindAsset {
		data, err := cleanImage(n.Body.Data, body)
		if err != nil {
			return content.Node{}, err
		}
		body.Data = data
	}
	if err := e.checkAddress(ctx, n, body); err != nil {
		return content.Node{}, err
	}
	if n.Kind != release.KindAsset {
		refs, err := e.imageRefs(ctx, n.SiteID, body)
		if err != nil {
			return content.Node{}, err
		}
		body.Refs = refs
	}
	n.Body, n.Hash, n.Rev, n.UpdatedAt = body, content.Hash(body), expectedRev+1, e.Now()
	if expectedRev == 0 {
		n.Author = u.Actor() // who creates a node is its author, for good
	}
	if err := e.store.SaveNode(ctx, n, expectedRev, u.Actor(), n.UpdatedAt); err != nil {
		if errors.Is(err, ErrConflict) {
			return content.Node{}, refuse(CodeStale, "")
		}
		return content.Node{}, err
	}
	return n, nil
}

// PendingRefs is what an ordinary publish would make live: the working copy
// except held nodes, which keep their live version (RFC §6.2), and drafts
// that were never live. Deleted nodes leave the live site.
func (e *Engine) PendingRefs(ctx context.Context, siteID string) (next []release.Ref, changed int, err error) {
	working, err := e.store.Nodes(ctx, siteID)
	if err != nil {
		return nil, 0, err
	}
	live, held, err := e.liveAndHeld(ctx, siteID, "")
	if err != nil {
		return nil, 0, err
	}
	changed = len(live) // every live node not in the working copy was deleted
	for _, wn := range working {
		n := detail(wn, live, held)
		if n.Live != nil {
			changed--
		}
		ref := n.Ref()
		switch {
		case n.Held != nil && n.Live == nil:
			continue
		case n.Held != nil:
			ref = *n.Live
		case n.Live == nil && n.Body.Status != content.StatusPublished:
			// A draft that was never live would show nowhere; leaving it out
			// also keeps a release pinned on "not live" from conflicting
			// with a publish it had nothing to do with (§6.4).
			continue
		}
		if n.Live == nil || *n.Live != ref {
			changed++
		}
		next = append(next, ref)
	}
	sort.Slice(next, func(i, j int) bool { return next[i].ID < next[j].ID })
	return next, changed, nil
}

// PendingCount is how many changes a publish of the site would make: the
// changed of PendingRefs, counted by the store without reading the site
// (what the content list shows on every page).
func (e *Engine) PendingCount(ctx context.Context, u User, siteID string) (int, error) {
	if err := require(u, siteID, policy.ContentRead); err != nil {
		return 0, err
	}
	return e.store.PendingCount(ctx, siteID)
}

// MayPublishSite reports whether u may publish the whole working copy
// (Publish): site:publish at the any level. Publishing only one's own
// changes (site:publish:own) goes through a release of them.
func MayPublishSite(u User) bool { return u.Level(policy.SitePublish) == policy.LevelAny }

// Publish makes the working copy live, except held nodes: a new snapshot and
// a compare-and-swap flip of the site's pointer.
func (e *Engine) Publish(ctx context.Context, u User, siteID string) (Snapshot, error) {
	if err := ActsOn(u, siteID); err != nil {
		return Snapshot{}, err
	}
	if !MayPublishSite(u) {
		return Snapshot{}, refuse(CodeForbidden, "")
	}
	site, err := e.store.Site(ctx, siteID)
	if err != nil {
		return Snapshot{}, err
	}
	if err := e.dateFirstPublished(ctx, u, siteID); err != nil {
		return Snapshot{}, err
	}
	refs, changed, err := e.PendingRefs(ctx, siteID)
	if err != nil {
		return Snapshot{}, err
	}
	if changed == 0 {
		return Snapshot{}, refuse(release.CodeNothingToPublish, "")
	}
	now := e.Now()
	snap := Snapshot{ID: ids.New("snp"), SiteID: siteID, ParentID: site.PublishedSnapshotID,
		Reason: "publish", Actor: u.Actor(), Refs: refs, CreatedAt: now}
	next := site
	next.PublishedSnapshotID, next.Rev = snap.ID, site.Rev+1
	audit := AuditEntry{Action: "site.publish", Actor: u.Actor(), SiteID: siteID, At: now,
		Details: map[string]any{"snapshot": snap.ID, "changed": changed}}
	if err := e.store.PublishSnapshot(ctx, site, siteHash(next), snap, audit); err != nil {
		if errors.Is(err, ErrConflict) {
			return Snapshot{}, refuse(CodeStale, "")
		}
		return Snapshot{}, err
	}
	return snap, nil
}

// LiveNodes returns the site's live snapshot with bodies, for the public site.
func (e *Engine) LiveNodes(ctx context.Context, site Site) ([]LiveNode, error) {
	if site.PublishedSnapshotID == "" {
		return nil, nil
	}
	return e.store.LiveNodes(ctx, site.PublishedSnapshotID, "")
}

// LiveChangesSince is what site's live snapshot changed since the older
// snapshot from (Store.LiveChanges): the public site builds its next
// model from the one before with it, reading only what changed.
func (e *Engine) LiveChangesSince(ctx context.Context, site Site, from string) (set []LiveNode, gone []string, ok bool, err error) {
	if site.PublishedSnapshotID == "" || from == "" {
		return nil, nil, false, nil
	}
	return e.store.LiveChanges(ctx, site.ID, from, site.PublishedSnapshotID)
}

// LockedBy is the refusal to change a held node (§6.2): it names the
// release and, when it has one, its time.
func LockedBy(h *Held) *Error {
	args := map[string]any{"Release": h.ReleaseID}
	if h.At != nil {
		args["When"] = *h.At
	}
	return &Error{Code: CodeScheduledLocked, Args: args}
}

// dateFirstPublished gives each page and entry that an ordinary publish
// takes live for the first time with an embargo and no date its embargo's
// from as its date (§7.5), as a new version of its working copy saved
// before the snapshot is composed. It is its own write: should the publish
// then stop, the working copy only has the date it will get anyway.
// Nodes without an embargo keep an ordinary publish's old behaviour (no
// date is made up for them).
func (e *Engine) dateFirstPublished(ctx context.Context, u User, siteID string) error {
	working, err := e.store.Nodes(ctx, siteID)
	if err != nil {
		return err
	}
	var due []content.Node
	for _, n := range working {
		from, _ := n.Body.Gates()
		if from != nil && n.Body.PublishedAt == nil && n.Body.Status == content.StatusPublished &&
			(n.Kind == release.KindContentEntry || n.Kind == release.KindPage) {
			due = append(due, n)
		}
	}
	if len(due) == 0 {
		return nil // the usual case reads nothing more
	}
	live, held, err := e.liveAndHeld(ctx, siteID, "")
	if err != nil {
		return err
	}
	now := e.Now()
	for _, n := range due {
		if _, ok := live[n.ID]; ok {
			continue // published before: its date is not moved (§7.5)
		}
		if _, ok := held[n.ID]; ok {
			continue // a held node keeps its live version; its release dates it
		}
		next := n
		next.Body.PublishedAt = content.FirstPublishedAt(n.Body, now)
		next.Rev, next.Hash, next.UpdatedAt = n.Rev+1, content.Hash(next.Body), now
		if err := e.store.SaveNode(ctx, next, n.Rev, u.Actor(), now); err != nil {
			if errors.Is(err, ErrConflict) {
				return refuse(CodeStale, "")
			}
			return err
		}
	}
	return nil
}
