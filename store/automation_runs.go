package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/model/release"
	"studio/engine/policy"
	"studio/engine/scheduler"
)

// The automations tick's reads and guarded writes (engine/scheduler's
// AutomationStore).

// automationsDue is the earliest due_at the ticker must act on: a paused
// site's automations count only with an open run (to be killed at its step
// boundary). It reads automations_due in order.
const automationsDue = `(SELECT min(au.due_at) FROM automations au WHERE au.due_at IS NOT NULL
	AND (au.open_run_id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM schedule_settings p WHERE p.site_id = au.site_id AND p.paused = 1)))`

// dueWorkSQL is DueWork's one statement: its arguments are the late limit
// as a modifier, the minute's end (twice), the late limit's start, the
// site to start from, the limit and the site to start from again.
const dueWorkSQL = `SELECT r.*, w.due, w.sys FROM (SELECT ` + automationsDue + ` AS due,
		(SELECT min(next_at) FROM system_jobs) AS sys) w LEFT JOIN (
		SELECT ` + releaseColumns + `, COALESCE(p.paused, 0) AS paused_flag,
		  (SELECT json_array(` + memberColumns + `) FROM memberships m JOIN users u ON u.id = m.user_id
		    WHERE m.site_id = releases.site_id AND m.user_id = json_extract(approval, '$.by.id')) AS approver, CASE
		    WHEN COALESCE(p.paused, 0) = 0 OR state = 'awaiting_approval'
		      THEN execute_at
		    ELSE max(COALESCE(lease_until, ''), strftime('%Y-%m-%dT%H:%M:%fZ', execute_at, ?))
		  END AS due_order
		FROM releases LEFT JOIN (SELECT site_id AS paused_site, paused FROM schedule_settings) p ON p.paused_site = releases.site_id
		WHERE ((state IN ('scheduled', 'awaiting_approval') AND execute_at <= ?) OR (state = 'running' AND lease_until <= ?))
		  AND (COALESCE(p.paused, 0) = 0 OR state = 'awaiting_approval' OR execute_at <= ?)
		ORDER BY due_order, CASE WHEN site_id >= ? THEN 0 ELSE 1 END, site_id, id
		LIMIT ?) r ON 1 = 1
		ORDER BY r.due_order, CASE WHEN r.site_id >= ? THEN 0 ELSE 1 END, r.site_id, r.id`

