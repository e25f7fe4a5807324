package scheduler

import (
	"context"
	"errors"

	"studio/engine"
	"studio/engine/localtime"
)

// tzdataFact names the tzdata version the scheduler last resolved the
// releases' wall-clock times with (instance_facts).
const tzdataFact = "tzdata"

// TzdataReport is what a change of tzdata did (TzdataChanged).
type TzdataReport struct {
	Before, Now string // the versions; Before is "" on the first run
	Looked      int    // releases to come with a wall-clock time
	Moved       int    // of which re-resolved to a later instant
}

// TzdataChanged is §9.1's never-early rule applied at once when the zone
// data changes between runs (a new Studio build, or a host's tzdata
// update): when version differs from the one the scheduler last saw, every
// release to come with a wall-clock time is resolved again, and one whose
// instant is later now is moved there with an audited reschedule (adjusted:
// "tzdata"). One whose instant would be earlier keeps it: never early. The
// tick would find each at its time anyway; doing it now puts the calendars
// right at once. Nothing happens when version is unchanged.
func (t *Scheduler) TzdataChanged(ctx context.Context, version string) (TzdataReport, error) {
	rep := TzdataReport{Now: version}
	var err error
	if rep.Before, err = t.store.InstanceFact(ctx, tzdataFact); err != nil || rep.Before == version {
		return rep, err
	}
	now := t.e.Now()
	rows, err := t.store.WallTimeReleases(ctx, now)
	if err != nil {
		return rep, err
	}
	rep.Looked = len(rows)
	for _, r := range rows {
		later, moved := recompute(r)
		if !moved {
			continue
		}
		audit := engine.AuditEntry{Action: "release.reschedule", Actor: engine.Scheduler, SiteID: r.SiteID, ReleaseID: r.ID, At: now,
			Details: map[string]any{"from": localtime.FormatInstant(*r.ExecuteAt), "to": localtime.FormatInstant(later),
				"adjusted": "tzdata", "tzdata": map[string]any{"from": rep.Before, "to": version}}}
		switch err := t.store.Reschedule(ctx, r.ID, r.Rev, later, audit); {
		case errors.Is(err, engine.ErrConflict): // changed meanwhile: its tick recomputes it
		case err != nil:
			return rep, err
		default:
			rep.Moved++
		}
	}
	if rep.Moved > 0 || rep.Before != "" {
		t.log.Warn("schedules: the time-zone data changed; the releases to come were resolved again (never earlier)",
			"from", rep.Before, "to", version, "releases", rep.Looked, "moved", rep.Moved)
	}
	return rep, t.store.SetInstanceFact(ctx, tzdataFact, version, now)
}
