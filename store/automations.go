package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/model/automation"
	"studio/engine/model/release"
)

// automationColumns are an automation's columns as scanAutomation reads
// them, with its newest run's id (LastRun is read by the caller when asked).
const automationColumns = `a.id, a.site_id, a.name, a.job, COALESCE(a.rule, ''), a.start_local, a.time_zone, a.state,
	a.created_by, a.origin, a.rev, a.created_at, a.updated_at, a.preset, a.config, COALESCE(a.paused_reason, ''),
	a.consecutive_failures, a.owner, a.next_run_at, a.ended_at, a.handled_at, a.due_at, COALESCE(a.open_run_id, ''),
	a.task, a.manual_window`

func scanAutomation(row interface{ Scan(...any) error }, creators map[string]release.Actor) (automations.Automation, error) {
	var a automations.Automation
	var createdBy, created, updated string
	var config, owner, next, ended, handled, due, task, window sql.NullString
	if err := row.Scan(&a.ID, &a.SiteID, &a.Name, &a.Job, &a.Rule, &a.StartLocal, &a.TimeZone, &a.State,
		&createdBy, &a.Origin, &a.Rev, &created, &updated, &a.Preset, &config, &a.PausedReason, &a.ConsecutiveFailures,
		&owner, &next, &ended, &handled, &due, &a.OpenRunID, &task, &window); err != nil {
		return a, notFound(err)
	}
	if task.Valid {
		a.Task = &automations.Task{}
		if err := fromJSON(task, a.Task); err != nil {
			return a, err
		}
		if window.Valid {
			a.Task.ManualWindow = &automation.RunWindow{}
			if err := fromJSON(window, a.Task.ManualWindow); err != nil {
				return a, err
			}
		}
	}
	actor, ok := creators[createdBy]
	if !ok {
		if err := json.Unmarshal([]byte(createdBy), &actor); err != nil {
			return a, fmt.Errorf("store: automation %s creator: %w", a.ID, err)
		}
		creators[createdBy] = actor
	}
	a.CreatedBy = actor
	var err error
	if err := fromJSON(config, &a.Config); err != nil {
		return a, err
	}
	if err := fromJSON(owner, &a.Owner); err != nil {
		return a, err
	}
	if a.CreatedAt, err = mustInstant(created); err != nil {
		return a, err
	}
	if a.UpdatedAt, err = mustInstant(updated); err != nil {
		return a, err
	}
	if a.NextRunAt, err = parseInstant(next); err != nil {
		return a, err
	}
	if a.EndedAt, err = parseInstant(ended); err != nil {
		return a, err
	}
	if a.DueAt, err = parseInstant(due); err != nil {
		return a, err
	}
	h, err := parseInstant(handled)
	if err != nil {
		return a, err
	}
	if h != nil {
		a.HandledAt = *h
	}
	return a, nil
}

func configText(c jobs.Config) (any, error) {
	if c.StaleAfterDays == 0 && len(c.Exclude) == 0 {
		return nil, nil
	}
	return jsonText(c)
}

