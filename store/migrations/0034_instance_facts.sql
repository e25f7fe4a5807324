-- Facts about the deployment that outlive a process (issue 16): the tzdata
-- version the scheduler last resolved wall-clock times with, so a change
-- between runs re-resolves the releases to come (§9.1).
CREATE TABLE instance_facts (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
