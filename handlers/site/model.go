package site

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/localtime"
	"studio/engine/model/release"
	"studio/engine/public"
	"studio/web/templates"
)

// snapshot is a live snapshot made ready to serve: everything that does not
// depend on the clock, computed once (a snapshot never changes). What is
// visible at an instant is a view, memoised per gate interval.
//
// A publish changes a few nodes of a site that may hold tens of thousands,
// so a snapshot built from the one before (base) takes base's items of the
// nodes that did not change, and its first view is derived from base's
// last one when no gate lies between them (public.Snapshot.AtAfter): the
// cost of a publish is what it changed, plus copying slices and maps.
type snapshot struct {
	key  string // site, snapshot, name, zone, language: changes whenever any of them does
	site engine.Site
	loc  *time.Location
	lang string           // the site's (Site.Lang): the public site's words and dates
	pub  *public.Snapshot // what the public may see, at any instant: the engine's answer

	items  []*item  // published pages and entries, entries newest first (itemOrder)
	assets []*asset // published assets by id

	// base and fresh, until the first view is built: the snapshot this one
	// was built from and the items made anew for the nodes changed since.
	base  *snapshot
	fresh map[string]*item

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
	cover string // the asset shown above it, "" for none chosen
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
	pv       public.View         // the engine's answer it shows
	frame    templates.SiteFrame // navigation: the visible pages
	entries  []*item             // visible entries, newest first
	pages    []*item             // visible pages, as in frame
	byPath   map[string]*item    // visible pages and entries
	byID     map[string]*item
	media    map[string]*asset // visible assets by slug
	mediaIDs map[string]*asset
	// shadowed counts the visible nodes that lost their path or slug to
	// one before them: a view with none can be patched node by node.
	shadowed int

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
	if base == nil || pub.Changed == nil || pub.FromID != base.site.PublishedSnapshotID || base.site.TimeZone != s.TimeZone {
		for _, n := range pub.Nodes {
			if it := sn.newItem(n); it != nil {
				sn.items = append(sn.items, it)
			} else if n.Kind == release.KindAsset {
				sn.assets = append(sn.assets, newAsset(n))
			}
		}
		slices.SortFunc(sn.items, itemOrder)
		return sn
	}
	sn.base, sn.fresh = base, map[string]*item{}
	var items, oldItems []*item
	var assets, oldAssets []*asset
	for id := range pub.Changed {
		if old, ok := base.pub.Node(id); ok { // its place in base's lists, found by its old keys
			if it := base.newItem(old); it != nil {
				oldItems = append(oldItems, it)
			} else {
				oldAssets = append(oldAssets, &asset{id: id})
			}
		}
		n, ok := pub.Node(id)
		if !ok {
			continue // gone or not published
		}
		if it := sn.newItem(n); it != nil {
			items, sn.fresh[id] = append(items, it), it
		} else if n.Kind == release.KindAsset {
			assets = append(assets, newAsset(n))
		}
	}
	for _, l := range [][]*item{items, oldItems} {
		slices.SortFunc(l, itemOrder)
	}
	for _, l := range [][]*asset{assets, oldAssets} {
		slices.SortFunc(l, assetOrder)
	}
	sn.items = spliced(base.items, oldItems, items, itemOrder)
	sn.assets = spliced(base.assets, oldAssets, assets, assetOrder)
	return sn
}

// newItem is n as the pages show it, or nil when n is no page or entry.
func (sn *snapshot) newItem(n *engine.LiveNode) *item {
	if n.Kind != release.KindContentEntry && n.Kind != release.KindPage {
		return nil
	}
	e := templates.SiteEntry{Title: n.Body.Title, Summary: n.Body.Summary, Lang: n.Body.Lang,
		Body: n.Body.Text}
	if p := n.Body.PublishedAt; p != nil {
		local := p.In(sn.loc) // readers see dates in the site's zone
		e.PublishedAt = &local
	}
	if n.Kind == release.KindContentEntry {
		e.Path = "/posts/" + n.Body.Slug
	} else {
		e.Path = "/" + n.Body.Slug
	}
	return &item{id: n.ID, kind: n.Kind, entry: e, refs: n.Body.Refs, cover: n.Body.Cover}
}

func newAsset(n *engine.LiveNode) *asset {
	return &asset{id: n.ID, slug: n.Body.Slug, mime: n.Body.Mime, alt: n.Body.Alt, data: n.Body.Data, etag: n.Hash}
}

// spliced is sorted, without the elements of out (sorted, each one of
// sorted's) and with those of in (sorted) in their places: each is found
// by binary search and the runs between are copied whole, so the cost is
// the copy, not a look at every element.
func spliced[T any](sorted, out, in []T, order func(a, b T) int) []T {
	res := make([]T, 0, len(sorted)+len(in))
	next := 0 // the first element of sorted not copied or cut yet
	for len(out) > 0 || len(in) > 0 {
		if len(in) == 0 || (len(out) > 0 && order(out[0], in[0]) <= 0) {
			i, found := slices.BinarySearchFunc(sorted, out[0], order)
			res = append(res, sorted[next:i]...)
			if next = i; found {
				next++
			}
			out = out[1:]
			continue
		}
		i, _ := slices.BinarySearchFunc(sorted, in[0], order)
		i = max(i, next) // in[0] may sort with the one just cut
		res = append(append(res, sorted[next:i]...), in[0])
		next, in = i, in[1:]
	}
	return append(res, sorted[next:]...)
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

func assetOrder(a, b *asset) int { return strings.Compare(a.id, b.id) }

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
	v := sn.derive(now)
	if v == nil {
		v = sn.build(sn.pub.At(now))
	}
	sn.base, sn.fresh = nil, nil // later views are built whole; base may go
	sn.views[i] = v
	sn.last.Store(v)
	return v
}