// DueWork is DueReleases with the automations' earliest due_at, in one
// statement: the one-row automations part is LEFT JOINed to the releases,
// so an idle tick still costs one statement with any number of automations
// configured.
func (s *Store) DueWork(ctx context.Context, until time.Time, limit int, from string) (scheduler.DueWork, error) {
	t, lateUntil := instant(until), instant(until.Add(-release.LateLimit))
	late := fmt.Sprintf("+%d seconds", int64(release.LateLimit/time.Second))
	rows, err := s.read.QueryContext(ctx, dueWorkSQL, late, t, t, lateUntil, from, limit, from)
	var w scheduler.DueWork
	if err != nil {
		return w, fmt.Errorf("store: due work: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return w, fmt.Errorf("store: due work: %w", err)
	}
	for rows.Next() {
		// The first scan sees whether the row carries a release (the
		// automations' row alone has NULLs there); Scan may be called again.
		probe := make([]any, len(cols))
		for i := range probe {
			probe[i] = new(any)
		}
		if err := rows.Scan(probe...); err != nil {
			return w, fmt.Errorf("store: due work: %w", err)
		}
		if w.AutomationsAt, err = probedInstant(probe[len(probe)-2]); err != nil {
			return w, err
		}
		if w.SystemAt, err = probedInstant(probe[len(probe)-1]); err != nil {
			return w, err
		}
		if *(probe[0].(*any)) == nil {
			continue
		}
		var paused bool
		var approver, order, due, sys sql.NullString
		r, err := scanRelease(withExtra{rows, []any{&paused, &approver, &order, &due, &sys}})
		if err != nil {
			return w, err
		}
		r.SitePaused = paused
		if r.Approver, err = approverOf(approver); err != nil {
			return w, err
		}
		if r.Approver != nil {
			r.Approver.SiteID = r.SiteID
		}
		r.ApproverRead = true
		w.Releases = append(w.Releases, r)
	}
	return w, rows.Err()
}

// approverOf decodes DueWork's approver column: the approver's
// memberColumns on the release's site as a JSON array, NULL when there is
// no such account or it is no longer a member of the site.
func approverOf(col sql.NullString) (*engine.User, error) {
	if !col.Valid {
		return nil, nil
	}
	var f [5]string
	if err := json.Unmarshal([]byte(col.String), &f); err != nil {
		return nil, fmt.Errorf("store: due work approver: %w", err)
	}
	return &engine.User{ID: f[0], Email: f[1], Name: f[2], Role: policy.Role(f[3]), Lang: f[4]}, nil
}

// probedInstant is an instant column scanned into an *any.
func probedInstant(p any) (*time.Time, error) {
	switch v := (*(p.(*any))).(type) {
	case nil:
		return nil, nil
	case string:
		return parseInstant(sql.NullString{String: v, Valid: true})
	case []byte:
		return parseInstant(sql.NullString{String: string(v), Valid: true})
	default:
		return nil, fmt.Errorf("store: due work: an instant of type %T", v)
	}
}

// DueAutomations lists the automations due at or before now, in due order.
func (s *Store) DueAutomations(ctx context.Context, now time.Time, limit int) ([]scheduler.DueAutomation, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+automationColumns+`, COALESCE(p.paused, 0) FROM automations a
		LEFT JOIN schedule_settings p ON p.site_id = a.site_id
		WHERE a.due_at IS NOT NULL AND a.due_at <= ? AND (a.open_run_id IS NOT NULL OR COALESCE(p.paused, 0) = 0)
		ORDER BY a.due_at, a.id LIMIT ?`, instant(now), limit)
	if err != nil {
		return nil, fmt.Errorf("store: due automations: %w", err)
	}
	defer rows.Close()
	var out []scheduler.DueAutomation
	creators := map[string]release.Actor{}
	for rows.Next() {
		var d scheduler.DueAutomation
		var paused bool
		a, err := scanAutomation(withExtra{rows, []any{&paused}}, creators)
		if err != nil {
			return nil, err
		}
		d.Automation, d.SitePaused = a, paused
		out = append(out, d)
	}
	return out, rows.Err()
}

