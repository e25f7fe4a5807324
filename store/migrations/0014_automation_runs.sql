-- Automations that run (RFC-0008 §4.3, §5.3, §8.6, §11.1): the rest of
-- §4.3's shape, and the runner's bookkeeping.
--
--   preset               once|hourly|daily|weekdays|weekly|monthly|custom
--   config               JSON jobs.Config (staleAfterDays, exclude patterns)
--   paused_reason        §4.3 pausedReason; NULL when active or ended
--   consecutive_failures failed runs in a row; the third auto-pauses
--   owner                JSON {id, name}: a person, never an agent
--   next_run_at          the next occurrence (§4.3 nextRunAt); NULL when none
--   handled_at           the last occurrence run or recorded as skipped, or
--                        the instant it was created or resumed: occurrences
--                        at or before it are never run (DueOccurrences)
--   due_at               when the runner must look at the automation next:
--                        its next occurrence, or the next step of its open
--                        run (the end of a live step's lease). The idle
--                        tick reads min(due_at) from automations_due alone.
--   open_run_id          the run in progress, stepped once a tick
--   ended_at             when COUNT or UNTIL ran out (state ended)
ALTER TABLE automations ADD COLUMN preset TEXT NOT NULL DEFAULT 'custom';
ALTER TABLE automations ADD COLUMN config TEXT;
ALTER TABLE automations ADD COLUMN paused_reason TEXT;
ALTER TABLE automations ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE automations ADD COLUMN owner TEXT;
ALTER TABLE automations ADD COLUMN next_run_at TEXT;
ALTER TABLE automations ADD COLUMN handled_at TEXT;
ALTER TABLE automations ADD COLUMN due_at TEXT;
ALTER TABLE automations ADD COLUMN open_run_id TEXT;
ALTER TABLE automations ADD COLUMN ended_at TEXT;

-- Automations made before the runner: the creator owns them, a one-off is
-- "once", and nothing before this migration runs (a burst of old
-- occurrences on upgrade would surprise everyone): the runner looks at
-- each on its first tick and sets its next run.
UPDATE automations SET owner = json_object('id', json_extract(created_by, '$.id'), 'name', json_extract(created_by, '$.name')),
  preset = CASE WHEN rule IS NULL THEN 'once' ELSE 'custom' END,
  handled_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
  due_at = CASE WHEN state = 'active' THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END;

CREATE INDEX automations_due ON automations (due_at) WHERE due_at IS NOT NULL;

-- Runs of automations beside those of releases (§4.4). Release runs keep
-- their columns as they were; these are NULL for them.
--   job        builtin | agent-task (the subject's job kind)
--   counts     JSON {"<finding>": n}, ≤ 20 keys; coalesced on a skipped run
--   cursor     where the next step of a running built-in starts (jobs.Step)
--   error_message  the error's words for an operator (error holds its code)
ALTER TABLE schedule_runs ADD COLUMN job TEXT;
ALTER TABLE schedule_runs ADD COLUMN counts TEXT;
ALTER TABLE schedule_runs ADD COLUMN cursor TEXT;
ALTER TABLE schedule_runs ADD COLUMN error_message TEXT;

-- History: a site's runs newest first, and one subject's.
CREATE INDEX schedule_runs_site_at ON schedule_runs (site_id, occurrence_at, id);
-- Retention (schedules.retention) walks every site's oldest runs.
CREATE INDEX schedule_runs_created ON schedule_runs (created_at);
