package api

import (
	"context"
	"net/http"
	"studio/engine/releases"
)

// releasesOut is rows with the caller's abilities, read in one call.
func (h *Handler) releasesOut(ctx context.Context, siteID string, rows []releases.ReleaseRow) ([]releaseDoc, error) {
	can, err := h.releases.ReleaseAbilities(ctx, userOf(ctx), siteID, rows)
	if err != nil {
		return nil, err
	}
	out := make([]releaseDoc, 0, len(rows))
	for _, r := range rows {
		doc, a := releaseJSON(r.Release), can[r.ID]
		doc.Abilities = &a
		out = append(out, doc)
	}
	return out, nil
}

// releaseOut is one release with the caller's abilities.
func (h *Handler) releaseOut(ctx context.Context, row releases.ReleaseRow) (releaseDoc, error) {
	can, err := h.releases.AbilitiesOfRelease(ctx, userOf(ctx), row)
	doc := releaseJSON(row.Release)
	doc.Abilities = &can
	return doc, err
}

// writeRelease answers one release with the caller's abilities.
func (h *Handler) writeRelease(w http.ResponseWriter, ctx context.Context, status int, row releases.ReleaseRow) {
	out, err := h.releaseOut(ctx, row)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, status, out)
}
