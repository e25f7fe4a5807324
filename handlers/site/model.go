package site

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/public"
	"studio/engine/release"
	"studio/web/templates"
)

// snapshot is a live snapshot made ready to serve: everything that does not
// depend on the clock, computed once (a snapshot never changes). What is
// visible at an instant is a view, memoised per gate interval.
type snapshot struct {
	key  string // site, snapshot, name, zone, language: changes whenever any of them does
	site engine.Site
	loc  *time.Location
	lang string           // the site's (Site.Lang): the public site's words and dates
	pub  *public.Snapshot // what the public may see, at any instant: the engine's answer

	items  []*item // published pages and entries, entries newest first
	assets []*asset

	last  atomic.Pointer[view] // the view asked for last: nearly always the one asked for next
	mu    sync.Mutex
	views map[int]*view // by gate interval
}

// item is a live, published page or entry.
type item struct {
	id    string
	kind  release.NodeKind
	entry templates.SiteEntry
	refs  []string
}

// asset is a live, published asset.
type asset struct {
	id   string
	slug string
	mime string
	alt  string
	data []byte
	etag string
}

// view is what the public site shows during one gate interval of a
// snapshot: every list, menu and lookup holds only the nodes visible then.
// It is built from the engine's public view of that interval
// (public.Snapshot.At); every route reads it.
type view struct {
	snap     *snapshot
	interval int
	frame    templates.SiteFrame // navigation: the visible pages
	entries  []*item             // visible entries, newest first
	byPath   map[string]*item    // visible pages and entries
	byID     map[string]*item
	media    map[string]*asset // visible assets by slug
	mediaIDs map[string]*asset

	rendered sync.Map // path → *page, what a route rendered
	bytes    atomic.Int64
}

// page is a rendered 200 body.
type page struct {
	etag        string
	contentType string
	body        []byte
	file        bool // an asset: served in a sandbox
}

// Memory bounds: a view keeps at most maxRendered bytes of rendered pages
// (past the budget pages are rendered afresh), a
// snapshot at most maxViews views, and the handler at most maxSnapshots
// snapshots. Time moves forward and releases replace snapshots, so old
// ones are rarely asked for again.
const (
	maxRendered  = 16 << 20
	maxViews     = 4
	maxSnapshots = 4
)

