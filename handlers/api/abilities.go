package api

import (
	"context"
	"net/http"

	"studio/engine"
	"studio/engine/release"
)

// releaseJSON is a release in the §4.2 shape with what the caller may do to
// it now (the engine's ReleaseAbilities: the same flags Studio draws its
// buttons from), so a script sees what it may do before it tries.
type releaseJSON struct {
	release.Release
	Abilities engine.ReleaseAbilities `json:"abilities"`
}

// releasesOut is rows with the caller's abilities, read in one call.
func (h *Handler) releasesOut(ctx context.Context, siteID string, rows []engine.ReleaseRow) ([]releaseJSON, error) {
	can, err := h.eng.ReleaseAbilities(ctx, userOf(ctx), siteID, rows)
	if err != nil {
		return nil, err
	}
	out := make([]releaseJSON, 0, len(rows))
	for _, r := range rows {
		out = append(out, releaseJSON{Release: r.Release, Abilities: can[r.ID]})
	}
	return out, nil
}

// releaseOut is one release with the caller's abilities.
func (h *Handler) releaseOut(ctx context.Context, row engine.ReleaseRow) (releaseJSON, error) {
	can, err := h.eng.AbilitiesOfRelease(ctx, userOf(ctx), row)
	return releaseJSON{Release: row.Release, Abilities: can}, err
}

// writeRelease answers one release with the caller's abilities.
func (h *Handler) writeRelease(w http.ResponseWriter, ctx context.Context, status int, row engine.ReleaseRow) {
	out, err := h.releaseOut(ctx, row)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, status, out)
}
