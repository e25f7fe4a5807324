package api

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"studio/engine/model/release"
	"studio/engine/settings"
)

// settingsJSON is a site's schedule settings (RFC §5.1 schedule_settings):
// the kill switch, the daily automation write cap with today's use, and the
// rev a change must name.
type settingsJSON struct {
	SiteID           string         `json:"siteId"`
	Paused           bool           `json:"paused"`
	PausedBy         *release.Actor `json:"pausedBy,omitempty"`
	PausedAt         *time.Time     `json:"pausedAt,omitempty"`
	PausedReason     string         `json:"pausedReason,omitempty"`
	DailyWriteCap    int            `json:"dailyWriteCap"`
	DailyWritesToday int            `json:"dailyWritesToday"` // automation writes since midnight UTC
	Rev              int64          `json:"rev"`
	UpdatedAt        *time.Time     `json:"updatedAt,omitempty"`
	UpdatedBy        *release.Actor `json:"updatedBy,omitempty"`
}

// ScheduleSettings answers the site's schedule settings.
func (h *Handler) ScheduleSettings(w http.ResponseWriter, r *http.Request) {
	a, err := h.set.ScheduleSettingsAnswer(r.Context(), userOf(r.Context()), chi.URLParam(r, "siteId"))
	if err != nil {
		h.fail(w, r.Context(), err)
		return
	}
	writeJSON(w, http.StatusOK, settingsOf(a))
}

func settingsOf(a settings.Answer) settingsJSON {
	out := settingsJSON{SiteID: a.SiteID, Paused: a.Paused, PausedBy: a.PausedBy, PausedAt: a.PausedAt,
		PausedReason: a.PausedReason, DailyWriteCap: a.DailyWriteCap, DailyWritesToday: a.DailyWritesToday, Rev: a.Rev,
		UpdatedBy: a.UpdatedBy}
	if !a.UpdatedAt.IsZero() {
		out.UpdatedAt = &a.UpdatedAt
	}
	return out
}

// settingsBody is a PUT of the schedule settings: the rev last seen (0 for
// settings nobody has changed yet) and what should hold: the kill switch,
// with the reason for flipping it, or the daily write cap.
type settingsBody struct {
	Rev           *int64 `json:"rev"`
	Paused        *bool  `json:"paused"`
	Reason        string `json:"reason"`
	DailyWriteCap *int   `json:"dailyWriteCap"`
}

// PutScheduleSettings flips the kill switch or sets the daily write cap
// (§11.5, §11.6), for Administrators and above, audited by the engine.
func (h *Handler) PutScheduleSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body settingsBody
	if !h.decode(w, r, &body) {
		return
	}
	switch {
	case body.Rev == nil || *body.Rev < 0:
		h.badRequest(w, ctx, CodeBadRequest, "rev")
		return
	case body.Paused == nil && body.DailyWriteCap == nil:
		h.badRequest(w, ctx, CodeNothingToChange, "")
		return
	}
	a, err := h.set.ChangeScheduleSettingsAnswer(ctx, userOf(ctx), chi.URLParam(r, "siteId"),
		settings.SettingsChange{Rev: *body.Rev, Paused: body.Paused, Reason: body.Reason, DailyWriteCap: body.DailyWriteCap})
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsOf(a))
}
