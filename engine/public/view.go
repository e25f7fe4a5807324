package engine

import (
	"context"
	"time"

	"studio/engine/content"
	"studio/engine/gate"
	"studio/engine/release"
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

// PublicViewStore is what the public view needs from storage.
type PublicViewStore interface {
	// LiveSites lists every site, oldest first, each with NextRelease: the
	// earliest execute_at of its releases that are scheduled, awaiting
	// approval or running. One statement.
	LiveSites(ctx context.Context) ([]LiveSite, error)
}

// LiveSite is a site as the public site reads it on every request: its
// live snapshot pointer, and the earliest instant a release may change it.
type LiveSite struct {
	Site
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
func (e *Engine) LiveSites(ctx context.Context) ([]LiveSite, error) { return e.store.LiveSites(ctx) }

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

// PublicSnapshot is a live snapshot made ready for the public view: what
// does not depend on the clock, worked out once (a snapshot never
// changes). Its At answers what the public may see at an instant.
type PublicSnapshot struct {
	Site Site
	// Nodes are the snapshot's published nodes in its order: the only ones
	// the public may ever see. A node that is not published is hidden
	// whatever the time, and its gates change nothing.
	Nodes []LiveNode

	gates     []gate.Node            // of Nodes, in their order
	referrers map[string][]gate.Node // asset id → the gates of the published pages and entries that refer to it
	index     *gate.Index            // every gate of Nodes, sorted (§7.4)
}

// PublicView is what the public may see of a live snapshot at an instant.
type PublicView struct {
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
}

// NewPublicSnapshot prepares the live nodes of site for the public view.
func NewPublicSnapshot(site Site, nodes []LiveNode) *PublicSnapshot {
	p := &PublicSnapshot{Site: site, referrers: map[string][]gate.Node{}}
	assets := map[string]bool{}
	for _, n := range nodes {
		g := publicGate(n)
		if !g.Published {
			continue
		}
		p.Nodes, p.gates = append(p.Nodes, n), append(p.gates, g)
		if n.Kind == release.KindAsset {
			assets[n.ID] = true
		}
	}
	for i, n := range p.Nodes {
		if n.Kind != release.KindPage && n.Kind != release.KindContentEntry {
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

// PublicSnapshot reads the live snapshot of site and prepares it for the
// public view.
func (e *Engine) PublicSnapshot(ctx context.Context, site Site) (*PublicSnapshot, error) {
	nodes, err := e.LiveNodes(ctx, site)
	if err != nil {
		return nil, err
	}
	return NewPublicSnapshot(site, nodes), nil
}

// PublicViewAt is the public view's one call: of site's live snapshot,
// what the public may see at now and the next gate, when that changes.
func (e *Engine) PublicViewAt(ctx context.Context, site Site, now time.Time) (PublicView, error) {
	p, err := e.PublicSnapshot(ctx, site)
	if err != nil {
		return PublicView{}, err
	}
	return p.At(now), nil
}

// At is what the public may see of the snapshot at now.
func (p *PublicSnapshot) At(now time.Time) PublicView {
	v := PublicView{Visible: make(map[string]bool, len(p.Nodes)), Interval: p.index.Interval(now)}
	v.NextGate, v.HasNext = p.index.Next(now)
	for i, n := range p.Nodes {
		if !gate.IsAvailable(p.gates[i], now) {
			continue
		}
		if n.Kind == release.KindAsset && !gate.AssetAvailable(p.referrers[n.ID], now) {
			continue
		}
		v.Visible[n.ID] = true
	}
	return v
}

// Interval is At(now).Interval without building the view: a caller that
// keeps views by interval asks it first.
func (p *PublicSnapshot) Interval(now time.Time) int { return p.index.Interval(now) }

// CDNMaxAge is LiveSite.CDNMaxAge over this snapshot's gates.
func (p *PublicSnapshot) CDNMaxAge(s LiveSite, now time.Time, ceiling int) int {
	return s.CDNMaxAge(p.index, now, ceiling)
}

// PublicGate is the gate of a node as the public view judges it: its
// status and its availability window.
func PublicGate(id string, b content.Body) gate.Node {
	n := gate.Node{ID: id, Published: b.Status == content.StatusPublished}
	if a := b.Availability; a != nil {
		n.From, n.Until = a.From, a.Until
	}
	return n
}

func publicGate(n LiveNode) gate.Node { return PublicGate(n.ID, n.Body) }