// ClaimOccurrence claims one occurrence of an automation (§8.5): the
// automation moves on from the occurrence it had handled only if it is
// still as read; the skipped run of the coalesced ones and the run go in
// with it.
func (s *Store) ClaimOccurrence(ctx context.Context, c scheduler.OccurrenceClaim) (bool, error) {
	claimed := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET handled_at = ?, next_run_at = ?, open_run_id = ?, due_at = ?
			WHERE id = ? AND handled_at = ? AND open_run_id IS NULL AND state = 'active'
			  AND NOT EXISTS (SELECT 1 FROM schedule_settings WHERE site_id = ? AND paused = 1)`,
			instant(c.Run.OccurrenceAt), optionalInstant(c.NextRunAt), c.Run.ID, optionalInstant(c.Run.LeaseUntil),
			c.AutomationID, instant(c.HandledAt), c.SiteID))
		if err != nil {
			return fmt.Errorf("store: claim occurrence: %w", err)
		}
		if !ok {
			return nil
		}
		if c.Skipped != nil {
			if err := insertRun(ctx, tx, *c.Skipped); err != nil {
				return err
			}
		}
		if err := insertRun(ctx, tx, c.Run); err != nil {
			return err
		}
		claimed = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return claimed, nil
}

// PlanAutomation writes an automation's next run and when to look, or its
// end, when it is still at the rev read; a change meanwhile wins.
func (s *Store) PlanAutomation(ctx context.Context, p scheduler.AutomationPlan) error {
	now := instant(p.Now)
	var err error
	if p.Ended {
		_, err = s.write.ExecContext(ctx, `UPDATE automations SET state = 'ended', ended_at = ?, next_run_at = NULL, due_at = NULL,
			rev = rev + 1, updated_at = ? WHERE id = ? AND rev = ? AND state = 'active' AND open_run_id IS NULL`, now, now, p.AutomationID, p.Rev)
	} else {
		_, err = s.write.ExecContext(ctx, `UPDATE automations SET next_run_at = ?, due_at = ? WHERE id = ? AND rev = ? AND open_run_id IS NULL`,
			optionalInstant(p.NextRunAt), optionalInstant(p.DueAt), p.AutomationID, p.Rev)
	}
	if err != nil {
		return fmt.Errorf("store: plan automation: %w", err)
	}
	return nil
}

// TakeStep passes an open run's lease to a new step when no live lease
// holds it.
func (s *Store) TakeStep(ctx context.Context, c scheduler.StepClaim) (bool, error) {
	taken := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now, until := instant(c.Now), instant(c.Until)
		ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET lease_token = ?, lease_until = ?,
			attempt = attempt + CASE WHEN lease_token IS NOT NULL THEN 1 ELSE 0 END, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND state = 'running' AND COALESCE(lease_token, '') = ? AND (lease_until IS NULL OR lease_until <= ?)`,
			c.Token, until, now, c.RunID, c.Rev, c.OldToken, now))
		if err != nil {
			return fmt.Errorf("store: take step: %w", err)
		}
		if !ok {
			return nil
		}
		// Were this process to die in the step, the run is due again when
		// its lease ends.
		if _, err := tx.ExecContext(ctx, `UPDATE automations SET due_at = ? WHERE id = ? AND open_run_id = ?`, until, c.AutomationID, c.RunID); err != nil {
			return fmt.Errorf("store: take step: %w", err)
		}
		taken = true
		return nil
	})
	return taken, err
}

// SaveStep records a step's cursor and counts and lets its lease go.
func (s *Store) SaveStep(ctx context.Context, st scheduler.StepSave) error {
	counts, err := countsText(st.Counts)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(st.Now)
		ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET cursor = NULLIF(?, ''), counts = ?, lease_token = NULL, lease_until = NULL,
			rev = rev + 1, updated_at = ? WHERE id = ? AND state = 'running' AND lease_token = ?`, st.Cursor, counts, now, st.RunID, st.Token))
		if err != nil {
			return fmt.Errorf("store: save step: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if _, err := tx.ExecContext(ctx, `UPDATE automations SET due_at = ? WHERE id = ? AND open_run_id = ?`, now, st.AutomationID, st.RunID); err != nil {
			return fmt.Errorf("store: save step: %w", err)
		}
		return nil
	})
}

// EndRun ends an automation's run under its lease and writes the
// automation's state after it, with the audit row.
func (s *Store) EndRun(ctx context.Context, e scheduler.RunEnd) error {
	counts, err := countsText(e.Counts)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(e.Now)
		ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET state = ?, outcome = NULLIF(?, ''), counts = COALESCE(?, counts),
			error = NULLIF(?, ''), error_message = NULLIF(?, ''), ended_at = COALESCE(ended_at, ?), lease_token = NULL, lease_until = NULL,
			rev = rev + 1, updated_at = ? WHERE id = ? AND state = 'running' AND lease_token = ?`,
			string(e.State), string(e.Outcome), counts, e.ErrorCode, e.ErrorMessage, now, now, e.RunID, e.Token))
		if err != nil {
			return fmt.Errorf("store: end run: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		var ended any
		if e.Ended {
			ended = now
		}
		if _, err := tx.ExecContext(ctx, `UPDATE automations SET open_run_id = NULL, state = ?, paused_reason = NULLIF(?, ''),
			consecutive_failures = ?, due_at = ?, ended_at = COALESCE(?, ended_at), rev = rev + 1, updated_at = ?
			WHERE id = ? AND open_run_id = ?`,
			string(e.Automation.State), string(e.Automation.PausedReason), e.Automation.ConsecutiveFailures, optionalInstant(e.DueAt),
			ended, now, e.AutomationID, e.RunID); err != nil {
			return fmt.Errorf("store: end run: %w", err)
		}
		return audit(ctx, tx, e.Audit)
	})
}

