-- The site's schedule settings (RFC-0008 §5.1), outside the content graph so
-- a rollback can never un-pause a site. A missing row means the defaults:
-- not paused, a daily automation write cap of 200.
CREATE TABLE schedule_settings (
  site_id TEXT PRIMARY KEY REFERENCES sites (id),
  paused INTEGER NOT NULL,                 -- the site's kill switch (§11.6 item 2)
  paused_by TEXT,                          -- JSON Actor, while paused
  paused_at TEXT,
  paused_reason TEXT,
  daily_write_cap INTEGER NOT NULL,        -- automation writes per UTC day (§11.5)
  rev INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL                 -- JSON Actor
);

-- Automation writes are audit rows carrying their automation (§5.1, §11.5):
-- the daily cap is an indexed count of them since midnight UTC, per site.
ALTER TABLE audit ADD COLUMN automation_id TEXT;
CREATE INDEX audit_automation_day ON audit (site_id, at) WHERE automation_id IS NOT NULL;