// newSnapshot prepares the templates' side of a live snapshot the engine
// prepared: its published nodes as the pages show them. The items of
// base (the snapshot pub was built from, or nil) whose node did not change
// are taken as they are.
func newSnapshot(key string, pub *public.Snapshot, base *snapshot) *snapshot {
	s := pub.Site
	loc, err := localtime.LoadZone(s.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	sn := &snapshot{key: key, site: s, loc: loc, lang: s.Lang, pub: pub, views: map[int]*view{}}
	// From base, every item is kept whose node the engine says did not
	// change since base's snapshot; without that answer all are built.
	var changed map[string]bool
	if base != nil && pub.Changed != nil && pub.FromID == base.site.PublishedSnapshotID && base.site.TimeZone == s.TimeZone {
		changed = pub.Changed
	}
	var fresh []*item // the items not taken from base
	for _, n := range pub.Nodes {
		switch n.Kind {
		case release.KindContentEntry, release.KindPage:
			if changed != nil && !changed[n.ID] {
				continue // kept: taken in base's order below
			}
			e := templates.SiteEntry{Title: n.Body.Title, Summary: n.Body.Summary, Lang: n.Body.Lang,
				Body: paragraphs(n.Body.Text)}
			if p := n.Body.PublishedAt; p != nil {
				local := p.In(loc) // readers see dates in the site's zone
				e.PublishedAt = &local
			}
			if n.Kind == release.KindContentEntry {
				e.Path = "/posts/" + n.Body.Slug
			} else {
				e.Path = "/" + n.Body.Slug
			}
			fresh = append(fresh, &item{id: n.ID, kind: n.Kind, entry: e, refs: n.Body.Refs})
		case release.KindAsset:
			sn.assets = append(sn.assets, &asset{id: n.ID, slug: n.Body.Slug, mime: n.Body.Mime, alt: n.Body.Alt,
				data: n.Body.Data, etag: n.Hash})
		}
	}
	// Entries newest first, then pages by title, ties by id: base's items
	// are in that order already, so only the fresh ones are sorted and
	// merged in.
	slices.SortFunc(fresh, itemOrder)
	if changed == nil {
		sn.items = fresh
		return sn
	}
	sn.items = make([]*item, 0, len(base.items)+len(fresh))
	for _, it := range base.items {
		if changed[it.id] { // changed or gone
			continue
		}
		for len(fresh) > 0 && itemOrder(fresh[0], it) < 0 {
			sn.items, fresh = append(sn.items, fresh[0]), fresh[1:]
		}
		sn.items = append(sn.items, it)
	}
	sn.items = append(sn.items, fresh...)
	return sn
}

// itemOrder is the order of a snapshot's items: entries newest first (one
// without a date last), then pages by title, ties by id.
func itemOrder(a, b *item) int {
	if a.kind != b.kind {
		if a.kind == release.KindContentEntry {
			return -1
		}
		return 1
	}
	if a.kind == release.KindPage {
		if c := strings.Compare(a.entry.Title, b.entry.Title); c != 0 {
			return c
		}
	} else {
		pa, pb := a.entry.PublishedAt, b.entry.PublishedAt
		switch {
		case pa != nil && pb != nil && !pa.Equal(*pb):
			return pb.Compare(*pa)
		case pa != nil && pb == nil:
			return -1
		case pa == nil && pb != nil:
			return 1
		}
	}
	return strings.Compare(a.id, b.id)
}

// viewAt returns what the snapshot shows at now: the memoised view of now's
// gate interval, built at the first request that falls in it. Within an
// interval no gate changes (public.View.Interval), so the view built
// at any instant of it holds for all of them.
func (sn *snapshot) viewAt(now time.Time) *view {
	i := sn.pub.Interval(now)
	if v := sn.last.Load(); v != nil && v.interval == i {
		return v
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if v, ok := sn.views[i]; ok {
		sn.last.Store(v)
		return v
	}
	if len(sn.views) >= maxViews {
		clear(sn.views)
	}
	v := sn.build(sn.pub.At(now))
	sn.views[i] = v
	sn.last.Store(v)
	return v
}

// build shows what the engine says the public may see: no route looks at a
// status or a gate on its own.
func (sn *snapshot) build(pv public.View) *view {
	v := &view{snap: sn, interval: pv.Interval, frame: templates.SiteFrame{SiteName: sn.site.Name, Lang: sn.lang},
		byPath: map[string]*item{}, byID: map[string]*item{}, media: map[string]*asset{}, mediaIDs: map[string]*asset{}}
	for _, it := range sn.items {
		if !pv.Visible[it.id] {
			continue
		}
		if _, taken := v.byPath[it.entry.Path]; taken {
			continue // two live nodes with one slug: the first keeps it
		}
		v.byPath[it.entry.Path] = it
		v.byID[it.id] = it
		if it.kind == release.KindContentEntry {
			v.entries = append(v.entries, it)
		} else {
			v.frame.Pages = append(v.frame.Pages, it.entry)
		}
	}
	for _, a := range sn.assets {
		if _, taken := v.media[a.slug]; !taken && pv.Visible[a.id] {
			v.media[a.slug] = a
			v.mediaIDs[a.id] = a
		}
	}
	return v
}

// images are the visible assets it refers to, in its order.
func (v *view) images(it *item) []templates.SiteImage {
	var out []templates.SiteImage
	for _, ref := range it.refs {
		if a, ok := v.mediaIDs[ref]; ok {
			out = append(out, templates.SiteImage{URL: "/media/" + a.slug, Alt: a.alt})
		}
	}
	return out
}

// related are the other visible entries it refers to, in its order.
func (v *view) related(it *item) []templates.SiteEntry {
	var out []templates.SiteEntry
	for _, ref := range it.refs {
		if r, ok := v.byID[ref]; ok && r != it && r.kind == release.KindContentEntry {
			out = append(out, r.entry)
		}
	}
	return out
}

func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
