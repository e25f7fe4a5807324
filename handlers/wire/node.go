package wire

import (
	"time"

	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/nodes"
	"studio/engine/releases"
)

// Node is a page or an entry: its working copy (the latest version, with
// the body's fields at the top level), the version that is live, and the
// release holding it, if one does.
type Node struct {
	ID   string           `json:"id"`
	Kind release.NodeKind `json:"kind"`
	Rev  int64            `json:"rev"`
	Hash string           `json:"hash"`
	content.Body
	UpdatedAt time.Time        `json:"updatedAt"`
	Live      *release.Version `json:"live,omitempty"`
	Held      *Held            `json:"heldBy,omitempty"`
	// Author is who created the node (kept across versions).
	Author *release.Actor `json:"author,omitempty"`
	// Abilities are what the caller may do to it now (the engine's).
	Abilities releases.NodeAbilities `json:"abilities"`
}

// Held is the release that holds a node (§6.2): while it does, the node
// cannot be changed.
type Held struct {
	ReleaseID string        `json:"releaseId"`
	State     release.State `json:"state"`
	At        *time.Time    `json:"at,omitempty"`
}

// NodeOf is d with the caller's abilities on it, can.
func NodeOf(d releases.NodeDetail, can releases.NodeAbilities) Node {
	n := Node{ID: d.ID, Kind: d.Kind, Rev: d.Rev, Hash: d.Hash, Body: d.Body, UpdatedAt: d.UpdatedAt, Abilities: can}
	if d.Author.ID != "" {
		a := d.Author
		n.Author = &a
	}
	if d.Live != nil {
		n.Live = &release.Version{Rev: d.Live.Rev, Hash: d.Live.Hash}
	}
	if d.Held != nil {
		n.Held = &Held{ReleaseID: d.Held.ReleaseID, State: d.Held.State, At: d.Held.At}
	}
	return n
}

// NodeAnswerOf is a node as a use case answered it, with the caller's
// abilities.
func NodeAnswerOf(a nodes.Answer) Node { return NodeOf(a.NodeDetail, a.Abilities) }
