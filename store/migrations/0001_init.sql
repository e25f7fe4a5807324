-- Studio's first schema: people, the content graph, releases and their runs,
-- the audit, the scheduler's heartbeat and the sessions of scs.
-- Instants are TEXT in UTC, "2006-01-02T15:04:05.000Z", so they sort as text.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  lang TEXT NOT NULL DEFAULT 'en',
  created_at TEXT NOT NULL
);

CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  published_snapshot_id TEXT,
  rev INTEGER NOT NULL,
  hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- The working copy: one row per node, its latest version.
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  rev INTEGER NOT NULL,
  hash TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX nodes_site ON nodes (site_id, kind);

-- Every saved version; pins and snapshots name (node_id, rev).
CREATE TABLE node_versions (
  node_id TEXT NOT NULL REFERENCES nodes (id),
  rev INTEGER NOT NULL,
  hash TEXT NOT NULL,
  body TEXT NOT NULL,
  saved_by TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  PRIMARY KEY (node_id, rev)
);

CREATE TABLE snapshots (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  parent_id TEXT,
  reason TEXT NOT NULL,            -- publish | scheduled | rollback | manual
  label TEXT,
  actor TEXT NOT NULL,             -- JSON Actor
  refs TEXT NOT NULL,              -- JSON [{id, kind, rev, hash}] sorted by id
  metadata TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX snapshots_site ON snapshots (site_id, created_at);

-- RFC-0008 §5.1, minus what Studio does not have yet (purge plans, blobs).
CREATE TABLE releases (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  title TEXT,
  state TEXT NOT NULL,
  hash TEXT NOT NULL,
  when_kind TEXT,
  execute_at TEXT,
  time_zone TEXT,
  local_time TEXT,
  approval TEXT,
  outcome TEXT,
  lease_token TEXT,
  lease_until TEXT,
  created_by TEXT NOT NULL,
  metadata TEXT,
  rev INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX releases_due ON releases (execute_at) WHERE state IN ('scheduled', 'awaiting_approval');
CREATE INDEX releases_running ON releases (lease_until) WHERE state = 'running';
CREATE INDEX releases_site ON releases (site_id, state, execute_at);

CREATE TABLE release_items (
  release_id TEXT NOT NULL REFERENCES releases (id),
  site_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  op TEXT NOT NULL,
  node_kind TEXT NOT NULL,
  target_rev INTEGER, target_hash TEXT,
  base_rev INTEGER, base_hash TEXT,
  deps TEXT NOT NULL,
  restore_rev INTEGER,             -- the draft version scheduling promoted (see release.Item)
  held INTEGER NOT NULL,
  PRIMARY KEY (release_id, node_id)
);
CREATE INDEX release_items_held ON release_items (site_id, node_id) WHERE held = 1;

CREATE TABLE schedule_runs (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  occurrence_at TEXT NOT NULL,
  state TEXT NOT NULL,
  outcome TEXT,
  trigger TEXT,
  attempt INTEGER NOT NULL,
  lease_token TEXT,
  lease_until TEXT,
  started_at TEXT,
  ended_at TEXT,
  lateness_s INTEGER,
  adjusted TEXT,
  error TEXT,
  rev INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (subject_id, occurrence_at)
);
CREATE INDEX schedule_runs_site ON schedule_runs (site_id, created_at);

CREATE TABLE audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  site_id TEXT,
  action TEXT NOT NULL,
  actor TEXT NOT NULL,             -- JSON Actor
  release_id TEXT,
  run_id TEXT,
  details TEXT
);
CREATE INDEX audit_release ON audit (release_id, at) WHERE release_id IS NOT NULL;

CREATE TABLE scheduler_heartbeat (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at TEXT NOT NULL,
  trigger TEXT NOT NULL,
  next_wake_at TEXT NOT NULL,
  ran INTEGER NOT NULL,
  more INTEGER NOT NULL,
  lag_s INTEGER
);

-- scs/sqlite3store's table.
CREATE TABLE sessions (
  token TEXT PRIMARY KEY,
  data BLOB NOT NULL,
  expiry REAL NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
