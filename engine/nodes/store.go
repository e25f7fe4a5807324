// Package nodes holds the node use cases: pages, entries and media files
// created, saved, edited, patched and deleted (a node a release holds is
// locked, §6.2), their covers and images, the content list (filters, sorts,
// pages), what an ordinary publish of the whole working copy would change
// and that publish itself, the live nodes the public site reads, and a
// site's history. Its Store is the narrow part of storage these need;
// package store implements it.
//
// It sits above engine/releases, whose node reads it shares (a node's
// detail with its live version and its hold, the address rule) and whose
// embedded kernel gives it the clock; neither the kernel nor the release
// use cases import it.
package nodes

import (
	"context"
	"time"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Nodes is the node use cases of one process: pages, entries and media
// files, their addresses, the content list, a site's whole publish and its
// history.
type Nodes struct {
	rel   *releases.Releases
	store Store
}

// New wires the node use cases beside the release use cases rel (whose
// embedded kernel gives them the clock) on store.
func New(rel *releases.Releases, store Store) *Nodes { return &Nodes{rel: rel, store: store} }

// now is the kernel clock's time.
func (ns *Nodes) now() time.Time { return ns.rel.Now() }

// Store is what the node use cases need from storage. Every write is one
// transaction with its audit row; guarded writes return engine.ErrConflict
// when their guard failed.
type Store interface {
	Site(ctx context.Context, id string) (engine.Site, error)
	Nodes(ctx context.Context, siteID string) ([]content.Node, error)
	// NodesByID is the working copies of the site's nodes among ids, not
	// deleted, by id; SnapshotRefs the refs of a snapshot's nodes among
	// ids. Each one statement that reads those nodes by key.
	NodesByID(ctx context.Context, siteID string, ids []string) ([]content.Node, error)
	// SaveNode writes a new version when the node is at expectedRev (0 for
	// a new node) and not held by a release.
	SaveNode(ctx context.Context, n content.Node, expectedRev int64, by release.Actor, now time.Time) error
	// DeleteNode marks a node deleted when it is at expectedRev and not held
	// by a release, with its audit row; engine.ErrConflict otherwise.
	DeleteNode(ctx context.Context, siteID, id string, expectedRev int64, audit engine.AuditEntry) error
	// HeldNodesOf and LiveNodesOf read the nodes among ids only, by key:
	// a page of the content list.
	HeldNodesOf(ctx context.Context, siteID string, ids []string) (map[string]releases.Held, error)
	LiveNodesOf(ctx context.Context, snapshotID string, ids []string) ([]engine.LiveNode, error)
	// PendingCount is PendingRefs' count of changes in one statement,
	// without reading the nodes: the live nodes deleted from the working
	// copy, and the working nodes no release holds that are published but
	// not live, or live at another version.
	PendingCount(ctx context.Context, siteID string) (int, error)
	// NodesMatching is one page of the working copy that f matches (see
	// NodeFilter), in f's order: at most limit nodes after offset.
	NodesMatching(ctx context.Context, siteID, siteLang string, f NodeFilter, now time.Time, limit, offset int) ([]content.Node, error)
	LiveNodes(ctx context.Context, snapshotID, nodeID string) ([]engine.LiveNode, error)
	// LiveChanges is what snapshot to changed since from, an older one of
	// the site: the nodes it sets, with their bodies, and the ids whose
	// version live in from it no longer has (set ones among them). Only
	// what changed is read; false when the store cannot say, and the
	// caller reads it whole.
	LiveChanges(ctx context.Context, siteID, from, to string) (set []engine.LiveNode, gone []string, ok bool, err error)
	// PublishSnapshot inserts snap and flips the site pointer from site's
	// rev and hash to newHash in one transaction.
	PublishSnapshot(ctx context.Context, site engine.Site, newHash string, snap engine.Snapshot, audit engine.AuditEntry) error
	// AddressHolders lists the nodes of a site other than exceptID whose
	// working copy, or whose version in the site's live snapshot, is of
	// kind and has slug: one indexed query, not a read of every node.
	AddressHolders(ctx context.Context, siteID string, kind release.NodeKind, slug, exceptID string) ([]engine.AddressHolder, error)
	// MediaFiles lists up to limit of a site's media files by title, their
	// id, title and slug only.
	MediaFiles(ctx context.Context, siteID string, limit int) ([]MediaFile, error)
	// SiteAudit reads a site's audit rows in f, newest first.
	SiteAudit(ctx context.Context, f AuditFilter) ([]AuditRow, error)
	// ReleasesByID reads the given releases of a site in one statement, in
	// time order; ids of other sites or of no release are left out.
	ReleasesByID(ctx context.Context, siteID string, ids []string) ([]releases.ReleaseRow, error)
}

// node is a node with its live version and its hold, for a use case that
// has checked its caller already.
func (ns *Nodes) node(ctx context.Context, siteID, id string) (releases.NodeDetail, error) {
	d, _, err := ns.rel.NodeWithLive(ctx, siteID, id)
	return d, err
}
