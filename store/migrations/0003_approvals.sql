-- Approval requests (RFC-0008 §10.4–10.5): one waiting request per release,
-- bound to the release's rl1: hash (state_hash) and to its time (args_hash
-- covers {releaseId, when}). A request lives until the release's time.
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  release_id TEXT NOT NULL REFERENCES releases (id),
  state_hash TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  execute_at TEXT,
  requested_by TEXT NOT NULL,      -- JSON Actor
  status TEXT NOT NULL,            -- waiting | approved | denied | expired | withdrawn
  decided_by TEXT,                 -- JSON Actor
  decided_at TEXT,
  reason TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX approvals_site ON approvals (site_id, status, created_at);
CREATE UNIQUE INDEX approvals_one_waiting ON approvals (release_id) WHERE status = 'waiting';
ALTER TABLE releases ADD COLUMN request_id TEXT;
