package nodes

import (
	"context"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// Answer is a page, an entry or an asset as a use case answers the JSON
// surfaces (the API and MCP): the node with what is live and what holds
// it, and what the person asking may do to it now. A surface renders it as
// it is and calls the engine no further.
type Answer struct {
	releases.NodeDetail
	Abilities releases.NodeAbilities
}

func answerOf(u engine.User, d releases.NodeDetail) Answer {
	return Answer{NodeDetail: d, Abilities: releases.NodeAbilitiesOf(u, d)}
}

// NodeAnswers is Nodes answered to u: each node with u's abilities.
func (ns *Nodes) NodeAnswers(ctx context.Context, u engine.User, siteID string) ([]Answer, error) {
	list, err := ns.Nodes(ctx, u, siteID)
	if err != nil {
		return nil, err
	}
	out := make([]Answer, len(list))
	for i, d := range list {
		out[i] = answerOf(u, d)
	}
	return out, nil
}

// ListNodeAnswers is ListNodes answered to u: one page of the nodes f
// matches, each with u's abilities, and whether a next page exists.
func (ns *Nodes) ListNodeAnswers(ctx context.Context, u engine.User, siteID string, f NodeFilter, page int) ([]Answer, bool, error) {
	list, err := ns.ListNodes(ctx, u, siteID, f, page)
	if err != nil {
		return nil, false, err
	}
	out := make([]Answer, len(list.Nodes))
	for i, d := range list.Nodes {
		out[i] = answerOf(u, d)
	}
	return out, list.More, nil
}

// NodeAnswer is Node answered to u, with u's abilities.
func (ns *Nodes) NodeAnswer(ctx context.Context, u engine.User, siteID, id string) (Answer, error) {
	d, err := ns.Node(ctx, u, siteID, id)
	if err != nil {
		return Answer{}, err
	}
	return answerOf(u, d), nil
}

// CreateNodeAnswer is CreateNode answering the new node with u's
// abilities (MCP's save_draft without a nodeId).
func (ns *Nodes) CreateNodeAnswer(ctx context.Context, u engine.User, siteID string, kind release.NodeKind, body content.Body) (Answer, error) {
	n, err := ns.CreateNode(ctx, u, siteID, kind, body)
	if err != nil {
		return Answer{}, err
	}
	return ns.NodeAnswer(ctx, u, siteID, n.ID)
}

// PatchNodeAnswer is PatchNode answering the node as it is afterwards,
// with u's abilities: the JSON surfaces' whole answer to a patch. A kind,
// when given, is the only kind the caller's route names: a node of
// another kind is not found, before anything is checked or written (an
// article is not under …/pages).
func (ns *Nodes) PatchNodeAnswer(ctx context.Context, u engine.User, siteID, id string, kind release.NodeKind, expectedRev int64, p NodePatch) (Answer, error) {
	if kind != "" {
		d, err := ns.Node(ctx, u, siteID, id)
		if err == nil && d.Kind != kind {
			err = engine.ErrNotFound
		}
		if err != nil {
			return Answer{}, err
		}
	}
	if _, err := ns.PatchNode(ctx, u, siteID, id, expectedRev, p); err != nil {
		return Answer{}, err
	}
	return ns.NodeAnswer(ctx, u, siteID, id)
}
