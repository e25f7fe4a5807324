// Package public is the public view as a use case (RFC §7): of a site's
// live snapshot, what the public may see at an instant and when that next
// changes, and the signed preview links (§7.3) that show one working copy.
// The public site (handlers/site) keeps its templates and render cache and
// asks this package what is visible.
package public

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/gate"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// The public view's read model: what the public site reads on every
// request to know what is live and until when it stays so.
//
// The live site can change in three ways. A gate of a live node passes
// (RFC §7): that instant is content, in the snapshot's gate index. A
// release publishes, removes or rolls back (§6.3): its instant is in the
// releases table, and every request reads it afresh with the site's
// pointer, in the same statement, so a release scheduled, moved or
// canceled a moment ago counts on the next request, whichever process did
// it. A person publishes by hand ("Publish site", Publish now, resuming a
// paused site): no instant predicts that, so the public site's ceiling on
// the CDN's lifetime (--cdn-max-age) bounds it instead.

// ParsePublicURL checks a public base URL as --public-url and the
// first-run setup take it: http or
// https, a host, nothing after it but a "/". It returns it without the
// slash.
func ParsePublicURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("public URL %q: want scheme and host only, as in https://news.example", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// Store is what the public view needs from storage.
type Store interface {
	// LiveSites lists every site, oldest first, each with NextRelease: the
	// earliest execute_at of its releases that are scheduled, awaiting
	// approval or running. One statement.
	LiveSites(ctx context.Context) ([]LiveSite, error)
	// PreviewSecret returns the database's preview key. The first call on
	// a database stores fresh as the key; later calls return the stored
	// one and ignore fresh, so every process sharing the database signs
	// alike.
	PreviewSecret(ctx context.Context, fresh []byte) ([]byte, error)
	// Node reads a node's working copy.
	Node(ctx context.Context, siteID, id string) (content.Node, error)
	// NodeSite is the site of the node id (engine.ErrNotFound for none).
	NodeSite(ctx context.Context, id string) (string, error)
	// Generation is a number that changes whenever anything commits to
	// the database, from any process; it reads no table.
	Generation(ctx context.Context) (int64, error)
}

// Engine is what the public view needs from the engine: the clock and a
// node's working copy.
type Engine interface {
	Now() time.Time
	// NodeWithLive reads a node without a caller: a preview link's
	// signature is its check.
	NodeWithLive(ctx context.Context, siteID, id string) (releases.NodeDetail, *content.Body, error)
}

// Nodes is what the public view needs from the node use cases
// (engine/nodes): the live nodes of a site's snapshot.
type Nodes interface {
	LiveNodes(ctx context.Context, site engine.Site) ([]engine.LiveNode, error)
	LiveChangesSince(ctx context.Context, site engine.Site, from string) (set []engine.LiveNode, gone []string, ok bool, err error)
}

// Public is the public view's use cases.
type Public struct {
	e     Engine
	nodes Nodes
	store Store
}

// New wires the public view.
func New(e Engine, nodes Nodes, store Store) *Public {
	return &Public{e: e, nodes: nodes, store: store}
}

// LiveSite is a site as the public site reads it on every request: its
// live snapshot pointer, and the earliest instant a release may change it.
type LiveSite struct {
	engine.Site
	// NextRelease is the earliest time of the site's releases that can
	// still publish: scheduled, awaiting approval (an approval can come at
	// any moment before its time) or running. Zero when there is none.
	//
	// A paused site counts its releases too, conservatively: resuming is a
	// person's act at any moment, and a release already due then runs at
	// once. So a due release (a running one, one the ticker has not reached
	// yet, one held by the kill switch) is a change that may happen now.
	NextRelease time.Time
}

// LiveSites reads every site with the next instant one of its releases is
// due, for the public site (one statement).
func (p *Public) LiveSites(ctx context.Context) ([]LiveSite, error) { return p.store.LiveSites(ctx) }

// Generation moves whenever the database changes, so LiveSites' answer
// holds while it stays (Store.Generation).
func (p *Public) Generation(ctx context.Context) (int64, error) { return p.store.Generation(ctx) }

// NextChange is the next instant at or after now at which the live site
// can change: the snapshot's next gate after now (gates is its index) or
// the next due release, whichever comes first. A release whose time has
// come may run at any moment, so it gives now itself. False when neither
// gates nor releases lie ahead: only a person's publish can change the
// site then.
func (s LiveSite) NextChange(gates *gate.Index, now time.Time) (time.Time, bool) {
	next, ok := gates.Next(now)
	if r := s.NextRelease; !r.IsZero() {
		if !r.After(now) {
			r = now
		}
		if !ok || r.Before(next) {
			next, ok = r, true
		}
	}
	return next, ok
}

// CDNMaxAge is the lifetime in seconds a CDN may keep a public 200 rendered
// at now (§7.4, issue 10): until the next change of the live site
// (gate.MaxAge's rounding up and 1 s floor), and never more than ceiling
// seconds, because a person's publish cannot be foreseen. A ceiling below
// 1 counts as 1.
func (s LiveSite) CDNMaxAge(gates *gate.Index, now time.Time, ceiling int) int {
	next, ok := s.NextChange(gates, now)
	return min(gate.MaxAge(next, ok, now), max(ceiling, 1))
}

// Snapshot is a live snapshot made ready for the public view: what
// does not depend on the clock, worked out once (a snapshot never
// changes). Its At answers what the public may see at an instant.
type Snapshot struct {
	Site engine.Site
	// Nodes are the snapshot's published nodes in id order: the only ones
	// the public may ever see. A node that is not published is hidden
	// whatever the time, and its gates change nothing. Shared with the
	// snapshots built from this one: read only.
	Nodes []*engine.LiveNode

	// FromID and Changed, when SnapshotAfter built it from an earlier
	// snapshot, are that snapshot's id and the ids of the nodes that
	// differ from it (set or gone): a caller keeping its own model of the
	// earlier one redoes only those.
	FromID  string
	Changed map[string]bool

	gates     []gate.Node            // of Nodes, in their order
	referrers map[string][]gate.Node // asset id → the gates of the published pages and entries that refer to it
	index     *gate.Index            // every gate of Nodes, sorted (§7.4)
}

// View is what the public may see of a live snapshot at an instant.
type View struct {
	// Visible holds the ids of the nodes the public sees now (RFC §7.1): a
	// published node whose gates are open, and for an asset also not
	// embargoed through its referrers (§7.2: an asset every live referrer
	// of which is embargoed inherits the earliest embargo among them).
	Visible map[string]bool
	// Interval numbers the stretch between two gates that now falls in:
	// within one interval the answer is the same (gate.Index.Interval), so
	// a caller may keep what it built from a view by interval.
	Interval int
	// NextGate is the first gate after now, the instant this answer next
	// changes; HasNext is false when no gate lies ahead.
	NextGate time.Time
	HasNext  bool
	// Redone, in a view AtAfter derived from one of an earlier snapshot,
	// lists the ids whose answer may differ from that one's: the nodes
	// that changed and those whose visibility did. Nil in a view worked
	// out whole.
	Redone []string

	of *Snapshot // whose view it is
	at time.Time // the instant it answers for
}

// NewSnapshot prepares the live nodes of site, in id order, for the
// public view. It keeps nodes: the caller must not change them after.
func NewSnapshot(site engine.Site, nodes []engine.LiveNode) *Snapshot {
	byID := func(a, b *engine.LiveNode) int { return strings.Compare(a.ID, b.ID) }
	p := &Snapshot{Site: site, referrers: map[string][]gate.Node{}}
	assets := map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		g := gateOf(n)
		if !g.Published {
			continue
		}
		p.Nodes, p.gates = append(p.Nodes, n), append(p.gates, g)
		if n.Kind == release.KindAsset {
			assets[n.ID] = true
		}
	}
	if !slices.IsSortedFunc(p.Nodes, byID) { // the store's order is by id; a caller's may not be
		slices.SortStableFunc(p.Nodes, byID)
		for i, n := range p.Nodes {
			p.gates[i] = gateOf(n)
		}
	}
	for i, n := range p.Nodes {
		if !refers(n) {
			continue
		}
		for _, ref := range n.Body.Refs {
			if assets[ref] {
				p.referrers[ref] = append(p.referrers[ref], p.gates[i])
			}
		}
	}
	p.index = gate.NewIndex(p.gates)
	return p
}

