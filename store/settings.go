package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/release"
	"studio/engine/releases"
	"studio/engine/settings"
)

// ScheduleSettings reads a site's schedule settings; a site without a row
// has the defaults, at rev 0.
func (s *Store) ScheduleSettings(ctx context.Context, siteID string) (releases.ScheduleSettings, error) {
	x := releases.DefaultScheduleSettings(siteID)
	var pausedBy, pausedAt, reason sql.NullString
	var updatedAt, updatedBy string
	err := s.read.QueryRowContext(ctx, `SELECT paused, paused_by, paused_at, paused_reason, daily_write_cap, rev,
		updated_at, updated_by FROM schedule_settings WHERE site_id = ?`, siteID).
		Scan(&x.Paused, &pausedBy, &pausedAt, &reason, &x.DailyWriteCap, &x.Rev, &updatedAt, &updatedBy)
	if err == sql.ErrNoRows {
		return x, nil
	}
	if err != nil {
		return x, fmt.Errorf("store: schedule settings: %w", err)
	}
	x.PausedReason = reason.String
	if pausedBy.Valid {
		x.PausedBy = &release.Actor{}
		if err := fromJSON(pausedBy, x.PausedBy); err != nil {
			return x, err
		}
	}
	if x.PausedAt, err = parseInstant(pausedAt); err != nil {
		return x, err
	}
	x.UpdatedBy = &release.Actor{}
	if err := fromJSON(sql.NullString{String: updatedBy, Valid: true}, x.UpdatedBy); err != nil {
		return x, err
	}
	x.UpdatedAt, err = mustInstant(updatedAt)
	return x, err
}

// SaveScheduleSettings writes next if the site's settings are still at
// expectedRev (0: the site has no row yet), with its audit row, in one
// transaction; ErrConflict when someone changed them first.
func (s *Store) SaveScheduleSettings(ctx context.Context, next releases.ScheduleSettings, expectedRev int64, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := saveScheduleSettings(ctx, tx, next, expectedRev); err != nil {
			return err
		}
		return audit(ctx, tx, a)
	})
}

// saveScheduleSettings writes next over the settings at expectedRev (0:
// the site has no row yet) inside tx; ErrConflict when they moved.
func saveScheduleSettings(ctx context.Context, tx *sql.Tx, next releases.ScheduleSettings, expectedRev int64) error {
	pausedBy, err := jsonText(optional(next.PausedBy))
	if err != nil {
		return err
	}
	updatedBy, err := jsonText(optional(next.UpdatedBy))
	if err != nil {
		return err
	}
	var pausedAt any
	if next.PausedAt != nil {
		pausedAt = instant(*next.PausedAt)
	}
	var ok bool
	if expectedRev == 0 {
		ok, err = one(tx.ExecContext(ctx, `INSERT INTO schedule_settings (site_id, paused, paused_by, paused_at,
			paused_reason, daily_write_cap, rev, updated_at, updated_by) VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?)
			ON CONFLICT (site_id) DO NOTHING`,
			next.SiteID, next.Paused, pausedBy, pausedAt, next.PausedReason, next.DailyWriteCap, next.Rev,
			instant(next.UpdatedAt), updatedBy))
	} else {
		ok, err = one(tx.ExecContext(ctx, `UPDATE schedule_settings SET paused = ?, paused_by = ?, paused_at = ?,
			paused_reason = NULLIF(?, ''), daily_write_cap = ?, rev = ?, updated_at = ?, updated_by = ?
			WHERE site_id = ? AND rev = ?`,
			next.Paused, pausedBy, pausedAt, next.PausedReason, next.DailyWriteCap, next.Rev,
			instant(next.UpdatedAt), updatedBy, next.SiteID, expectedRev))
	}
	if err != nil {
		return fmt.Errorf("store: save schedule settings: %w", err)
	}
	if !ok {
		return engine.ErrConflict
	}
	return nil
}

