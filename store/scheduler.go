package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/scheduler"
)

// DueReleases lists the releases that come due by until, in each site's
// time order (D15), by execute_at: scheduled ones to run, waiting ones to
// expire, and running ones whose lease ends by until (at their own time, so
// a dead run is taken over before the releases after it). A release of a
// paused site is not run (§8.6, §11.6), so it comes due only when its late
// limit ends, to be marked missed (a running one at the end of its lease,
// if later); each row says whether its site is paused. One statement: the
// settings come joined, so an idle tick still reads nothing else.
func (s *Store) DueReleases(ctx context.Context, until time.Time, limit int) ([]releases.ReleaseRow, error) {
	t, lateUntil := instant(until), instant(until.Add(-release.LateLimit))
	late := fmt.Sprintf("+%d seconds", int64(release.LateLimit/time.Second))
	rows, err := s.read.QueryContext(ctx, `SELECT `+releaseColumns+`, COALESCE(p.paused, 0)
		FROM releases LEFT JOIN (SELECT site_id AS paused_site, paused FROM schedule_settings) p ON p.paused_site = releases.site_id
		WHERE ((state IN ('scheduled', 'awaiting_approval') AND execute_at <= ?) OR (state = 'running' AND lease_until <= ?))
		  AND (COALESCE(p.paused, 0) = 0 OR state = 'awaiting_approval' OR execute_at <= ?)
		ORDER BY CASE
		    WHEN COALESCE(p.paused, 0) = 0 OR state = 'awaiting_approval'
		      THEN execute_at
		    ELSE max(COALESCE(lease_until, ''), strftime('%Y-%m-%dT%H:%M:%fZ', execute_at, ?))
		  END, id
		LIMIT ?`, t, t, lateUntil, late, limit)
	if err != nil {
		return nil, fmt.Errorf("store: due releases: %w", err)
	}
	defer rows.Close()
	var out []releases.ReleaseRow
	for rows.Next() {
		var paused bool
		r, err := scanRelease(withExtra{rows, []any{&paused}})
		if err != nil {
			return nil, err
		}
		r.SitePaused = paused
		out = append(out, r)
	}
	return out, rows.Err()
}

// withExtra scans a row with columns after those its scanner knows.
type withExtra struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.row.Scan(append(dest, w.extra...)...) }

// claimGuard is the WHERE of the tick's claim of a due release (see
// ClaimRelease), with claimGuardArgs its arguments.
const claimGuard = `
	WHERE id = ? AND rev = ? AND execute_at = ?
	  AND (state = 'scheduled' OR (state = 'running' AND lease_token = ? AND lease_until <= ?))
	  AND NOT EXISTS (SELECT 1 FROM releases o WHERE o.site_id = ? AND o.id <> ? AND o.state = 'running'
	    AND (o.lease_until > ? OR o.execute_at < ? OR (o.execute_at = ? AND o.id < ?)))
	  AND NOT EXISTS (SELECT 1 FROM schedule_settings WHERE site_id = ? AND paused = 1)`

func claimGuardArgs(c scheduler.Claim) []any {
	now, at := instant(c.Now), instant(c.ExecuteAt)
	return []any{c.ReleaseID, c.Rev, at, c.OldToken, now, c.SiteID, c.ReleaseID, now, at, at, c.ReleaseID, c.SiteID}
}

