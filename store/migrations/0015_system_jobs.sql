-- System jobs of the scheduler (RFC-0008 §8.6: "watermarks with bounded
-- catch-up"). One row per job: when it is next due, and its watermark, the
-- cut-off of the pass in progress (or of the last one finished), so a pass
-- that spans several ticks deletes by one fixed line. next_at is NULL
-- until a ticker loop (or `studio schedules run-due`) first schedules the
-- job, an hour after it starts: the tick reads min(next_at) beside the
-- releases' query, so an idle tick stays one statement.
CREATE TABLE system_jobs (
  name TEXT PRIMARY KEY,
  next_at TEXT,
  watermark TEXT,
  done INTEGER NOT NULL DEFAULT 0,  -- rows the job has removed, in all
  updated_at TEXT NOT NULL
);
INSERT INTO system_jobs (name, updated_at) VALUES ('schedules.retention', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
-- Retention finds terminal releases by age.
CREATE INDEX releases_updated ON releases (updated_at) WHERE state IN ('published', 'conflict', 'missed', 'expired', 'failed', 'canceled');
