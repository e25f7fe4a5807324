package engine

import (
	"context"

	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/policy"
	"studio/engine/release"
)

// CreateAsset saves the first version of an asset: a file (body.Mime and
// body.Data) whose slug is its file name, served by the public site at
// /media/<slug> once it is live and not gated (RFC §7.2: an asset whose
// every live referrer is embargoed inherits the earliest from). Pages and
// entries point at it through Body.Refs. It goes live with the next publish,
// like any node; Studio has no upload form yet.
func (e *Engine) CreateAsset(ctx context.Context, u User, siteID string, body content.Body) (content.Node, error) {
	if err := require(u, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	n := content.Node{ID: ids.New("ast"), SiteID: siteID, Kind: release.KindAsset}
	return e.save(ctx, u, n, 0, body)
}
