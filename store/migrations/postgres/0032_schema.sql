-- Studio's schema on PostgreSQL, as SQLite's migrations 0001–0032 left it.
-- No PostgreSQL database is older than this file, so its history starts
-- here; every later version is one file in migrations/ that both engines
-- run, or a pair with its PostgreSQL spelling in migrations/postgres/.
--
-- Types follow SQLite's: instants are TEXT in localtime.InstantLayout (so
-- they sort and compare as text, as there), integers are 64-bit, JSON is
-- TEXT (the store reads it back byte for byte).

-- SQLite's functions the store's SQL uses, with SQLite's meaning (see
-- store/pgsql.go). IMMUTABLE where an index uses them: instants always
-- carry their offset, so no setting changes what they say.
-- json_path turns a SQLite path ($.a."b.c"[0]) into PostgreSQL's ({a,b.c,0}).
CREATE FUNCTION json_path(path text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN path = '$' THEN '{}'::text[]
    WHEN strpos(path, '[') = 0 AND strpos(path, '"') = 0 THEN string_to_array(substr(path, 3), '.')
    ELSE ARRAY(SELECT coalesce(m[1], m[2], m[3]) FROM regexp_matches(path, '\."([^"]*)"|\.([^."\[]+)|\[(\d+)\]', 'g') AS m) END
$$;

CREATE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT doc::jsonb #>> json_path(path)
$$;

-- json_each's key and value, for an array (key: the index) or an object;
-- a value is text, or the JSON text of an array or object.
CREATE FUNCTION json_each(doc text) RETURNS TABLE (key text, value text) LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (a.n - 1)::text, a.e #>> '{}'
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc::jsonb) = 'array' THEN doc::jsonb ELSE '[]' END) WITH ORDINALITY AS a (e, n)
  UNION ALL
  SELECT o.k, o.e #>> '{}'
  FROM jsonb_each(CASE WHEN jsonb_typeof(doc::jsonb) = 'object' THEN doc::jsonb ELSE '{}' END) AS o (k, e)
$$;