// build shows what the engine says the public may see: no route looks at a
// status or a gate on its own.
func (sn *snapshot) build(pv public.View) *view {
	v := sn.newView(pv, map[string]*item{}, map[string]*item{}, map[string]*asset{}, map[string]*asset{})
	for _, it := range sn.items {
		if !pv.Visible[it.id] {
			continue
		}
		if _, taken := v.byPath[it.entry.Path]; taken {
			v.shadowed++ // two live nodes with one slug: the first keeps it
			continue
		}
		v.byPath[it.entry.Path] = it
		v.byID[it.id] = it
		if it.kind == release.KindContentEntry {
			v.entries = append(v.entries, it)
		} else {
			v.pages = append(v.pages, it)
		}
	}
	for _, a := range sn.assets {
		if !pv.Visible[a.id] {
			continue
		}
		if _, taken := v.media[a.slug]; taken {
			v.shadowed++
			continue
		}
		v.media[a.slug] = a
		v.mediaIDs[a.id] = a
	}
	v.frame.Pages = entriesOf(v.pages)
	return v
}

// derive is the first view of a snapshot built from base, made from base's
// last view: the engine says which nodes' answers may differ (Redone), and
// only those leave and enter the view's maps and lists. Nil when it cannot
// be derived (no base, a gate between the two, or two nodes wanting one
// path, which the whole build settles): build answers then.
func (sn *snapshot) derive(now time.Time) *view {
	if sn.base == nil {
		return nil
	}
	bv := sn.base.last.Load()
	if bv == nil || bv.shadowed > 0 {
		return nil
	}
	pv, ok := sn.pub.AtAfter(now, bv.pv)
	if !ok {
		return nil
	}
	v := sn.newView(pv, maps.Clone(bv.byPath), maps.Clone(bv.byID), maps.Clone(bv.media), maps.Clone(bv.mediaIDs))
	// Out: what base's view showed of them.
	var gone []*item
	for _, id := range pv.Redone {
		if it, ok := v.byID[id]; ok {
			delete(v.byID, id)
			delete(v.byPath, it.entry.Path)
			gone = append(gone, it)
		}
		if a, ok := v.mediaIDs[id]; ok {
			delete(v.mediaIDs, id)
			delete(v.media, a.slug)
		}
	}
	// In: what shows of them now.
	var in []*item
	for _, id := range pv.Redone {
		if !pv.Visible[id] {
			continue
		}
		if it, ok := sn.fresh[id]; ok {
			if _, taken := v.byPath[it.entry.Path]; taken {
				return nil
			}
			v.byPath[it.entry.Path], v.byID[id] = it, it
			in = append(in, it)
			continue
		}
		// Not a changed page or entry: an asset, changed or whose
		// referrers changed.
		i, ok := slices.BinarySearchFunc(sn.assets, id, func(a *asset, id string) int { return strings.Compare(a.id, id) })
		if !ok {
			return nil
		}
		a := sn.assets[i]
		if _, taken := v.media[a.slug]; taken {
			return nil
		}
		v.media[a.slug], v.mediaIDs[id] = a, a
	}
	slices.SortFunc(in, itemOrder)
	slices.SortFunc(gone, itemOrder)
	inEntries, inPages := splitByKind(in)
	goneEntries, gonePages := splitByKind(gone)
	v.entries = spliced(bv.entries, goneEntries, inEntries, itemOrder)
	v.pages = spliced(bv.pages, gonePages, inPages, itemOrder)
	v.frame.Pages = entriesOf(v.pages)
	return v
}

// splitByKind is items' entries and pages, in items' order.
func splitByKind(items []*item) (entries, pages []*item) {
	for _, it := range items {
		if it.kind == release.KindContentEntry {
			entries = append(entries, it)
		} else {
			pages = append(pages, it)
		}
	}
	return entries, pages
}

func (sn *snapshot) newView(pv public.View, byPath, byID map[string]*item, media, mediaIDs map[string]*asset) *view {
	return &view{snap: sn, interval: pv.Interval, pv: pv, frame: templates.SiteFrame{SiteName: sn.site.Name, Lang: sn.lang},
		byPath: byPath, byID: byID, media: media, mediaIDs: mediaIDs}
}

func entriesOf(items []*item) []templates.SiteEntry {
	if len(items) == 0 {
		return nil
	}
	out := make([]templates.SiteEntry, len(items))
	for i, it := range items {
		out[i] = it.entry
	}
	return out
}

// refImages are the visible assets it refers to, in its order (its cover
// first): what its sharing tags and JSON-LD name.
func (v *view) refImages(it *item) []templates.SiteImage {
	var out []templates.SiteImage
	for _, ref := range it.refs {
		if a, ok := v.mediaIDs[ref]; ok {
			out = append(out, templates.SiteImage{URL: "/media/" + a.slug, Alt: a.alt})
		}
	}
	return out
}

// images are the visible assets shown above it: its cover, or for a body
// saved before covers, the assets it refers to that its text does not
// show itself.
func (v *view) images(it *item) []templates.SiteImage {
	var out []templates.SiteImage
	inText := content.MediaLinks(it.entry.Body)
	for _, img := range v.refImages(it) {
		slug := strings.TrimPrefix(img.URL, "/media/")
		if it.cover != "" && v.media[slug] != nil && v.media[slug].id == it.cover {
			return []templates.SiteImage{img}
		}
		if it.cover == "" && !slices.Contains(inText, slug) {
			out = append(out, img)
		}
	}
	if it.cover != "" {
		return nil // a cover that is not visible (yet)
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
