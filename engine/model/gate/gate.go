// Package gate decides what the public site may show at an instant: the time
// gates availability.from (embargo) and availability.until (expiry) of pages
// and entries (RFC §7), the cache lifetime capped at the next gate (§7.4) and
// the gate an asset inherits from its referrers (§7.2).
//
// It is pure: no I/O, and it never reads the clock. Every function takes the
// instant to judge as now; the renderer takes it once per request (§7.1).
// Gates compare instants only, so no time-zone code is needed here.
package gate

import (
	"slices"
	"time"
)

// Node is the part of a page or entry the gates look at. A content body maps
// onto it field by field:
//
//	gate.Node{ID: n.ID, Published: n.Body.Status == content.StatusPublished,
//		From: n.Body.Availability.From, Until: n.Body.Availability.Until}
//
// (with From and Until nil when the body has no availability). A nil From or
// Until is no gate.
type Node struct {
	ID        string
	Published bool
	From      *time.Time
	Until     *time.Time
}

// GateState is where a node's gates stand at an instant.
type GateState string

const (
	// Open: no gate holds the node back (from ≤ now, or no from; now < until,
	// or no until).
	Open GateState = "open"
	// Embargoed: now is before availability.from.
	Embargoed GateState = "embargoed"
	// Expired: now is at or after availability.until.
	Expired GateState = "expired"
)

// MaxAgeCap is the longest cache lifetime in seconds: a year, what a site
// with no gates sends (§7.4).
const MaxAgeCap = 31536000

// IsAvailable reports whether the public site may show n at now (§7.1): the
// node is published, from ≤ now (or no from) and now < until (or no until).
// A node is therefore visible from the instant from on, and hidden from the
// instant until on.
func IsAvailable(n Node, now time.Time) bool {
	return n.Published && State(n, now) == Open
}

// State reports where n's gates stand at now. It looks at the gates only,
// not at the status: an unpublished node with no gates is Open (nothing but
// its status hides it), and a draft with a future from is Embargoed. Studio
// and previews show the gate of drafts too (§7.3, §7.6: a node that is not
// live carries its gate into whatever publishes it), so the gate must be
// readable apart from the status. IsAvailable(n, now) is exactly
// n.Published && State(n, now) == Open.
//
// The contract requires from < until (§4.1); should a node break it, the
// embargo wins while now < from and the expiry after that, so the node is
// never Open.
func State(n Node, now time.Time) GateState {
	switch {
	case n.From != nil && now.Before(*n.From):
		return Embargoed
	case n.Until != nil && !now.Before(*n.Until):
		return Expired
	}
	return Open
}

// NextGate returns the earliest gate instant strictly after now among the
// published nodes — the next instant at which what the public site shows can
// change — or false when there is none. A gate exactly at now has already
// happened (IsAvailable counts from as open and until as closed at their
// instants). Unpublished nodes are skipped: they are hidden on both sides of
// their gates, so their gates change no public output and must not shorten
// the cache lifetime.
func NextGate(nodes []Node, now time.Time) (time.Time, bool) {
	var next time.Time
	found := false
	consider := func(t *time.Time) {
		if t != nil && t.After(now) && (!found || t.Before(next)) {
			next, found = *t, true
		}
	}
	for i := range nodes {
		if !nodes[i].Published {
			continue
		}
		consider(nodes[i].From)
		consider(nodes[i].Until)
	}
	return next, found
}

// MaxAge is the cache lifetime in seconds for a response rendered at now
// (§7.4): min(31536000, ceil((next − now) / 1 s)), and at least 1. Without a
// next gate it is MaxAgeCap. A next gate at or before now (a caller's stale
// value) gives 1.
//
// Because of the ceiling and the 1 s floor, a response may be served for
// less than one second past the gate; the RFC's formula accepts that.
func MaxAge(next time.Time, hasNext bool, now time.Time) int {
	if !hasNext {
		return MaxAgeCap
	}
	d := next.Sub(now) // saturates at about 292 years; far beyond the cap
	if d <= 0 {
		return 1
	}
	secs := d / time.Second
	if d%time.Second != 0 {
		secs++
	}
	if secs > MaxAgeCap {
		return MaxAgeCap
	}
	return max(1, int(secs))
}