// ClaimRelease takes the release for one run (§8.5): it is ours only if the
// release is still as the tick read it, no other release of its site is
// running under a live lease, and the site is not paused (a pause that
// commits after the tick's read still stops the claim). The run row carries the same lease token.
//
// A running release whose lease has ended blocks nobody as "running": its
// ticker is gone, and it is claimed again like any due release. It keeps
// only its place in the site's time order (D15): a release due after it
// waits until it has been taken over, which the tick does as soon as the
// lease ends, so a dead ticker holds its site up for one lease at most.
//
// A manual run (c.Manual, a person's Publish now) is claimed from c.State at
// c.Rev whatever the release's time, with the person's approval; its
// occurrence is now. Its nodes were let go when the release became missed
// or expired, so the claim checks in the same statement that each is still
// as the release left it (see scheduler.Claim) and holds them again: no edit
// can slip in between this check and the publish.
func (s *Store) ClaimRelease(ctx context.Context, c scheduler.Claim) (bool, error) {
	var claimed bool
	if !c.Manual {
		// The tick's claim writes its release and its run, guarded on its
		// site's rows alone: it takes its site's lock, as a publish does
		// (a refused one then holds up no other site's publish).
		ctx = forSite(ctx, c.SiteID)
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now, at := instant(c.Now), instant(c.ExecuteAt)
		var ok bool
		var err error
		if c.Manual {
			ok, err = claimManual(ctx, tx, c)
		} else {
			ok, err = one(tx.ExecContext(ctx, `UPDATE releases SET state = 'running', lease_token = ?, lease_until = ?,
			rev = rev + 1, updated_at = ?`+claimGuard, append([]any{c.Token, instant(c.LeaseUntil), now}, claimGuardArgs(c)...)...))
		}
		if err != nil || !ok {
			return err
		}
		if c.Manual {
			at = now // a manual run's occurrence is the moment the person asked
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state,
			trigger, attempt, lease_token, lease_until, started_at, rev, created_at, updated_at)
			VALUES (?, ?, 'release', ?, ?, 'running', ?, 1, ?, ?, ?, 1, ?, ?)
			ON CONFLICT (id) DO UPDATE SET state = 'running', attempt = schedule_runs.attempt + 1, lease_token = excluded.lease_token,
			  lease_until = excluded.lease_until, trigger = excluded.trigger, rev = schedule_runs.rev + 1, updated_at = excluded.updated_at`,
			c.RunID, c.SiteID, c.ReleaseID, at, c.Trigger, c.Token, instant(c.LeaseUntil), now, now, now)
		if err != nil {
			return fmt.Errorf("store: claim run: %w", err)
		}
		claimed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: claim: %w", err)
	}
	return claimed, nil
}

// claimManual is the guarded UPDATE of a manual run's claim, then its items'
// holds. The release must be at its rev in its state; no other release of
// the site may run under a live lease, and the site may not be paused, as
// for the tick; no other release may hold one of its nodes; and every set
// item's node must be at its pinned target, or at the draft the release put
// back when it let go: the version right after the target with the body
// of restore_rev. Anything else means a person edited it since.
func claimManual(ctx context.Context, tx *sql.Tx, c scheduler.Claim) (bool, error) {
	approval, err := jsonText(optional(c.Approval))
	if err != nil {
		return false, err
	}
	now := instant(c.Now)
	ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET state = 'running', approval = ?, lease_token = ?, lease_until = ?,
		rev = rev + 1, updated_at = ?
		WHERE id = ? AND rev = ? AND state = ?
		  AND NOT EXISTS (SELECT 1 FROM releases o WHERE o.site_id = ? AND o.id <> ? AND o.state = 'running' AND o.lease_until > ?)
		  AND NOT EXISTS (SELECT 1 FROM schedule_settings WHERE site_id = ? AND paused = 1)
		  AND NOT EXISTS (SELECT 1 FROM release_items i JOIN release_items h ON h.node_id = i.node_id
		    WHERE i.release_id = releases.id AND h.release_id <> i.release_id AND h.held = 1)
		  AND NOT EXISTS (SELECT 1 FROM release_items i JOIN nodes n ON n.id = i.node_id
		    WHERE i.release_id = releases.id AND i.op = 'set'
		      AND NOT (n.rev = i.target_rev AND n.hash = i.target_hash)
		      AND NOT (i.restore_rev IS NOT NULL AND n.rev = i.target_rev + 1
		        AND n.hash = (SELECT v.hash FROM node_versions v WHERE v.node_id = i.node_id AND v.rev = i.restore_rev)))`,
		approval, c.Token, instant(c.LeaseUntil), now, c.ReleaseID, c.Rev, string(c.State),
		c.SiteID, c.ReleaseID, now, c.SiteID))
	if err != nil || !ok {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE release_items SET held = 1 WHERE release_id = ?`, c.ReleaseID); err != nil {
		return false, fmt.Errorf("store: claim holds: %w", err)
	}
	return true, nil
}

// RenewLease moves a claimed run's lease on to l.Until (§8.5), only while
// the lease is still ours and still live at l.Now; ErrConflict otherwise:
// the lease lapsed or another ticker took the run over, and the run must
// stop before its effect. The release's lease is the one claims read; the
// run row's keeps the end the claim gave it.
func (s *Store) RenewLease(ctx context.Context, l scheduler.Lease) error {
	if l.AutomationID != "" { // an automation run's step: the run row holds the lease
		return s.tx(ctx, func(tx *sql.Tx) error {
			ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET lease_until = ?
				WHERE id = ? AND state = 'running' AND lease_token = ? AND lease_until > ?`,
				instant(l.Until), l.RunID, l.Token, instant(l.Now)))
			if err != nil {
				return fmt.Errorf("store: renew lease: %w", err)
			}
			if !ok {
				return engine.ErrConflict
			}
			_, err = tx.ExecContext(ctx, `UPDATE automations SET due_at = ? WHERE id = ? AND open_run_id = ?`,
				instant(l.Until), l.AutomationID, l.RunID)
			return err
		})
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET lease_until = ?
			WHERE id = ? AND state = 'running' AND lease_token = ? AND lease_until > ?`,
			instant(l.Until), l.ReleaseID, l.Token, instant(l.Now)))
		if err != nil {
			return fmt.Errorf("store: renew lease: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return nil
	})
}

// StuckReleases lists, for one site or for all (siteID ""), the releases
// the scheduler should have taken and has not: scheduled ones due at or
// before dueBefore on a site that is not paused, and running ones whose
// lease ended at or before leaseBefore. In time order, at most limit.
func (s *Store) StuckReleases(ctx context.Context, siteID, memberID string, dueBefore, leaseBefore time.Time, limit int) ([]scheduler.StuckRelease, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT r.id, r.site_id, COALESCE(r.title, ''), r.state, r.execute_at, r.lease_until
		FROM releases r LEFT JOIN schedule_settings p ON p.site_id = r.site_id
		WHERE (? = '' OR r.site_id = ?)
		  AND (? = '' OR r.site_id IN (SELECT m.site_id FROM memberships m WHERE m.user_id = ?))
		  AND ((r.state = 'scheduled' AND r.execute_at <= ? AND COALESCE(p.paused, 0) = 0)
		    OR (r.state = 'running' AND r.lease_until <= ?))
		ORDER BY r.execute_at, r.id LIMIT ?`, siteID, siteID, memberID, memberID, instant(dueBefore), instant(leaseBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("store: stuck releases: %w", err)
	}
	defer rows.Close()
	var out []scheduler.StuckRelease
	for rows.Next() {
		var r scheduler.StuckRelease
		var state string
		var at, until sql.NullString
		if err := rows.Scan(&r.ID, &r.SiteID, &r.Title, &state, &at, &until); err != nil {
			return nil, fmt.Errorf("store: stuck releases: %w", err)
		}
		r.State = release.State(state)
		if r.ExecuteAt, err = parseInstant(at); err != nil {
			return nil, err
		}
		if r.LeaseUntil, err = parseInstant(until); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// FinishRelease ends a claimed run without publishing, guarded on the lease.
func (s *Store) FinishRelease(ctx context.Context, f scheduler.Finish) error {
	outcome, err := jsonText(f.Outcome)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(f.Now)
		ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET state = ?, outcome = ?, lease_token = NULL, lease_until = NULL,
			rev = rev + 1, updated_at = ? WHERE id = ? AND state = 'running' AND lease_token = ?`,
			string(f.State), outcome, now, f.ReleaseID, f.Token))
		if err != nil {
			return fmt.Errorf("store: finish release: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if _, err := tx.ExecContext(ctx, `UPDATE release_items SET held = 0 WHERE release_id = ?`, f.ReleaseID); err != nil {
			return fmt.Errorf("store: finish holds: %w", err)
		}
		if err := restoreDrafts(ctx, tx, f.ReleaseID, f.Audit.Actor, f.Now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schedule_runs SET state = ?, ended_at = ?, lateness_s = ?, error = ?,
			lease_token = NULL, rev = rev + 1, updated_at = ? WHERE id = ? AND lease_token = ?`,
			f.RunState, now, f.Lateness, nullIfEmpty(f.Outcome.Code), now, f.RunID, f.Token); err != nil {
			return fmt.Errorf("store: finish run: %w", err)
		}
		return audit(ctx, tx, f.Audit)
	})
}