// CreateAutomation inserts an automation and its audit row in one
// transaction.
func (s *Store) CreateAutomation(ctx context.Context, a automations.Automation, entry engine.AuditEntry) error {
	createdBy, err := jsonText(a.CreatedBy)
	if err != nil {
		return err
	}
	owner, err := jsonText(a.Owner)
	if err != nil {
		return err
	}
	config, err := configText(a.Config)
	if err != nil {
		return err
	}
	var task any
	if a.Task != nil {
		if task, err = jsonText(a.Task); err != nil {
			return err
		}
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO automations (id, site_id, name, job, rule, start_local, time_zone, state,
			created_by, origin, rev, created_at, updated_at, preset, config, paused_reason, consecutive_failures, owner,
			next_run_at, ended_at, handled_at, due_at, open_run_id, task)
			VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?)`,
			a.ID, a.SiteID, a.Name, a.Job, a.Rule, a.StartLocal, a.TimeZone, a.State, createdBy, a.Origin, a.Rev,
			instant(a.CreatedAt), instant(a.UpdatedAt), a.Preset, config, a.PausedReason, a.ConsecutiveFailures, owner,
			optionalInstant(a.NextRunAt), optionalInstant(a.EndedAt), instant(a.HandledAt), optionalInstant(a.DueAt), a.OpenRunID, task)
		if err != nil {
			return fmt.Errorf("store: insert automation: %w", err)
		}
		return audit(ctx, tx, entry)
	})
}

func optionalInstant(t *time.Time) any {
	if t == nil {
		return nil
	}
	return instant(*t)
}

// LastRuns reads the newest run of each automation listed (one statement
// on schedule_runs' unique (subject_id, occurrence_at) index).
func (s *Store) LastRuns(ctx context.Context, as []automations.Automation) error {
	if len(as) == 0 {
		return nil
	}
	ids := make([]string, len(as))
	at := map[string]int{}
	for i, a := range as {
		ids[i] = a.ID
		at[a.ID] = i
	}
	list, err := jsonText(ids)
	if err != nil {
		return err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+runColumns+` FROM schedule_runs r
		WHERE r.id IN (SELECT (SELECT x.id FROM schedule_runs x WHERE x.subject_id = s.value ORDER BY x.occurrence_at DESC, x.id DESC LIMIT 1)
		  FROM json_each(?) s)`, list)
	if err != nil {
		return fmt.Errorf("store: last runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return err
		}
		if i, ok := at[r.SubjectID]; ok {
			as[i].LastRun = &r
		}
	}
	return rows.Err()
}

// Automations lists a site's automations, oldest first: one statement on
// automations_site.
func (s *Store) Automations(ctx context.Context, siteID string) ([]automations.Automation, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+automationColumns+` FROM automations a WHERE a.site_id = ? ORDER BY a.created_at, a.id`, siteID)
	if err != nil {
		return nil, fmt.Errorf("store: automations: %w", err)
	}
	defer rows.Close()
	var out []automations.Automation
	creators := map[string]release.Actor{} // a site has few creators: each is decoded once
	for rows.Next() {
		a, err := scanAutomation(rows, creators)
		if err != nil {
			return nil, fmt.Errorf("store: automations: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Automation reads one automation of a site with its newest run.
func (s *Store) Automation(ctx context.Context, siteID, id string) (automations.Automation, error) {
	a, err := scanAutomation(s.read.QueryRowContext(ctx, `SELECT `+automationColumns+` FROM automations a WHERE a.site_id = ? AND a.id = ?`,
		siteID, id), map[string]release.Actor{})
	if err != nil {
		return a, err
	}
	one := []automations.Automation{a}
	err = s.LastRuns(ctx, one)
	return one[0], err
}

// UpdateAutomation writes a over the automation at rev, with its audit
// row; killRun also kills the open run it had.
func (s *Store) UpdateAutomation(ctx context.Context, a automations.Automation, rev int64, killRun bool, entry engine.AuditEntry) error {
	config, err := configText(a.Config)
	if err != nil {
		return err
	}
	var task any
	if a.Task != nil {
		if task, err = jsonText(a.Task); err != nil {
			return err
		}
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := updateAutomation(ctx, tx, a, config, task, rev, killRun); err != nil {
			return err
		}
		return audit(ctx, tx, entry)
	})
}

// updateAutomation writes a over the automation at rev inside tx (its open
// run killed first when killRun; its agent task kept when task is nil);
// engine.ErrConflict when its rev moved.
func updateAutomation(ctx context.Context, tx *sql.Tx, a automations.Automation, config, task any, rev int64, killRun bool) error {
	now := instant(a.UpdatedAt)
	if killRun {
		if err := killOpenRun(ctx, tx, a.ID, now); err != nil {
			return err
		}
	}
	owner, err := jsonText(a.Owner)
	if err != nil {
		return err
	}
	ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET name = ?, rule = NULLIF(?, ''), start_local = ?, time_zone = ?,
		state = ?, preset = ?, config = ?, paused_reason = NULLIF(?, ''), consecutive_failures = ?, next_run_at = ?,
		ended_at = ?, handled_at = ?, due_at = ?, open_run_id = NULLIF(?, ''), rev = ?, updated_at = ?, task = COALESCE(?, task),
		owner = CASE WHEN ? = '' THEN owner ELSE ? END
		WHERE id = ? AND site_id = ? AND rev = ?`,
		a.Name, a.Rule, a.StartLocal, a.TimeZone, a.State, a.Preset, config, a.PausedReason, a.ConsecutiveFailures,
		optionalInstant(a.NextRunAt), optionalInstant(a.EndedAt), instant(a.HandledAt), optionalInstant(a.DueAt),
		a.OpenRunID, a.Rev, now, task, a.Owner.ID, owner, a.ID, a.SiteID, rev))
	if err != nil {
		return fmt.Errorf("store: update automation: %w", err)
	}
	if !ok {
		return engine.ErrConflict
	}
	return nil
}

