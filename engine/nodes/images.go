package nodes

import (
	"bytes"
	"context"
	"slices"

	"studio/engine"
	"studio/engine/content"
	"studio/engine/model/release"
	"studio/engine/policy"
)

// CodeCoverInvalid refuses a cover that is not one of the site's media
// files.
const CodeCoverInvalid = "cover_invalid"

// CodeImageTooLarge refuses an image that declares more than
// content.MaxImagePixels; its Args are the image's Width and Height and
// its Megapixels, and the limit's (MaxMegapixels).
const CodeImageTooLarge = "image_too_large"

// cleanImage is the file a media file saves, from its checked body and
// the file its working copy had (prev): refused above
// content.MaxImagePixels from the header alone, before anything would
// decode it, and without its metadata (content.StripImageMetadata: GPS
// and the rest of EXIF but the orientation, XMP, comments). A file kept
// from the working copy is cleaned again but not refused: it was taken
// when saved (and one the walk does not understand stays as it is). A new
// file whose structure the walk does not understand is refused as not
// being the image it says.
func cleanImage(prev []byte, b content.Body) ([]byte, error) {
	kept := bytes.Equal(prev, b.Data)
	if !content.AssetTypes[b.Mime] {
		return b.Data, nil // a file saved before a type was refused: as it was
	}
	w, h, err := content.ImageSize(b.Data, b.Mime)
	switch {
	case err != nil && kept:
		return b.Data, nil
	case err != nil:
		return nil, engine.Refuse("file_type_invalid", "data")
	case int64(w)*int64(h) > content.MaxImagePixels && !kept:
		return nil, &engine.Error{Code: CodeImageTooLarge, Field: "data", Args: map[string]any{"Width": w, "Height": h,
			"Megapixels": (int64(w)*int64(h) + 500_000) / 1_000_000, "MaxMegapixels": content.MaxImagePixels / 1_000_000}}
	}
	clean, err := content.StripImageMetadata(b.Data, b.Mime)
	switch {
	case err != nil && kept:
		return b.Data, nil
	case err != nil:
		return nil, engine.Refuse("file_type_invalid", "data")
	}
	return clean, nil
}

// imageRefs is the refs of a page or an article with the media files it
// shows: its cover first, then each file its text shows (/media/<slug>),
// then the refs it had. So a release of it carries its images along (the
// dependency closure, §6.1), and an image never goes live after the text
// that shows it. A cover that is no media file of the site is refused; a
// link to none is left to the broken-links check (engine/jobs), as any
// broken link is.
func (ns *Nodes) imageRefs(ctx context.Context, siteID string, b content.Body) ([]string, error) {
	var refs []string
	if b.Cover != "" {
		found, err := ns.store.NodesByID(ctx, siteID, []string{b.Cover})
		if err != nil {
			return nil, err
		}
		if len(found) != 1 || found[0].Kind != release.KindAsset {
			return nil, engine.Refuse(CodeCoverInvalid, "cover")
		}
		refs = append(refs, b.Cover)
	}
	for _, slug := range content.MediaLinks(b.Text) {
		holders, err := ns.store.AddressHolders(ctx, siteID, release.KindAsset, slug, "")
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(holders, func(h engine.AddressHolder) bool { return h.Working })
		if i >= 0 {
			refs = append(refs, holders[i].NodeID)
		}
	}
	for _, r := range b.Refs {
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		return b.Refs, nil // nil stays nil: the body hashes as before
	}
	return refs, nil
}

// MediaFile names one of a site's media files, as a chooser lists it.
type MediaFile struct{ ID, Title, Slug string }

// MediaChoices is how many media files the cover's chooser offers.
const MediaChoices = 200

// MediaFiles lists the site's media files by title, at most MediaChoices:
// their names only, never their bytes (an editor page reads it each time).
func (ns *Nodes) MediaFiles(ctx context.Context, u engine.User, siteID string) ([]MediaFile, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return nil, err
	}
	return ns.store.MediaFiles(ctx, siteID, MediaChoices)
}

// CoverOf is the media file shown above a page or an article: its cover,
// or for a body saved before covers the first media file it refers to that
// its text does not show itself (as the public site shows it).
func (ns *Nodes) CoverOf(ctx context.Context, u engine.User, siteID string, b content.Body) (string, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return "", err
	}
	if b.Cover != "" {
		return b.Cover, nil
	}
	var assets []string
	for _, r := range b.Refs {
		if content.IsAssetID(r) {
			assets = append(assets, r)
		}
	}
	if len(assets) == 0 {
		return "", nil
	}
	found, err := ns.store.NodesByID(ctx, siteID, assets)
	if err != nil {
		return "", err
	}
	slugs := make(map[string]string, len(found))
	for _, n := range found {
		slugs[n.ID] = n.Body.Slug
	}
	inText := content.MediaLinks(b.Text)
	for _, id := range assets {
		if slug, ok := slugs[id]; ok && !slices.Contains(inText, slug) {
			return id, nil
		}
	}
	return "", nil
}

// WorkingMedia is the media file with address /media/slug as its working
// copy has it: what the editor's preview shows, live or not yet.
func (ns *Nodes) WorkingMedia(ctx context.Context, u engine.User, siteID, slug string) (content.Body, error) {
	if err := engine.Require(u, siteID, policy.ContentRead); err != nil {
		return content.Body{}, err
	}
	holders, err := ns.store.AddressHolders(ctx, siteID, release.KindAsset, slug, "")
	if err != nil {
		return content.Body{}, err
	}
	var ids []string
	for _, h := range holders {
		if h.Working {
			ids = append(ids, h.NodeID)
		}
	}
	if len(ids) == 0 {
		return content.Body{}, engine.ErrNotFound
	}
	found, err := ns.store.NodesByID(ctx, siteID, ids)
	if err != nil {
		return content.Body{}, err
	}
	for _, n := range found {
		if n.Kind == release.KindAsset && n.Body.Slug == slug {
			return n.Body, nil
		}
	}
	return content.Body{}, engine.ErrNotFound
}
