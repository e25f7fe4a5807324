package studio

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"studio/engine/releases"
	"studio/web/templates"
)

// undoFor is how long the page after an Unschedule offers to undo it:
// the toast of a move (RFC §15.1), for the click that ended a schedule.
const undoFor = 10 * time.Second

// offerUndo keeps, for the next page, how to put release id back at its
// time: the date and time in the site's zone the schedule form takes, the
// instant to show, and until when the offer holds.
func (h *Handler) offerUndo(r *http.Request, id string, at time.Time) {
	t := at.In(siteLoc(stateOf(r.Context()).site))
	h.sessions.Put(r.Context(), keyUndo, strings.Join([]string{id, t.Format("2006-01-02"), t.Format("15:04"),
		strconv.FormatInt(at.Unix(), 10), strconv.FormatInt(h.eng.Now().Add(undoFor).Unix(), 10)}, " "))
}

// undoOffer takes the offer offerUndo kept: nil unless it is for release
// id and still holds.
func (h *Handler) undoOffer(r *http.Request, id string) *templates.UndoOffer {
	f := strings.Fields(h.sessions.PopString(r.Context(), keyUndo))
	if len(f) != 5 || f[0] != id {
		return nil
	}
	at, err1 := strconv.ParseInt(f[3], 10, 64)
	until, err2 := strconv.ParseInt(f[4], 10, 64)
	left := time.Unix(until, 0).Sub(h.eng.Now())
	if err1 != nil || err2 != nil || left <= 0 {
		return nil
	}
	return &templates.UndoOffer{Action: "/studio/releases/" + id + "/schedule", Date: f[1], Time: f[2],
		When: time.Unix(at, 0).In(siteLoc(stateOf(r.Context()).site)), Seconds: int((left + time.Second - 1) / time.Second)}
}

// offerUndoCancel keeps, for the next page, that the Cancel of release id
// may be taken back until releases.UndoCancelFor from now.
func (h *Handler) offerUndoCancel(r *http.Request, id string) {
	until := h.eng.Now().Add(releases.UndoCancelFor).Unix()
	h.sessions.Put(r.Context(), keyUndo, "cancel "+id+" "+strconv.FormatInt(until, 10))
}

// undoCancelOffer takes the offer offerUndoCancel kept: the seconds left
// to take back the Cancel of release id, or 0.
func (h *Handler) undoCancelOffer(r *http.Request, id string) int {
	f := strings.Fields(h.sessions.PopString(r.Context(), keyUndo))
	if len(f) != 3 || f[0] != "cancel" || f[1] != id {
		return 0
	}
	until, err := strconv.ParseInt(f[2], 10, 64)
	left := time.Unix(until, 0).Sub(h.eng.Now())
	if err != nil || left <= 0 {
		return 0
	}
	return int((left + time.Second - 1) / time.Second)
}