// SystemJob reads a system job's row.
func (s *Store) SystemJob(ctx context.Context, name string) (scheduler.SystemJob, error) {
	j := scheduler.SystemJob{Name: name}
	var next, mark sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT next_at, watermark, done FROM system_jobs WHERE name = ?`, name).Scan(&next, &mark, &j.Done)
	if err != nil {
		return j, notFound(err)
	}
	at, err := parseInstant(next)
	if err != nil {
		return j, err
	}
	if at != nil {
		j.NextAt = *at
	}
	j.Watermark, err = parseInstant(mark)
	return j, err
}

// WriteSystemJob writes a job's next time and watermark if its next time
// is still read.
func (s *Store) WriteSystemJob(ctx context.Context, j scheduler.SystemJob, read, now time.Time) (bool, error) {
	ok, err := one(s.write.ExecContext(ctx, `UPDATE system_jobs SET next_at = ?, watermark = ?, done = ?, updated_at = ?
		WHERE name = ? AND next_at = ?`, instant(j.NextAt), optionalInstant(j.Watermark), j.Done, instant(now), j.Name, instant(read)))
	if err != nil {
		return false, fmt.Errorf("store: system job: %w", err)
	}
	return ok, nil
}

// ScheduleSystemJob sets a job's first time when it has none.
func (s *Store) ScheduleSystemJob(ctx context.Context, name string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE system_jobs SET next_at = ?, updated_at = ? WHERE name = ? AND next_at IS NULL`,
		instant(at), instant(at), name); err != nil {
		return fmt.Errorf("store: schedule system job: %w", err)
	}
	return nil
}

// Retain deletes one batch of old runs and old terminal releases (with
// their items and approvals; audit rows stay) in one transaction.
func (s *Store) Retain(ctx context.Context, p scheduler.RetentionPass) (runs, releases int, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		// The batch's runs, named twice in one transaction: how each run
		// saw the job findings goes with it (engine/jobs).
		const oldRuns = `SELECT id FROM schedule_runs
			WHERE created_at < ? AND state IN ('succeeded', 'failed', 'missed', 'skipped', 'budget-exceeded', 'killed')
			ORDER BY created_at, id LIMIT ?`
		if _, err := tx.ExecContext(ctx, `DELETE FROM job_finding_runs WHERE run_id IN (`+oldRuns+`)`,
			instant(p.RunsBefore), p.Limit); err != nil {
			return fmt.Errorf("store: retain finding runs: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM schedule_runs WHERE id IN (`+oldRuns+`)`, instant(p.RunsBefore), p.Limit)
		if err != nil {
			return fmt.Errorf("store: retain runs: %w", err)
		}
		n, _ := res.RowsAffected()
		runs = int(n)
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS retained (id TEXT PRIMARY KEY)`); err != nil {
			return fmt.Errorf("store: retain: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM retained`); err != nil {
			return fmt.Errorf("store: retain: %w", err)
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO retained SELECT id FROM releases
			WHERE updated_at < ? AND state IN ('published', 'conflict', 'missed', 'expired', 'failed', 'canceled')
			ORDER BY updated_at LIMIT ?`, instant(p.ReleasesBefore), p.Limit)
		if err != nil {
			return fmt.Errorf("store: retain releases: %w", err)
		}
		n, _ = res.RowsAffected()
		releases = int(n)
		if releases == 0 {
			return nil
		}
		for _, q := range []string{
			`DELETE FROM approvals WHERE release_id IN (SELECT id FROM retained)`,
			`DELETE FROM release_items WHERE release_id IN (SELECT id FROM retained)`,
			`DELETE FROM releases WHERE id IN (SELECT id FROM retained)`,
			`DELETE FROM retained`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("store: retain releases: %w", err)
			}
		}
		return nil
	})
	return runs, releases, err
}
