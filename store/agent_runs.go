package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/automation"
	"studio/engine/model/release"
	"studio/engine/scheduler"
)

// Agent tasks' runs (RFC-0008 §11.2–§11.5): begin_run inserts the run of
// an occurrence under schedule_runs' unique (subject_id, occurrence_at), so
// of two racing begin_runs for one occurrence exactly one inserts; the
// ledger and the end are written at the run's rev.

// TaskAutomation reads an automation by id alone.
func (s *Store) TaskAutomation(ctx context.Context, id string) (automations.Automation, error) {
	return scanAutomation(s.read.QueryRowContext(ctx, `SELECT `+automationColumns+` FROM automations a WHERE a.id = ?`, id),
		map[string]release.Actor{})
}

// RunByID reads a run by id alone.
func (s *Store) RunByID(ctx context.Context, id string) (automations.Run, error) {
	return scanRun(s.read.QueryRowContext(ctx, `SELECT `+runColumns+` FROM schedule_runs r WHERE r.id = ?`, id))
}

// BeginRun inserts an agent run as its automation's open run, due at its
// end: the automation must be active with no run open, and the occurrence
// must have no run yet.
func (s *Store) BeginRun(ctx context.Context, r automations.Run, entry engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET open_run_id = ?, due_at = ?, manual_window = CASE
			WHEN ? = 'manual' THEN NULL ELSE manual_window END
			WHERE id = ? AND state = 'active' AND open_run_id IS NULL`,
			r.ID, optionalInstant(r.EndsAt), r.Trigger, r.SubjectID))
		if err != nil {
			return fmt.Errorf("store: begin run: %w", err)
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

// SaveLedger writes an open run's ledger at rev.
func (s *Store) SaveLedger(ctx context.Context, runID string, rev int64, l automation.RunLedger, now time.Time) error {
	text, err := jsonText(l)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET ledger = ?, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND state = 'running'`, text, instant(now), runID, rev))
		if err != nil {
			return fmt.Errorf("store: save ledger: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return nil
	})
}

// EndTaskRun ends an open agent run at its rev and writes the automation's
// state after it, with the audit row.
func (s *Store) EndTaskRun(ctx context.Context, e automations.TaskRunEnd) error {
	ledger, err := jsonText(e.Ledger)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(e.Now)
		ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET state = ?, outcome = NULLIF(?, ''), summary = NULLIF(?, ''),
			error = NULLIF(?, ''), ledger = ?, ended_at = ?, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND state = 'running'`,
			string(e.State), string(e.Outcome), e.Summary, e.ErrorCode, ledger, now, now, e.Run.ID, e.Run.Rev))
		if err != nil {
			return fmt.Errorf("store: end agent run: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if _, err := tx.ExecContext(ctx, `UPDATE automations SET open_run_id = NULL, state = ?, paused_reason = NULLIF(?, ''),
			consecutive_failures = ?, due_at = ?, handled_at = max(COALESCE(handled_at, ''), ?), rev = rev + 1, updated_at = ?
			WHERE id = ? AND open_run_id = ?`,
			string(e.Automation.State), string(e.Automation.PausedReason), e.Automation.ConsecutiveFailures, optionalInstant(e.DueAt),
			instant(e.Run.OccurrenceAt), now, e.Run.SubjectID, e.Run.ID); err != nil {
			return fmt.Errorf("store: end agent run: %w", err)
		}
		return audit(ctx, tx, e.Audit)
	})
}

// OpenWindow records the window a person's Run now opened.
func (s *Store) OpenWindow(ctx context.Context, automationID string, rev int64, w automation.RunWindow, entry engine.AuditEntry) error {
	text, err := jsonText(w)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		// The tick looks at the automation when the window closes.
		ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET manual_window = ?, due_at = CASE
			WHEN due_at IS NULL OR due_at > ? THEN ? ELSE due_at END, rev = rev + 1, updated_at = ?
			WHERE id = ? AND rev = ? AND open_run_id IS NULL`,
			text, instant(w.ClosesAt), instant(w.ClosesAt), instant(entry.At), automationID, rev))
		if err != nil {
			return fmt.Errorf("store: open window: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return audit(ctx, tx, entry)
	})
}

// RecordWindows records an agent task's closed windows with no run, and
// its next look, when the automation is still as read.
func (s *Store) RecordWindows(ctx context.Context, w scheduler.TaskWindows) (int, error) {
	inserted := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := instant(w.Now)
		state := `state`
		var ended any
		if w.Ended {
			state, ended = `'ended'`, now
		}
		ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET handled_at = ?, next_run_at = ?, due_at = ?, state = `+state+`,
			ended_at = COALESCE(?, ended_at), manual_window = CASE WHEN ? = 1 THEN NULL ELSE manual_window END
			WHERE id = ? AND rev = ? AND handled_at = ? AND open_run_id IS NULL`,
			instant(w.Handled), optionalInstant(w.NextRunAt), optionalInstant(w.DueAt), ended, w.ClearManual,
			w.AutomationID, w.Rev, instant(w.HandledAt)))
		if err != nil {
			return fmt.Errorf("store: record windows: %w", err)
		}
		if !ok {
			return nil
		}
		for _, r := range w.Missed {
			// A run begin_run made for the occurrence stays: no missed row.
			switch err := insertRun(ctx, tx, r); {
			case err == nil:
				inserted++
			case !errors.Is(err, engine.ErrConflict):
				return err
			}
		}
		return nil
	})
	return inserted, err
}