// InheritedFrom returns the gate an asset inherits at now from its live
// referrers (§7.2): when every published referrer is embargoed at now, the
// asset is embargoed until the earliest from among them, so an embargoed
// article's cover image is not served early. Otherwise it returns false and
// the asset is open.
//
// Which referrers count:
//   - Unpublished referrers are ignored: they never showed the asset and
//     must not open it either (a draft beside an embargoed article would
//     otherwise leak the article's image).
//   - An expired referrer is live and not embargoed, so it opens the asset:
//     the asset was public while that referrer was, so there is nothing left
//     to protect. Assets inherit embargoes only, never expiries (the RFC
//     names from alone), so an asset whose referrers have all expired is
//     open too.
//   - An asset with no published referrer is open; the media route then
//     applies its own rules.
func InheritedFrom(referrers []Node, now time.Time) (time.Time, bool) {
	var from time.Time
	embargoed := false
	for i := range referrers {
		r := &referrers[i]
		if !r.Published {
			continue
		}
		if State(*r, now) != Embargoed {
			return time.Time{}, false
		}
		if !embargoed || r.From.Before(from) {
			from, embargoed = *r.From, true
		}
	}
	return from, embargoed
}

// InheritedGates applies InheritedFrom to every asset: referrers maps an
// asset id to the live nodes that reference it. The result holds only the
// assets that are embargoed at now, each with the instant it opens.
func InheritedGates(referrers map[string][]Node, now time.Time) map[string]time.Time {
	out := make(map[string]time.Time)
	for id, refs := range referrers {
		if from, ok := InheritedFrom(refs, now); ok {
			out[id] = from
		}
	}
	return out
}

// AssetAvailable reports whether the media route may serve an asset with
// these live referrers at now, as far as gates go: not while it inherits an
// embargo.
func AssetAvailable(referrers []Node, now time.Time) bool {
	_, embargoed := InheritedFrom(referrers, now)
	return !embargoed
}

// Index is the gate index of one live snapshot (§7.4): every gate instant of
// its published nodes, sorted and without repeats. A snapshot is immutable,
// so the index is built once and memoised next to it; it is safe for
// concurrent use.
//
// It holds past instants too, so one index answers for any now. Inherited
// asset gates add no instants: an asset's inherited from is one of its
// referrers' from instants, and whether it inherits one changes only when a
// referrer's gate does.
type Index struct {
	instants []time.Time
}

// NewIndex builds the gate index of nodes.
func NewIndex(nodes []Node) *Index {
	ts := make([]time.Time, 0, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if !n.Published {
			continue
		}
		if n.From != nil {
			ts = append(ts, *n.From)
		}
		if n.Until != nil {
			ts = append(ts, *n.Until)
		}
	}
	slices.SortFunc(ts, time.Time.Compare)
	ts = slices.CompactFunc(ts, time.Time.Equal)
	return &Index{instants: slices.Clip(ts)}
}

// Next returns the first gate instant strictly after now, as NextGate would
// for the indexed nodes, in O(log n).
func (ix *Index) Next(now time.Time) (time.Time, bool) {
	i := ix.Interval(now)
	if ix == nil || i == len(ix.instants) {
		return time.Time{}, false
	}
	return ix.instants[i], true
}

// Interval names the stretch of time between two gates that now falls in:
// the number of gate instants at or before now, from 0 (before the first
// gate) to Len() (after the last), in O(log n). Every gate of the indexed
// nodes, and every gate an asset inherits from them, stands the same at two
// instants with the same Interval, so whatever the public site shows at one
// it shows at the other: a renderer may memoise what is visible per
// (snapshot, Interval) and decide per request only which interval it is in.
func (ix *Index) Interval(now time.Time) int {
	if ix == nil {
		return 0
	}
	i, _ := slices.BinarySearchFunc(ix.instants, now, func(e, t time.Time) int {
		if e.After(t) {
			return 1
		}
		return -1 // e ≤ now: not yet the answer
	})
	return i
}

// MaxAge is the cache lifetime in seconds for a response rendered at now
// from this snapshot: MaxAge of the next gate.
func (ix *Index) MaxAge(now time.Time) int {
	next, ok := ix.Next(now)
	return MaxAge(next, ok, now)
}

// Len returns the number of distinct gate instants.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.instants)
}

// Instants returns a copy of the sorted gate instants.
func (ix *Index) Instants() []time.Time {
	if ix == nil {
		return nil
	}
	return slices.Clone(ix.instants)
}
