package nodes

import (
	"context"
	"path"
	"strings"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/ids"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// CreateAsset saves the first version of an asset: a file (body.Mime and
// body.Data) whose slug is its file name, served by the public site at
// /media/<slug> once it is live and not gated (RFC §7.2: an asset whose
// every live referrer is embargoed inherits the earliest from). Pages and
// entries point at it through Body.Refs. It goes live with the next publish,
// like any node.
func (ns *Nodes) CreateAsset(ctx context.Context, u engine.User, siteID string, body content.Body) (content.Node, error) {
	if err := engine.Require(u, siteID, policy.ContentWrite); err != nil {
		return content.Node{}, err
	}
	n := content.Node{ID: ids.New("ast"), SiteID: siteID, Kind: release.KindAsset}
	return ns.save(ctx, u, n, 0, body)
}

// AssetEdit is what the media editor sends: the editor's fields, the alt
// text and, when Data is set, a new file (its type is read from its bytes,
// never from its name or the browser's word). FileName is the uploaded
// file's own name, from which an empty address is made.
type AssetEdit struct {
	content.Edit
	Alt      string
	Data     []byte
	FileName string
}

func (in AssetEdit) apply(b content.Body) content.Body {
	b = b.With(in.Edit)
	b.Alt = in.Alt
	if in.Data != nil {
		b.Data, b.Mime = in.Data, content.SniffImage(in.Data)
	}
	if strings.TrimSpace(b.Slug) == "" && b.Mime != "" {
		// The address follows the file's own name, else the title, with
		// the extension of the file's type: "Boğaz'da sonbahar.PNG" →
		// bogazda-sonbahar.png.
		name := content.Slugify(strings.TrimSuffix(path.Base(in.FileName), path.Ext(in.FileName)))
		if name == "" {
			name = content.Slugify(b.Title)
		}
		if name != "" {
			b.Slug = name + content.Extension(b.Mime)
		}
	}
	return b
}

// UploadAsset saves a new media file from the media editor: Studio's upload
// form, the file and its fields in one request.
func (ns *Nodes) UploadAsset(ctx context.Context, u engine.User, siteID string, in AssetEdit) (content.Node, error) {
	body := in.apply(content.Body{})
	if body.Lang == "" {
		lang, err := ns.siteLang(ctx, siteID)
		if err != nil {
			return content.Node{}, err
		}
		body.Lang = lang
	}
	return ns.CreateAsset(ctx, u, siteID, body)
}

// EditAsset saves a new version of a media file the person last saw at
// expectedRev: its fields, its alt text and, when in.Data is set, its file.
// The rules of SaveNode hold (a held node is locked, a stale rev refused).
func (ns *Nodes) EditAsset(ctx context.Context, u engine.User, siteID, id string, expectedRev int64, in AssetEdit) (content.Node, error) {
	d, err := ns.node(ctx, siteID, id)
	if err != nil {
		return content.Node{}, err
	}
	if d.Kind != release.KindAsset {
		return content.Node{}, engine.Refuse(release.CodeBadNodeKind, "")
	}
	return ns.update(ctx, u, siteID, id, expectedRev, in.apply)
}
