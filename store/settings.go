package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"studio/engine"
	"studio/engine/release"
)

// ScheduleSettings reads a site's schedule settings; a site without a row
// has the defaults, at rev 0.
func (s *Store) ScheduleSettings(ctx context.Context, siteID string) (engine.ScheduleSettings, error) {
	x := engine.DefaultScheduleSettings(siteID)
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
func (s *Store) SaveScheduleSettings(ctx context.Context, next engine.ScheduleSettings, expectedRev int64, a engine.AuditEntry) error {
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
	return s.tx(ctx, func(tx *sql.Tx) error {
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
		if next.Paused {
			// The switch kills open runs at the next tick (§11.6): an agent
			// run waits for no step, so its automation is made due now.
			if _, err := tx.ExecContext(ctx, `UPDATE automations SET due_at = ? WHERE site_id = ? AND open_run_id IS NOT NULL`,
				instant(next.UpdatedAt), next.SiteID); err != nil {
				return fmt.Errorf("store: save schedule settings: %w", err)
			}
		}
		return audit(ctx, tx, a)
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
