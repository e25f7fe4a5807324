-- Findings of the built-in jobs (RFC §11.1, §11.7) that persist across runs,
-- so a run's page shows what is new, what is still there and what was fixed
-- since the last run, as WordPress's Broken Link Checker does. A finding is
-- one row per automation and key: the key is a hash of its code, node,
-- field and target (engine/jobs FindingKey), so a step run again from the
-- same cursor writes the same rows and records nothing twice.
--
-- first_* is the run that saw it first (again, after it was gone), last_*
-- the latest run that saw it, gone_* the complete sweep that no longer found
-- it. dismissed_* is "Not a problem": what the finding said (detail) when a
-- person dismissed it; it stays hidden while it says the same.
CREATE TABLE job_findings (
  id INTEGER PRIMARY KEY,
  automation_id TEXT NOT NULL,
  key TEXT NOT NULL,
  site_id TEXT NOT NULL,
  job TEXT NOT NULL,
  code TEXT NOT NULL,
  node_id TEXT NOT NULL,
  node_kind TEXT NOT NULL,
  field TEXT NOT NULL,
  target TEXT NOT NULL,
  detail TEXT NOT NULL,
  hits INTEGER NOT NULL,
  first_run TEXT NOT NULL,
  first_at TEXT NOT NULL,
  last_run TEXT NOT NULL,
  last_at TEXT NOT NULL,
  gone_run TEXT,
  gone_at TEXT,
  dismissed_detail TEXT,
  dismissed_at TEXT,
  dismissed_by TEXT,
  UNIQUE (automation_id, key)
);
CREATE INDEX job_findings_open ON job_findings (site_id, job) WHERE gone_run IS NULL;
CREATE INDEX job_findings_gone ON job_findings (automation_id, gone_run);

-- Which findings each run saw (at most 200 a run, §11.1), as new or still
-- there, and which it found gone: a run's page lists them exactly, for any
-- run, not only the latest, even after a finding went and came back. The
-- runner's retention deletes a run's rows with the run.
CREATE TABLE job_finding_runs (
  run_id TEXT NOT NULL,
  finding_id INTEGER NOT NULL REFERENCES job_findings (id) ON DELETE CASCADE,
  seen TEXT NOT NULL,               -- new | still | gone
  PRIMARY KEY (run_id, finding_id)
);