CREATE FUNCTION json_each(doc text, path text) RETURNS TABLE (key text, value text) LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT * FROM json_each((doc::jsonb #> json_path(path))::text)
$$;

CREATE FUNCTION json_each(doc json) RETURNS TABLE (key text, value text) LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT * FROM json_each(doc::text)
$$;

-- unixepoch and julianday answer NULL for what is not an instant, as SQLite's do.
CREATE FUNCTION unixepoch(t text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN floor(extract(epoch FROM t::timestamptz))::bigint;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

CREATE FUNCTION julianday(t text) RETURNS double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN extract(epoch FROM t::timestamptz)::double precision / 86400 + 2440587.5;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

-- strftime('%Y-%m-%dT%H:%M:%fZ', instant, '+N seconds'): the one use.
CREATE FUNCTION strftime(format text, t text, modifier text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF format <> '%Y-%m-%dT%H:%M:%fZ' THEN
    RAISE EXCEPTION 'strftime: format % is not supported', format;
  END IF;
  RETURN to_char((t::timestamptz + modifier::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
  RETURN NULL;
END
$$;

CREATE FUNCTION json(doc text) RETURNS json LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT doc::json
$$;

CREATE FUNCTION instr(haystack text, needle text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT strpos(haystack, needle)
$$;

-- SQLite's max with two values is NULL when either is.
CREATE FUNCTION max(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN a >= b THEN a ELSE b END
$$;

CREATE FUNCTION group_concat_step(acc text, value text, sep text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN acc WHEN acc IS NULL THEN value ELSE acc || sep || value END
$$;

CREATE AGGREGATE group_concat(text, text) (SFUNC = group_concat_step, STYPE = text);

CREATE FUNCTION group_concat_step(acc text, value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT group_concat_step(acc, value, ',')
$$;

CREATE AGGREGATE group_concat(text) (SFUNC = group_concat_step, STYPE = text);

-- E-mail addresses compare without case, as SQLite's COLLATE NOCASE did.
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email CITEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  lang TEXT NOT NULL DEFAULT 'en',
  created_at TEXT NOT NULL,
  session_epoch BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  published_snapshot_id TEXT,
  rev BIGINT NOT NULL,
  hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lang TEXT NOT NULL DEFAULT 'tr',
  public_url TEXT NOT NULL DEFAULT '',
  default_host BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  rev BIGINT NOT NULL,
  hash TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT,
  author_id TEXT NOT NULL DEFAULT ''
);

CREATE TABLE node_versions (
  node_id TEXT NOT NULL REFERENCES nodes (id),
  rev BIGINT NOT NULL,
  hash TEXT NOT NULL,
  body TEXT NOT NULL,
  saved_by TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  PRIMARY KEY (node_id, rev)
);

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
  rev BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  request_id TEXT
);

CREATE TABLE release_items (
  release_id TEXT NOT NULL REFERENCES releases (id),
  site_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  op TEXT NOT NULL,
  node_kind TEXT NOT NULL,
  target_rev BIGINT, target_hash TEXT,
  base_rev BIGINT, base_hash TEXT,
  deps TEXT NOT NULL,
  restore_rev BIGINT,
  held BIGINT NOT NULL, added_because TEXT,
  PRIMARY KEY (release_id, node_id)
);

CREATE TABLE schedule_runs (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  occurrence_at TEXT NOT NULL,
  state TEXT NOT NULL,
  outcome TEXT,
  trigger TEXT,
  attempt BIGINT NOT NULL,
  lease_token TEXT,
  lease_until TEXT,
  started_at TEXT,
  ended_at TEXT,
  lateness_s BIGINT,
  adjusted TEXT,
  error TEXT,
  rev BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  job TEXT, counts TEXT, cursor TEXT, error_message TEXT, ends_at TEXT, ledger TEXT, mode TEXT, key_id TEXT, summary TEXT,
  UNIQUE (subject_id, occurrence_at)
);

CREATE TABLE audit (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  at TEXT NOT NULL,
  site_id TEXT,
  action TEXT NOT NULL,
  actor TEXT NOT NULL,
  release_id TEXT,
  run_id TEXT,
  details TEXT,
  automation_id TEXT
);

CREATE TABLE scheduler_heartbeat (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  at TEXT NOT NULL,
  trigger TEXT NOT NULL,
  next_wake_at TEXT NOT NULL,
  ran BIGINT NOT NULL,
  more BIGINT NOT NULL,
  lag_s BIGINT
);

-- The sessions of github.com/alexedwards/scs/postgresstore.
CREATE TABLE sessions (
  token TEXT PRIMARY KEY,
  data BYTEA NOT NULL,
  expiry TIMESTAMPTZ NOT NULL
);

CREATE TABLE schedule_settings (
  site_id TEXT PRIMARY KEY REFERENCES sites (id),
  paused BIGINT NOT NULL,
  paused_by TEXT,
  paused_at TEXT,
  paused_reason TEXT,
  daily_write_cap BIGINT NOT NULL,
  rev BIGINT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL
);

CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  release_id TEXT NOT NULL REFERENCES releases (id),
  state_hash TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  execute_at TEXT,
  requested_by TEXT NOT NULL,
  status TEXT NOT NULL,
  decided_by TEXT,
  decided_at TEXT,
  reason TEXT,
  created_at TEXT NOT NULL,
  run_id TEXT
);

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT,
  scopes TEXT
);

CREATE TABLE automations (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  name TEXT NOT NULL,
  job TEXT NOT NULL,
  rule TEXT,
  start_local TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  state TEXT NOT NULL,
  created_by TEXT NOT NULL,
  origin TEXT NOT NULL,
  rev BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  preset TEXT NOT NULL DEFAULT 'custom', config TEXT, paused_reason TEXT,
  consecutive_failures BIGINT NOT NULL DEFAULT 0, owner TEXT, next_run_at TEXT, handled_at TEXT,
  due_at TEXT, open_run_id TEXT, ended_at TEXT, task TEXT, manual_window TEXT
);

CREATE TABLE preview_secret (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  secret BYTEA NOT NULL
);

CREATE TABLE system_jobs (
  name TEXT PRIMARY KEY,
  next_at TEXT,
  watermark TEXT,
  done BIGINT NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);

INSERT INTO system_jobs (name, updated_at)
  VALUES ('schedules.retention', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));

CREATE TABLE job_findings (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
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
  hits BIGINT NOT NULL,
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

CREATE TABLE job_finding_runs (
  run_id TEXT NOT NULL,
  finding_id BIGINT NOT NULL REFERENCES job_findings (id) ON DELETE CASCADE,
  seen TEXT NOT NULL,
  PRIMARY KEY (run_id, finding_id)
);

CREATE TABLE site_not_found (
  site_id TEXT NOT NULL,
  day TEXT NOT NULL,
  path TEXT NOT NULL,
  hits BIGINT NOT NULL,
  PRIMARY KEY (site_id, day, path)
);

CREATE TABLE agent_keys (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  name TEXT NOT NULL,
  owner_id TEXT NOT NULL REFERENCES users (id),
  mode TEXT NOT NULL,
  scopes TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  automation_id TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT
);

CREATE TABLE snapshots (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  seq BIGINT NOT NULL,
  parent_id TEXT,
  reason TEXT NOT NULL,
  label TEXT,
  actor TEXT NOT NULL,
  refs TEXT,
  changes TEXT,
  metadata TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE snapshot_refs (
  site_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  rev BIGINT NOT NULL,
  hash TEXT NOT NULL,
  from_seq BIGINT NOT NULL,
  until_seq BIGINT,
  PRIMARY KEY (site_id, node_id, from_seq)
);

CREATE TABLE memberships (
  site_id TEXT NOT NULL REFERENCES sites (id),
  user_id TEXT NOT NULL REFERENCES users (id),
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (site_id, user_id)
);

CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  email CITEXT NOT NULL,
  role TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT
);

CREATE TABLE password_resets (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);

CREATE TABLE user_sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  epoch BIGINT NOT NULL,
  browser TEXT NOT NULL,
  os TEXT NOT NULL,
  created_at TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  ended_at TEXT
);

CREATE INDEX nodes_site ON nodes (site_id, kind);
CREATE INDEX releases_due ON releases (execute_at) WHERE state IN ('scheduled', 'awaiting_approval');
CREATE INDEX releases_running ON releases (lease_until) WHERE state = 'running';
CREATE INDEX releases_site ON releases (site_id, state, execute_at);
CREATE INDEX release_items_held ON release_items (site_id, node_id) WHERE held = 1;
CREATE INDEX schedule_runs_site ON schedule_runs (site_id, created_at);
CREATE INDEX audit_release ON audit (release_id, at) WHERE release_id IS NOT NULL;
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
CREATE INDEX audit_automation_day ON audit (site_id, at) WHERE automation_id IS NOT NULL;
CREATE INDEX approvals_site ON approvals (site_id, status, created_at);
CREATE UNIQUE INDEX approvals_one_waiting ON approvals (release_id) WHERE status = 'waiting';
CREATE INDEX tokens_user ON tokens (user_id, created_at);
CREATE INDEX release_items_node ON release_items (node_id);
CREATE INDEX automations_site ON automations (site_id, state);
CREATE INDEX releases_site_at ON releases (site_id, execute_at, id);
CREATE INDEX release_items_summary ON release_items (release_id, op, node_kind);
CREATE INDEX nodes_gate_from ON nodes (site_id, unixepoch(json_extract(body, '$.availability.from')));
CREATE INDEX nodes_gate_until ON nodes (site_id, unixepoch(json_extract(body, '$.availability.until')));
CREATE INDEX nodes_address ON nodes (site_id, kind, json_extract(body, '$.slug')) WHERE deleted_at IS NULL;
CREATE INDEX node_versions_slug ON node_versions (json_extract(body, '$.slug'));
CREATE INDEX automations_due ON automations (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX schedule_runs_site_at ON schedule_runs (site_id, occurrence_at, id);
CREATE INDEX schedule_runs_created ON schedule_runs (created_at);
CREATE INDEX releases_updated ON releases (updated_at) WHERE state IN ('published', 'conflict', 'missed', 'expired', 'failed', 'canceled');
CREATE INDEX job_findings_open ON job_findings (site_id, job) WHERE gone_run IS NULL;
CREATE INDEX job_findings_gone ON job_findings (automation_id, gone_run);
CREATE INDEX schedule_runs_skipped ON schedule_runs (site_id, ended_at) WHERE state = 'skipped';
CREATE INDEX agent_keys_site ON agent_keys (site_id, owner_id, created_at);
CREATE UNIQUE INDEX agent_keys_automation ON agent_keys (automation_id) WHERE automation_id IS NOT NULL AND revoked_at IS NULL;
CREATE INDEX approvals_run ON approvals (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX audit_run ON audit (run_id, id) WHERE run_id IS NOT NULL;
CREATE INDEX snapshots_site ON snapshots (site_id, created_at);
CREATE UNIQUE INDEX snapshots_seq ON snapshots (site_id, seq);
CREATE INDEX snapshot_refs_head ON snapshot_refs (site_id, node_id, kind, rev, hash) WHERE until_seq IS NULL;
CREATE INDEX snapshot_refs_ended ON snapshot_refs (site_id, until_seq) WHERE until_seq IS NOT NULL;
CREATE INDEX snapshot_refs_began ON snapshot_refs (site_id, from_seq);
CREATE INDEX memberships_user ON memberships (user_id, site_id);
CREATE INDEX invitations_site ON invitations (site_id, created_at);
CREATE INDEX audit_site ON audit (site_id, id) WHERE site_id IS NOT NULL;
CREATE INDEX password_resets_user ON password_resets (user_id);
CREATE INDEX nodes_edited ON nodes (site_id, updated_at DESC, id) WHERE deleted_at IS NULL;
CREATE INDEX nodes_versions ON nodes (site_id, id, rev, hash) WHERE deleted_at IS NULL;
CREATE INDEX user_sessions_user ON user_sessions (user_id, seen_at);

-- A snapshot's changes end the refs it replaced and begin its own, as
-- SQLite's trigger snapshot_changes does (migration 0022).
CREATE FUNCTION snapshot_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE snapshot_refs SET until_seq = NEW.seq
  WHERE site_id = NEW.site_id AND until_seq IS NULL AND node_id IN (
    SELECT json_extract(value, '$.id') FROM json_each(NEW.changes, '$.set')
    UNION ALL SELECT value FROM json_each(NEW.changes, '$.removed'));
  INSERT INTO snapshot_refs (site_id, node_id, kind, rev, hash, from_seq)
  SELECT NEW.site_id, json_extract(value, '$.id'), json_extract(value, '$.kind'),
    json_extract(value, '$.rev')::bigint, json_extract(value, '$.hash'), NEW.seq
  FROM json_each(NEW.changes, '$.set');
  RETURN NULL;
END
$$;

CREATE TRIGGER snapshot_changes AFTER INSERT ON snapshots
  FOR EACH ROW WHEN (NEW.changes IS NOT NULL) EXECUTE FUNCTION snapshot_changes();