// ApplyRelease is §6.3's guarded batch in one transaction: the site pointer
// flips only if the site is as read and our lease is live; everything after
// it must then change exactly its row, or the whole batch is undone.
//
// With a.Claim the release is claimed in the same transaction instead (the
// tick's publish of a scheduled release whose reads found nothing in the
// way): the claim's guard comes first, no lease is taken, and the run row
// is written once, succeeded. False, with nothing written, when that guard
// fails too.
func (s *Store) ApplyRelease(ctx context.Context, a scheduler.Apply) (bool, error) {
	outcome, err := jsonText(a.Outcome)
	if err != nil {
		return false, err
	}
	errMoved := fmt.Errorf("site moved")
	err = s.tx(forSite(ctx, a.Site.ID), func(tx *sql.Tx) error {
		now := instant(a.Now)
		var at any
		if a.ExecuteAt != nil {
			at = instant(*a.ExecuteAt)
		}
		publish := func(guard string, args ...any) (bool, error) {
			return one(tx.ExecContext(ctx, `UPDATE releases SET state = 'published', outcome = ?, lease_token = NULL,
				lease_until = NULL, execute_at = COALESCE(?, execute_at), rev = rev + 1, updated_at = ?`+guard,
				append([]any{outcome, at, now}, args...)...))
		}
		var steps []func() (bool, error)
		if c := a.Claim; c != nil {
			ok, err := publish(claimGuard, claimGuardArgs(*c)...)
			if err != nil {
				return fmt.Errorf("store: apply claim: %w", err)
			}
			if !ok {
				return scheduler.ErrNotClaimable
			}
			if ok, err = flipSite(ctx, tx, a.Site, a.Snapshot.ID, a.NewHash, a.Now, ""); err != nil {
				return fmt.Errorf("store: apply claim: %w", err)
			}
			if !ok {
				return errMoved
			}
			steps = append(steps, func() (bool, error) {
				_, err := tx.ExecContext(ctx, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at,
					state, outcome, trigger, attempt, started_at, ended_at, lateness_s, rev, created_at, updated_at)
					VALUES (?, ?, 'release', ?, ?, 'succeeded', 'did-work', ?, 1, ?, ?, ?, 1, ?, ?)
					ON CONFLICT (id) DO UPDATE SET state = 'succeeded', outcome = 'did-work', attempt = schedule_runs.attempt + 1,
					  ended_at = excluded.ended_at, lateness_s = excluded.lateness_s, lease_token = NULL,
					  trigger = excluded.trigger, rev = schedule_runs.rev + 1, updated_at = excluded.updated_at`,
					a.RunID, a.Site.ID, a.ReleaseID, instant(c.ExecuteAt), c.Trigger, now, now, a.Lateness, now, now)
				return err == nil, err
			})
		} else {
			ok, err := flipSite(ctx, tx, a.Site, a.Snapshot.ID, a.NewHash, a.Now,
				` AND EXISTS (SELECT 1 FROM schedule_runs WHERE id = ? AND lease_token = ?)`, a.RunID, a.Token)
			if err != nil {
				return fmt.Errorf("store: apply flip: %w", err)
			}
			if !ok {
				return errMoved
			}
			steps = append(steps,
				func() (bool, error) {
					return publish(` WHERE id = ? AND state = 'running' AND lease_token = ?`, a.ReleaseID, a.Token)
				},
				func() (bool, error) {
					return one(tx.ExecContext(ctx, `UPDATE schedule_runs SET state = 'succeeded', outcome = 'did-work', ended_at = ?,
						lateness_s = ?, lease_token = NULL, rev = rev + 1, updated_at = ? WHERE id = ? AND lease_token = ?`,
						now, a.Lateness, now, a.RunID, a.Token))
				})
		}
		changes, err := changesOf(ctx, tx, a.Snapshot)
		if err != nil {
			return fmt.Errorf("store: apply: %w", err)
		}
		steps = append(steps,
			func() (bool, error) { return insertSnapshot(ctx, tx, a.Snapshot, changes, a.NewHash) },
			func() (bool, error) {
				_, err := tx.ExecContext(ctx, `UPDATE release_items SET held = 0 WHERE release_id = ?`, a.ReleaseID)
				return err == nil, err
			},
			func() (bool, error) {
				if !a.Repromote {
					return true, nil
				}
				return true, repromote(ctx, tx, a.ReleaseID, a.Audit.Actor, a.Now)
			},
			func() (bool, error) { return true, audit(ctx, tx, a.Audit) })
		for i, step := range steps {
			ok, err := step()
			if err != nil {
				return fmt.Errorf("store: apply step %d: %w", i+2, err)
			}
			if !ok {
				return fmt.Errorf("store: apply step %d changed nothing: %w", i+2, engine.ErrConflict)
			}
		}
		return nil
	})
	if err == errMoved {
		return false, nil
	}
	return err == nil, err
}

// repromote is restoreDrafts undone, for a manual run that publishes: each
// set item's node that is not at its pinned target (the claim made sure it
// is then the draft the release put back) gets the target's body again,
// copied as its next version, so the working copy is what is now live.
// The items are held by the run, so nobody edited them since the claim.
func repromote(ctx context.Context, tx *sql.Tx, releaseID string, by release.Actor, now time.Time) error {
	rows, err := tx.QueryContext(ctx, `UPDATE nodes SET rev = rev + 1, updated_at = ?, hash = i.target_hash,
		  body = (SELECT v.body FROM node_versions v WHERE v.node_id = nodes.id AND v.rev = i.target_rev)
		FROM release_items i
		WHERE i.release_id = ? AND i.node_id = nodes.id AND i.op = 'set'
		  AND NOT (nodes.rev = i.target_rev AND nodes.hash = i.target_hash)
		RETURNING nodes.id`, instant(now), releaseID)
	if err != nil {
		return fmt.Errorf("store: repromote: %w", err)
	}
	promoted := 0
	for rows.Next() {
		promoted++
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("store: repromote: %w", err)
	}
	if promoted == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO node_versions (node_id, rev, hash, body, saved_by, saved_at)
		SELECT n.id, n.rev, n.hash, n.body, ?, ? FROM nodes n JOIN release_items i ON i.node_id = n.id
		WHERE i.release_id = ? AND i.op = 'set'
		  AND NOT EXISTS (SELECT 1 FROM node_versions v WHERE v.node_id = n.id AND v.rev = n.rev)`,
		by.ID, instant(now), releaseID)
	if err != nil {
		return fmt.Errorf("store: repromote versions: %w", err)
	}
	return nil
}

// WriteHeartbeat upserts the scheduler's one heartbeat row. It is also the
// scheduler's write probe: a database that is gone or read-only fails it.
func (s *Store) WriteHeartbeat(ctx context.Context, h scheduler.Heartbeat) error {
	if err := s.Liveness(ctx); errors.Is(err, scheduler.ErrDatabaseGone) {
		return err
	}
	_, err := s.write.ExecContext(ctx, `INSERT INTO scheduler_heartbeat (id, at, trigger, next_wake_at, ran, more, lag_s)
		VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at, trigger = excluded.trigger,
		next_wake_at = excluded.next_wake_at, ran = excluded.ran, more = excluded.more, lag_s = excluded.lag_s`,
		instant(h.At), h.Trigger, instant(h.NextWakeAt), h.Ran, h.More, h.LagSeconds)
	if s.noteWrite(err) != nil {
		return fmt.Errorf("store: heartbeat: %w", err)
	}
	return nil
}

// Heartbeat reads the heartbeat row; ErrNotFound before the first tick.
func (s *Store) Heartbeat(ctx context.Context) (scheduler.Heartbeat, error) {
	var h scheduler.Heartbeat
	var at, next string
	err := s.read.QueryRowContext(ctx, `SELECT at, trigger, next_wake_at, ran, more, COALESCE(lag_s, 0)
		FROM scheduler_heartbeat WHERE id = 1`).Scan(&at, &h.Trigger, &next, &h.Ran, &h.More, &h.LagSeconds)
	if err != nil {
		return h, notFound(err)
	}
	if h.At, err = mustInstant(at); err != nil {
		return h, err
	}
	h.NextWakeAt, err = mustInstant(next)
	return h, err
}

// RetryLater shortens the lease of a claimed run after a failed try, so the
// next tick takes it over after the back-off (§8.8), and records the error.
func (s *Store) RetryLater(ctx context.Context, r scheduler.Retry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var attempt int
		err := tx.QueryRowContext(ctx, `SELECT attempt FROM schedule_runs WHERE id = ? AND lease_token = ?`, r.RunID, r.Token).Scan(&attempt)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.ErrConflict
		}
		if err != nil {
			return fmt.Errorf("store: retry: %w", err)
		}
		now, until := instant(r.Now), instant(r.Now.Add(r.Delay(attempt)))
		ok, err := one(tx.ExecContext(ctx, `UPDATE releases SET lease_until = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND lease_token = ?`, until, now, r.ReleaseID, r.Token))
		if err != nil {
			return fmt.Errorf("store: retry: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		_, err = tx.ExecContext(ctx, `UPDATE schedule_runs SET lease_until = ?, error = ?, rev = rev + 1, updated_at = ?
			WHERE id = ? AND lease_token = ?`, until, r.Error, now, r.RunID, r.Token)
		if err != nil {
			return fmt.Errorf("store: retry: %w", err)
		}
		return nil
	})
}

// SchedulerGauges counts the releases and the automation runs by state, and
// the releases due at now not yet run, in one statement for the metrics.
func (s *Store) SchedulerGauges(ctx context.Context, now time.Time) (scheduler.Gauges, error) {
	g := scheduler.Gauges{Releases: map[string]int{}, AutomationRuns: map[string]int{}}
	rows, err := s.read.QueryContext(ctx, `
		SELECT 'release', state, count(*) FROM releases GROUP BY state
		UNION ALL
		SELECT 'run', state, count(*) FROM schedule_runs WHERE subject_kind = 'automation' GROUP BY state
		UNION ALL
		SELECT 'due', '', count(*) FROM releases
		WHERE state IN ('scheduled', 'awaiting_approval') AND execute_at <= ?`, instant(now))
	if err != nil {
		return g, fmt.Errorf("store: scheduler gauges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var what, state string
		var n int
		if err := rows.Scan(&what, &state, &n); err != nil {
			return g, err
		}
		switch what {
		case "release":
			g.Releases[state] = n
		case "run":
			g.AutomationRuns[state] = n
		default:
			g.DueBacklog = n
		}
	}
	return g, rows.Err()
}

// publishLatenessQuery reads the runs by their creation, on its index, so
// its cost is the window's runs, not every run retention keeps.
const publishLatenessQuery = `SELECT r.occurrence_at, r.ended_at FROM schedule_runs r
	JOIN releases x ON x.id = r.subject_id AND x.execute_at = r.occurrence_at
	WHERE r.created_at >= ?1 AND r.subject_kind = 'release' AND r.state = 'succeeded'
	  AND (?2 = '' OR r.site_id IN (SELECT m.site_id FROM memberships m WHERE m.user_id = ?2))`

// PublishLateness lists how late each release run that published and was
// claimed at or after since went live: its end less its time, never below
// 0, on memberID's sites (all for ""). (A run ends within the hour after
// its claim, or it is missed, so a window by claim is one by end but for
// its first hour.) Only runs at the release's own time count: a Publish
// now runs at the moment it was asked for, not late at all.
func (s *Store) PublishLateness(ctx context.Context, since time.Time, memberID string) ([]time.Duration, error) {
	rows, err := s.read.QueryContext(ctx, publishLatenessQuery, instant(since), memberID)
	if err != nil {
		return nil, fmt.Errorf("store: publish lateness: %w", err)
	}
	defer rows.Close()
	var out []time.Duration
	for rows.Next() {
		var at, ended string
		if err := rows.Scan(&at, &ended); err != nil {
			return nil, err
		}
		a, err := mustInstant(at)
		if err != nil {
			return nil, err
		}
		e, err := mustInstant(ended)
		if err != nil {
			return nil, err
		}
		out = append(out, max(e.Sub(a), 0))
	}
	return out, rows.Err()
}

// WallTimeReleases lists the scheduled and waiting releases with a
// wall-clock time (local_time) due after after, in time order.
func (s *Store) WallTimeReleases(ctx context.Context, after time.Time) ([]releases.ReleaseRow, error) {
	return s.queryReleases(ctx, `state IN ('scheduled', 'awaiting_approval') AND execute_at > ? AND local_time IS NOT NULL
		ORDER BY execute_at, id`, instant(after))
}

// InstanceFact reads a fact of the deployment ("" when never written).
func (s *Store) InstanceFact(ctx context.Context, name string) (string, error) {
	var v string
	err := s.read.QueryRowContext(ctx, `SELECT value FROM instance_facts WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetInstanceFact writes a fact of the deployment.
func (s *Store) SetInstanceFact(ctx context.Context, name, value string, at time.Time) error {
	_, err := s.write.ExecContext(ctx, `INSERT INTO instance_facts (name, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, name, value, instant(at))
	if err != nil {
		return fmt.Errorf("store: instance fact %s: %w", name, err)
	}
	return nil
}
