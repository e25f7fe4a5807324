package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/handlers/wire"
	"studio/locales"
)

// The operator routes (§13, issue 16): what a deploy's tools ask of the
// scheduler, with a deploy token (`studio token create --deploy`), never a
// person's token or session. And /api/instance, the features a client may
// rely on.

// DeployGuard lets through only a request with a deploy token (Authorization:
// Bearer). Anything else, a person's token or session included, is 401: the
// operator routes act for no person and show every site's scheduling. A
// body is never read.
func (h *Handler) DeployGuard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := locales.With(r.Context(), locales.Match(r.Header.Get("Accept-Language")))
		r.Body = http.MaxBytesReader(w, r.Body, 0) // never read
		secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			h.problem(w, ctx, http.StatusUnauthorized, CodeUnauthenticated, nil)
			return
		}
		if _, err := h.identity.DeployToken(ctx, strings.TrimSpace(secret)); err != nil {
			if errors.Is(err, engine.ErrNotFound) {
				h.problem(w, ctx, http.StatusUnauthorized, CodeUnauthenticated, nil)
				return
			}
			h.fail(w, ctx, err)
			return
		}
		next(w, r.WithContext(ctx))
	}
}

// AdminStatus is the scheduler's status for an operator (`studio schedules
// status --remote`): /api/scheduler's answer over every site.
func (h *Handler) AdminStatus(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st, err := h.sched.Status(ctx, "")
	h.writeScheduler(ctx, w, st, "", err)
}

// AdminRunDue is an operator's manual tick, as `studio schedules run-due`.
func (h *Handler) AdminRunDue(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rep, err := h.sched.ManualTick(ctx)
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ran": rep.Ran, "published": rep.Published, "late": rep.Late,
		"failed": rep.Failed, "more": rep.More, "nextWakeAt": rep.NextWakeAt.UTC().Format(time.RFC3339)})
}

// Instance reports what this deployment offers (§13): features.schedules.
func (h *Handler) Instance(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"features": map[string]any{"schedules": map[string]any{
		"available": true,
		"scheduler": "node", // the in-process ticker (§8.4)
		"gates":     true,   // the public site is this process: it enforces gates
		"limits": map[string]any{
			"maxItems":           release.MaxItems,
			"horizonDays":        int(release.MaxHorizon / (24 * time.Hour)),
			"requestHorizonDays": int(releases.RequestHorizon / (24 * time.Hour)),
			"lateMinutes":        int(release.LateLimit / time.Minute),
		},
	}}})
}

// writeScheduler answers with st (read with err), as GET /api/scheduler;
// the lateness is of memberID's sites (all for "", an operator).
func (h *Handler) writeScheduler(ctx context.Context, w http.ResponseWriter, st scheduler.Status, memberID string, err error) {
	var out map[string]any
	if err == nil {
		out, err = h.schedulerJSON(ctx, st, memberID)
	}
	if err != nil {
		h.fail(w, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// schedulerJSON is GET /api/scheduler's answer for st, with the 7-day
// lateness of the releases published (§8.7), in seconds.
func (h *Handler) schedulerJSON(ctx context.Context, st scheduler.Status, memberID string) (map[string]any, error) {
	out := map[string]any{"mode": "node", "healthy": st.Healthy(), "state": st.State(),
		"dueNotClaimed": wire.Stuck(st.DueNotClaimed), "pastLease": wire.Stuck(st.PastLease)}
	if hb := st.Scheduler.Beat; hb != nil {
		out["lastTick"], out["nextWakeAt"], out["trigger"] = hb.At, hb.NextWakeAt, hb.Trigger
		out["lagSeconds"] = hb.LagSeconds // how late the oldest due item was at that tick (§8.7)
	}
	if !st.DatabaseOK() {
		out["database"] = st.DatabaseProblem()
		return out, nil
	}
	week, err := h.sched.LatenessWeek(ctx, memberID)
	if err != nil {
		return nil, err
	}
	out["lateness7d"] = map[string]any{"published": week.Runs, "p50Seconds": week.P50.Seconds(), "p95Seconds": week.P95.Seconds()}
	return out, nil
}
