package studio

import (
	"net/http"
	"strconv"
	"strings"
	"time"

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