// refers reports whether n's references count for the gates of the assets
// it refers to (§7.2): pages and entries do.
func refers(n *engine.LiveNode) bool {
	return n.Kind == release.KindPage || n.Kind == release.KindContentEntry
}

// Snapshot reads the live snapshot of site and prepares it for the
// public view.
func (pv *Public) Snapshot(ctx context.Context, site engine.Site) (*Snapshot, error) {
	nodes, err := pv.nodes.LiveNodes(ctx, site)
	if err != nil {
		return nil, err
	}
	return NewSnapshot(site, nodes), nil
}

// ViewAt is the public view's one call: of site's live snapshot,
// what the public may see at now and the next gate, when that changes.
func (pv *Public) ViewAt(ctx context.Context, site engine.Site, now time.Time) (View, error) {
	p, err := pv.Snapshot(ctx, site)
	if err != nil {
		return View{}, err
	}
	return p.At(now), nil
}

// At is what the public may see of the snapshot at now.
func (p *Snapshot) At(now time.Time) View {
	v := p.viewShell(now)
	v.Visible = make(map[string]bool, len(p.Nodes))
	for i, n := range p.Nodes {
		if p.visibleAt(i, now) {
			v.Visible[n.ID] = true
		}
	}
	return v
}

func (p *Snapshot) viewShell(now time.Time) View {
	v := View{Interval: p.index.Interval(now), of: p, at: now}
	v.NextGate, v.HasNext = p.index.Next(now)
	return v
}