// killOpenRun kills the automation's open run, if any.
func killOpenRun(ctx context.Context, tx *sql.Tx, automationID string, now any) error {
	_, err := tx.ExecContext(ctx, `UPDATE schedule_runs SET state = 'killed', ended_at = ?, lease_token = NULL, lease_until = NULL,
		rev = rev + 1, updated_at = ? WHERE id = (SELECT open_run_id FROM automations WHERE id = ?) AND state IN ('due', 'ready', 'running')`,
		now, now, automationID)
	if err != nil {
		return fmt.Errorf("store: kill run: %w", err)
	}
	return nil
}

// DeleteAutomation removes an automation at rev and kills its open run;
// its runs stay.
func (s *Store) DeleteAutomation(ctx context.Context, d automations.Deletion) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := killOpenRun(ctx, tx, d.ID, instant(d.Now)); err != nil {
			return err
		}
		ok, err := one(tx.ExecContext(ctx, `DELETE FROM automations WHERE id = ? AND site_id = ? AND rev = ?`, d.ID, d.SiteID, d.Rev))
		if err != nil {
			return fmt.Errorf("store: delete automation: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		for _, q := range d.Denials {
			if err := decideApproval(ctx, tx, q); err != nil {
				return err
			}
		}
		return audit(ctx, tx, d.Audit)
	})
}

// StartRun inserts a person's run now as the automation's open run.
func (s *Store) StartRun(ctx context.Context, r automations.Run, rev int64, entry engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(r.CreatedAt)
		ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET open_run_id = ?, due_at = ?
			WHERE id = ? AND site_id = ? AND rev = ? AND open_run_id IS NULL`, r.ID, now, r.SubjectID, r.SiteID, rev))
		if err != nil {
			return fmt.Errorf("store: start run: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if err := insertRun(ctx, tx, r); err != nil {
			return err
		}
		return audit(ctx, tx, entry)
	})
}

// insertRun inserts a run row; a run with the same id (the same subject
// and occurrence) is a conflict.
func insertRun(ctx context.Context, tx *sql.Tx, r automations.Run) error {
	counts, err := countsText(r.Counts)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO schedule_runs (id, site_id, subject_kind, subject_id, occurrence_at, state, outcome,
		trigger, attempt, lease_token, lease_until, started_at, ended_at, lateness_s, adjusted, error, error_message, job, counts, cursor,
		rev, created_at, updated_at, ends_at, mode, key_id)
		VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, NULLIF(?, ''), ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''),
		  NULLIF(?, ''), ?, NULLIF(?, ''), ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, '')) ON CONFLICT DO NOTHING`,
		r.ID, r.SiteID, r.SubjectKind, r.SubjectID, instant(r.OccurrenceAt), r.State, r.Outcome, r.Trigger, r.Attempt,
		r.LeaseToken, optionalInstant(r.LeaseUntil), optionalInstant(r.StartedAt), optionalInstant(r.EndedAt), r.LatenessSeconds,
		r.Adjusted, r.ErrorCode, r.ErrorMessage, r.Job, counts, r.Cursor, r.Rev, instant(r.CreatedAt), instant(r.UpdatedAt),
		optionalInstant(r.EndsAt), r.Mode, r.KeyID)
	if err != nil {
		return fmt.Errorf("store: insert run: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return engine.ErrConflict
	}
	return nil
}

func countsText(c map[string]int) (any, error) {
	if len(c) == 0 {
		return nil, nil
	}
	return jsonText(c)
}

const runColumns = `r.id, r.site_id, r.subject_kind, r.subject_id, COALESCE(r.job, ''), r.occurrence_at, r.state, COALESCE(r.outcome, ''),
	COALESCE(r.trigger, ''), r.attempt, r.started_at, r.ended_at, r.lateness_s, COALESCE(r.adjusted, ''), r.counts,
	COALESCE(r.error, ''), COALESCE(r.error_message, ''), COALESCE(r.cursor, ''), COALESCE(r.lease_token, ''), r.lease_until,
	r.rev, r.created_at, r.updated_at, r.ends_at, r.ledger, COALESCE(r.mode, ''), COALESCE(r.key_id, ''), COALESCE(r.summary, '')`