// SetKillSwitch writes the kill switch's one transaction: the settings row
// at w.ExpectedRev, each moved automation over the automation as read
// (guarded on its rev and its open run, so a run begun or a step taken
// since conflicts rather than stays open), its open run killed with error
// kill-switch, and the audit rows. ErrConflict, and nothing written, when
// anything moved since it was read.
func (s *Store) SetKillSwitch(ctx context.Context, w settings.KillSwitchWrite) error {
	now := instant(w.Now)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := saveScheduleSettings(ctx, tx, w.Settings, w.ExpectedRev); err != nil {
			return err
		}
		for _, m := range w.Moves {
			if m.KillRun {
				ok, err := one(tx.ExecContext(ctx, `UPDATE schedule_runs SET state = 'killed', error = ?, ended_at = ?,
					lease_token = NULL, lease_until = NULL, rev = rev + 1, updated_at = ?
					WHERE id = ? AND state IN ('due', 'ready', 'running')`,
					automations.RunKilledByKillSwitch, now, now, m.Was.OpenRunID))
				if err != nil {
					return fmt.Errorf("store: kill switch: %w", err)
				}
				if !ok {
					return engine.ErrConflict // it ended meanwhile: read again
				}
			}
			a := m.Now
			var window any
			if a.Task != nil && a.Task.ManualWindow != nil {
				var err error
				if window, err = jsonText(a.Task.ManualWindow); err != nil {
					return err
				}
			}
			ok, err := one(tx.ExecContext(ctx, `UPDATE automations SET state = ?, paused_reason = NULLIF(?, ''),
				handled_at = ?, next_run_at = ?, due_at = ?, open_run_id = NULLIF(?, ''), manual_window = ?,
				rev = rev + 1, updated_at = ?
				WHERE id = ? AND site_id = ? AND rev = ? AND state = ? AND COALESCE(open_run_id, '') = ?`,
				a.State, a.PausedReason, instant(a.HandledAt), optionalInstant(a.NextRunAt), optionalInstant(a.DueAt),
				a.OpenRunID, window, now, a.ID, a.SiteID, m.Was.Rev, m.Was.State, m.Was.OpenRunID))
			if err != nil {
				return fmt.Errorf("store: kill switch: %w", err)
			}
			if !ok {
				return engine.ErrConflict
			}
		}
		for _, e := range w.Audit {
			if err := audit(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetSiteTimeZone changes the site's zone if the site is still at site's
// rev and hash, with its audit row, in one transaction; ErrConflict
// otherwise.
func (s *Store) SetSiteTimeZone(ctx context.Context, site engine.Site, zone, newHash string, now time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE sites SET time_zone = ?, rev = rev + 1, hash = ?, updated_at = ?
			WHERE id = ? AND rev = ? AND hash = ?`, zone, newHash, instant(now), site.ID, site.Rev, site.Hash))
		if err != nil {
			return fmt.Errorf("store: set time zone: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return audit(ctx, tx, a)
	})
}

// SetSiteLang changes the site's language if the site is still at site's
// rev and hash, with its audit row, in one transaction; ErrConflict
// otherwise.
func (s *Store) SetSiteLang(ctx context.Context, site engine.Site, lang, newHash string, now time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE sites SET lang = ?, rev = rev + 1, hash = ?, updated_at = ?
			WHERE id = ? AND rev = ? AND hash = ?`, lang, newHash, instant(now), site.ID, site.Rev, site.Hash))
		if err != nil {
			return fmt.Errorf("store: set site language: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		return audit(ctx, tx, a)
	})
}

// SetSiteAddress changes the site's public URL and whether it answers the
// hosts no site names, if the site is still at site's rev and hash, with
// its audit row, in one transaction; the default taken by this site is
// taken from every other. ErrConflict when the site moved.
func (s *Store) SetSiteAddress(ctx context.Context, site engine.Site, publicURL string, defaultHost bool, newHash string, now time.Time, a engine.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		ok, err := one(tx.ExecContext(ctx, `UPDATE sites SET public_url = ?, default_host = ?, rev = rev + 1, hash = ?, updated_at = ?
			WHERE id = ? AND rev = ? AND hash = ?`, publicURL, defaultHost, newHash, instant(now), site.ID, site.Rev, site.Hash))
		if err != nil {
			return fmt.Errorf("store: set site address: %w", err)
		}
		if !ok {
			return engine.ErrConflict
		}
		if defaultHost {
			if _, err := tx.ExecContext(ctx, `UPDATE sites SET default_host = 0 WHERE id <> ? AND default_host <> 0`, site.ID); err != nil {
				return fmt.Errorf("store: set site address: %w", err)
			}
		}
		return audit(ctx, tx, a)
	})
}

// AutomationWrites counts a site's audit rows written by automations in
// [from, to): the daily write cap's use (§11.5), one indexed count.
func (s *Store) AutomationWrites(ctx context.Context, siteID string, from, to time.Time) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM audit
		WHERE site_id = ? AND at >= ? AND at < ? AND automation_id IS NOT NULL`, siteID, instant(from), instant(to)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: automation writes: %w", err)
	}
	return n, nil
}