// visibleAt is the public view's judgment of the snapshot's i-th node at
// now: its gates are open and, for an asset, its referrers lend it no
// embargo.
func (p *Snapshot) visibleAt(i int, now time.Time) bool {
	if !gate.IsAvailable(p.gates[i], now) {
		return false
	}
	n := p.Nodes[i]
	return n.Kind != release.KindAsset || gate.AssetAvailable(p.referrers[n.ID], now)
}

// find is the position of the published node id in Nodes.
func (p *Snapshot) find(id string) (int, bool) {
	return slices.BinarySearchFunc(p.Nodes, id, func(n *engine.LiveNode, id string) int { return strings.Compare(n.ID, id) })
}

// Node is the snapshot's published node id.
func (p *Snapshot) Node(id string) (*engine.LiveNode, bool) {
	if i, ok := p.find(id); ok {
		return p.Nodes[i], true
	}
	return nil, false
}

// Interval is At(now).Interval without building the view: a caller that
// keeps views by interval asks it first.
func (p *Snapshot) Interval(now time.Time) int { return p.index.Interval(now) }

// CDNMaxAge is LiveSite.CDNMaxAge over this snapshot's gates.
func (p *Snapshot) CDNMaxAge(s LiveSite, now time.Time, ceiling int) int {
	return s.CDNMaxAge(p.index, now, ceiling)
}

// Gate is the gate of a node as the public view judges it: its
// status and its availability window.
func Gate(id string, b content.Body) gate.Node {
	n := gate.Node{ID: id, Published: b.Status == content.StatusPublished}
	if a := b.Availability; a != nil {
		n.From, n.Until = a.From, a.Until
	}
	return n
}

func gateOf(n *engine.LiveNode) gate.Node { return Gate(n.ID, n.Body) }
