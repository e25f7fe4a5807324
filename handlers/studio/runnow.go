package studio

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"studio/web/templates"
)

// RunAutomationNow starts an occurrence of an automation now, as a person's
// manual run (RFC §11, §13 run-now): from the Automations list, the
// calendar's occurrence menu or a run's "Check again". The answer is the new
// run's page, where its state and findings appear as it goes; a second
// press while it runs (a double click) answers the same run's page.
func (h *Handler) RunAutomationNow(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st := stateOf(ctx)
	run, started, err := h.aut.RunNow(ctx, *st.user, st.site.ID, chi.URLParam(r, "id"))
	flash := "automations.run_started"
	if !started {
		flash = "automations.run_under_way"
	}
	h.answerRun(w, r, err, flash, run.ID)
}

// answerRun ends a POST about a run: a refusal's sentence on a problem
// page, or the run's page with the flash.
func (h *Handler) answerRun(w http.ResponseWriter, r *http.Request, err error, flash, runID string) {
	if msg, _, status, ok := refusal(r.Context(), err); ok {
		h.render(w, r, status, templates.Problem(h.page(r, "error.title", "schedules"), msg))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, flash)
	http.Redirect(w, r, to(r, RunURL(runID)), http.StatusSeeOther)
}

// RunURL is the Studio page of one run (of an automation or a release).
func RunURL(runID string) string { return "/studio/schedules/runs/" + runID }