func scanRun(row interface{ Scan(...any) error }) (automations.Run, error) {
	var r automations.Run
	var occ, created, updated string
	var started, ended, counts, until, endsAt, ledger sql.NullString
	var lateness sql.NullInt64
	if err := row.Scan(&r.ID, &r.SiteID, &r.SubjectKind, &r.SubjectID, &r.Job, &occ, &r.State, &r.Outcome, &r.Trigger,
		&r.Attempt, &started, &ended, &lateness, &r.Adjusted, &counts, &r.ErrorCode, &r.ErrorMessage, &r.Cursor, &r.LeaseToken,
		&until, &r.Rev, &created, &updated, &endsAt, &ledger, &r.Mode, &r.KeyID, &r.Summary); err != nil {
		return r, notFound(err)
	}
	var err error
	if r.EndsAt, err = parseInstant(endsAt); err != nil {
		return r, err
	}
	if err := fromJSON(ledger, &r.Ledger); err != nil {
		return r, err
	}
	if r.OccurrenceAt, err = mustInstant(occ); err != nil {
		return r, err
	}
	if r.CreatedAt, err = mustInstant(created); err != nil {
		return r, err
	}
	if r.UpdatedAt, err = mustInstant(updated); err != nil {
		return r, err
	}
	if r.StartedAt, err = parseInstant(started); err != nil {
		return r, err
	}
	if r.EndedAt, err = parseInstant(ended); err != nil {
		return r, err
	}
	if r.LeaseUntil, err = parseInstant(until); err != nil {
		return r, err
	}
	if lateness.Valid {
		v := lateness.Int64
		r.LatenessSeconds = &v
	}
	if err := fromJSON(counts, &r.Counts); err != nil {
		return r, err
	}
	return r, nil
}

// Runs lists a site's runs by f, newest occurrence first: one statement on
// schedule_runs_site_at (or the subject's unique index).
func (s *Store) Runs(ctx context.Context, f automations.RunFilter) ([]automations.Run, error) {
	where := []string{"r.site_id = ?"}
	args := []any{f.SiteID}
	if f.AutomationID != "" {
		where, args = append(where, "r.subject_kind = 'automation' AND r.subject_id = ?"), append(args, f.AutomationID)
	}
	if f.ReleaseID != "" {
		where, args = append(where, "r.subject_kind = 'release' AND r.subject_id = ?"), append(args, f.ReleaseID)
	}
	if f.State != "" {
		where, args = append(where, "r.state = ?"), append(args, f.State)
	}
	if f.Outcome != "" {
		where, args = append(where, "r.outcome = ?"), append(args, f.Outcome)
	}
	if f.Before != nil {
		at := instant(f.Before.OccurrenceAt)
		where, args = append(where, "(r.occurrence_at < ? OR (r.occurrence_at = ? AND r.id < ?))"), append(args, at, at, f.Before.ID)
	}
	args = append(args, f.Limit)
	rows, err := s.read.QueryContext(ctx, `SELECT `+runColumns+` FROM schedule_runs r WHERE `+strings.Join(where, " AND ")+`
		ORDER BY r.occurrence_at DESC, r.id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	defer rows.Close()
	var out []automations.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Run reads one run of a site.
func (s *Store) Run(ctx context.Context, siteID, id string) (automations.Run, error) {
	return scanRun(s.read.QueryRowContext(ctx, `SELECT `+runColumns+` FROM schedule_runs r WHERE r.site_id = ? AND r.id = ?`, siteID, id))
}

// RunTrail is what a run left: its audit rows' ids, oldest first, the
// snapshots those rows name (a publish's "snapshot"), the releases they
// name and the approval requests the run filed. Run ids are unique across
// sites, and a row without a site (an agent's get_mode) is the run's too:
// rows are found by the run's id alone, the run being the site's (the use
// case read it first).
func (s *Store) RunTrail(ctx context.Context, _, runID string) (automations.Trail, error) {
	var t automations.Trail
	rows, err := s.read.QueryContext(ctx, `SELECT id, coalesce(json_extract(details, '$.snapshot'), ''), coalesce(release_id, '')
		FROM audit WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return t, fmt.Errorf("store: run trail: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var snap, rel string
		if err := rows.Scan(&id, &snap, &rel); err != nil {
			return t, err
		}
		t.AuditRowIDs = append(t.AuditRowIDs, id)
		if snap != "" && !slices.Contains(t.Snapshots, snap) {
			t.Snapshots = append(t.Snapshots, snap)
		}
		if rel != "" && !slices.Contains(t.Releases, rel) {
			t.Releases = append(t.Releases, rel)
		}
	}
	if err := rows.Err(); err != nil {
		return t, err
	}
	approvals, err := s.queryApprovals(ctx, `run_id = ? ORDER BY created_at, id`, runID)
	if err != nil {
		return t, err
	}
	for _, q := range approvals {
		t.Approvals = append(t.Approvals, q.ID)
	}
	return t, nil
}
