package nodes

import (
	"context"

	"studio/engine"
	"studio/engine/content"
)

// NodePatch changes some of the editor's fields of a page or an entry (the
// JSON API's PATCH); a nil field keeps its value, and so does every part of
// the body the editor does not show.
type NodePatch struct {
	Title, Slug, Summary, Text, Lang *string
	Status                           *content.Status
}

// Empty reports whether the patch changes no field.
func (p NodePatch) Empty() bool {
	return p.Title == nil && p.Slug == nil && p.Summary == nil && p.Text == nil && p.Lang == nil && p.Status == nil
}

// Apply is b with the patch's fields set (a new node's body, from none).
func (p NodePatch) Apply(b content.Body) content.Body {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&b.Title, p.Title)
	set(&b.Slug, p.Slug)
	set(&b.Summary, p.Summary)
	set(&b.Text, p.Text)
	set(&b.Lang, p.Lang)
	if p.Status != nil {
		b.Status = *p.Status
	}
	return b
}

// PatchNode is EditNode for a caller that sends only the fields it changes:
// a new version of a node the person last saw at expectedRev. The same
// rules hold: a held node is locked (§6.2), a stale rev is refused, and the
// body is checked before it is saved.
func (ns *Nodes) PatchNode(ctx context.Context, u engine.User, siteID, id string, expectedRev int64, p NodePatch) (content.Node, error) {
	return ns.update(ctx, u, siteID, id, expectedRev, p.Apply)
}
