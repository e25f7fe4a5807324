-- Automations, minimal (RFC-0008 §4.3, §5.1, §11): what the calendar needs
-- to show their occurrences. The job is 'builtin:<name>' or 'agent-task';
-- the rule is the RRULE value of the D3 subset (engine/recurrence), NULL for
-- a one-off at start_local; start_local is a wall-clock time
-- (YYYY-MM-DDTHH:MM) in time_zone. Keys, budgets, windows and the run
-- bookkeeping of §5.1 come with the runner.
CREATE TABLE automations (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id),
  name TEXT NOT NULL,
  job TEXT NOT NULL,
  rule TEXT,
  start_local TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  state TEXT NOT NULL,             -- active | paused | broken
  created_by TEXT NOT NULL,        -- JSON Actor
  origin TEXT NOT NULL,            -- person | agent
  rev INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX automations_site ON automations (site_id, state);

-- The calendar (§12 list_schedule) reads a site's releases by time whatever
-- their state; releases_site leads with the state, so it cannot.
CREATE INDEX releases_site_at ON releases (site_id, execute_at, id);
-- What a release does, for its calendar item: how many items, and the op
-- and node kind of a one-item release, read from the index alone.
CREATE INDEX release_items_summary ON release_items (release_id, op, node_kind);

-- Gates on the calendar: pages and entries whose availability.from or
-- .until falls in a range. Bodies may carry any UTC offset, so the index is
-- on the instant (unixepoch), not on the text; the calendar's query names
-- the same expressions.
CREATE INDEX nodes_gate_from ON nodes (site_id, unixepoch(json_extract(body, '$.availability.from')));
CREATE INDEX nodes_gate_until ON nodes (site_id, unixepoch(json_extract(body, '$.availability.until')));
